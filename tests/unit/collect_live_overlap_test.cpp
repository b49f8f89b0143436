// SPDX-License-Identifier: Apache-2.0
// Reads that depend on another read start as soon as that one is in, not after every first read:
// the pods on the GPU nodes are asked for while the Deployments list still pages.
#include <chrono>
#include <condition_variable>
#include <mutex>

#include <doctest/doctest.h>

#include "unit/collect_live_support.hpp"

using namespace collect_test;

namespace {

// Holds every Deployments page after the first until a per-node pod list has been asked for,
// or for 10 s: with reads in rounds no per-node list would come while a Deployments page waits.
struct DeploymentsHeld {
  std::mutex mutex;
  std::condition_variable asked;
  bool per_node_asked = false;
  int held = 0;
  int timed_out = 0;

  void on_request(const fakekube::LoggedRequest& request) {
    std::unique_lock lock(mutex);
    if (request.path == "/api/v1/pods" && request.query.find("spec.nodeName") != std::string::npos) {
      per_node_asked = true;
      asked.notify_all();
    } else if (request.path == "/apis/apps/v1/deployments" && request.query.find("continue=") != std::string::npos) {
      ++held;
      if (!asked.wait_for(lock, std::chrono::seconds(10), [this] { return per_node_asked; })) ++timed_out;
    }
  }
};

} // namespace

TEST_CASE("collect::collect lists the pods of GPU nodes while the Deployments still page") {
  DeploymentsHeld hold;
  fakekube::Server server(incident());
  server.api().load(cpu_nodes(7)); // 3 GPU nodes of 16: per-node lists
  server.set_request_listener([&hold](const fakekube::LoggedRequest& request) { hold.on_request(request); });
  server.start(0);
  kube_test::wait_until_listening(server);
  kube_test::TempDir dir;
  gpuslice::kube::GlobalOptions options;
  options.kubeconfig = server.write_kubeconfig(dir.path / "admin", "admin", fakekube::KubeconfigAuth::token).string();
  gpuslice::kube::Client client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
  gpuslice::collect::Scope scope;
  scope.page_size = 1; // the incident's 4 Deployments in 4 pages

  const gpuslice::Snapshot snapshot = gpuslice::collect::collect(client, scope);
  server.stop(); // before the listener's state goes

  CHECK(hold.held == 3);
  CHECK(hold.timed_out == 0);
  CHECK(count_requests(server.request_log(), "/api/v1/pods", "spec.nodeName=") == 3);
  // Every page read: the GPU Deployments and the autoscaler (coredns is neither).
  CHECK(names(snapshot.deployments) ==
        std::vector<std::string>{"kube-system/cluster-autoscaler", "ml/embeddings-worker", "ml/gpu-inference"});
  CHECK(snapshot.pods.size() == 16);
}
