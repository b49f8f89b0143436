// SPDX-License-Identifier: Apache-2.0
// Reads that depend on another read start as soon as that one is in, not after every first read:
// the pods on the GPU nodes are asked for while the Deployments list still pages.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "unit/collect_live_support.hpp"

using namespace collect_test;

namespace {

// Holds each request `hold` picks (called under the lock, in the order requests come) until a
// per-node pod list has been asked for, or for 10 s.
struct HeldUntilPerNodeList {
  std::function<bool(const fakekube::LoggedRequest&)> hold;
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
    } else if (hold(request)) {
      ++held;
      if (!asked.wait_for(lock, std::chrono::seconds(10), [this] { return per_node_asked; })) ++timed_out;
    }
  }
};

nlohmann::json gpu_node(const std::string& name) {
  nlohmann::json node = cpu_node(name);
  node["status"]["capacity"]["nvidia.com/gpu"] = "1";
  node["status"]["allocatable"]["nvidia.com/gpu"] = "1";
  return node;
}

struct HeldRun {
  gpuslice::Snapshot snapshot;
  std::vector<fakekube::LoggedRequest> log;
  int held = 0;
  int timed_out = 0;
};

// collect() against the incident plus `extra` objects, holding the requests `hold` picks.
HeldRun collect_holding(const nlohmann::json& extra, std::int64_t page_size,
                        std::function<bool(const fakekube::LoggedRequest&)> hold_if = {}) {
  HeldUntilPerNodeList hold;
  hold.hold = hold_if ? std::move(hold_if) : [](const fakekube::LoggedRequest&) { return false; };
  fakekube::Server server(incident());
  server.api().load(extra);
  server.set_request_listener([&hold](const fakekube::LoggedRequest& request) { hold.on_request(request); });
  server.start(0);
  kube_test::wait_until_listening(server);
  kube_test::TempDir dir;
  gpuslice::kube::GlobalOptions options;
  options.kubeconfig = server.write_kubeconfig(dir.path / "admin", "admin", fakekube::KubeconfigAuth::token).string();
  gpuslice::kube::Client client(gpuslice::kube::connect(options, [](const std::string&) { return std::nullopt; }));
  gpuslice::collect::Scope scope;
  scope.page_size = page_size;
  HeldRun run;
  run.snapshot = gpuslice::collect::collect(client, scope);
  server.stop(); // before the listener's state goes
  run.log = server.request_log();
  run.held = hold.held;
  run.timed_out = hold.timed_out;
  return run;
}

// Holds the node list's `page`-th request (from 1).
std::function<bool(const fakekube::LoggedRequest&)> node_page(int page) {
  return [page, node_pages = 0](const fakekube::LoggedRequest& request) mutable {
    return request.path == "/api/v1/nodes" && ++node_pages == page;
  };
}

} // namespace

TEST_CASE("collect::collect lists the pods of GPU nodes while the Deployments still page") {
  // Every Deployments page after the first is held: with reads in rounds no per-node list would
  // come while one waits. 3 GPU nodes of 16: per-node lists; the incident's 4 Deployments in 4 pages.
  const HeldRun run = collect_holding(cpu_nodes(7), 1, [](const fakekube::LoggedRequest& request) {
    return request.path == "/apis/apps/v1/deployments" && request.query.find("continue=") != std::string::npos;
  });
  CHECK(run.held == 3);
  CHECK(run.timed_out == 0);
  CHECK(count_requests(run.log, "/api/v1/pods", "spec.nodeName=") == 3);
  // Every page read: the GPU Deployments and the autoscaler (coredns is neither).
  CHECK(names(run.snapshot.deployments) ==
        std::vector<std::string>{"kube-system/cluster-autoscaler", "ml/embeddings-worker", "ml/gpu-inference"});
  CHECK(run.snapshot.pods.size() == 16);
}

TEST_CASE("collect::collect lists the pods of GPU nodes while the node list still pages") {
  // 13 CPU nodes (cpu-extra-*) sort before the incident's 9 (ip-10-0-*, 3 of them GPU nodes):
  // at 8 a page the first GPU node, ip-10-0-1-17, comes on page 2, 1 GPU node of 16 so far.
  // The last page is held until some per-node list is asked for.
  const HeldRun paged = collect_holding(cpu_nodes(13), 8, node_page(3));
  CHECK(paged.held == 1);
  CHECK(paged.timed_out == 0);
  CHECK(count_requests(paged.log, "/api/v1/nodes") == 3);
  // Each GPU node's pods are asked for once: the one read ahead is not read again.
  CHECK(count_requests(paged.log, "/api/v1/pods", "spec.nodeName=") == 3);
  CHECK(count_requests(paged.log, "/api/v1/pods", "spec.nodeName=ip-10-0-1-17.us-west-2.compute.internal,") == 1);
  CHECK(count_requests(paged.log, "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed") == 3);
  // The same snapshot as one page of nodes gives (nothing held: there is no later page).
  const HeldRun whole = collect_holding(cpu_nodes(13), 500);
  CHECK(count_requests(whole.log, "/api/v1/pods", "spec.nodeName=") == 3);
  CHECK(names(paged.snapshot.pods) == names(whole.snapshot.pods));
  CHECK(paged.snapshot.pods.size() == 16);
  CHECK(names(paged.snapshot.nodes) == names(whole.snapshot.nodes));
}

TEST_CASE("collect::collect after a read-ahead that the last node page outweighs") {
  // 7 CPU nodes, the incident's 9 (3 GPU), then 6 GPU nodes (zz-gpu-*) on the last page of 8:
  // after pages 1 and 2 the GPU nodes are 1 of 8 and 3 of 16, so their three lists start; the
  // whole list has 9 GPU nodes of 22, and the 6 not yet read are over a quarter of the nodes.
  nlohmann::json extra = cpu_nodes(7);
  for (int i = 0; i < 6; ++i) extra.push_back(gpu_node("zz-gpu-" + std::to_string(i)));
  const HeldRun paged = collect_holding(extra, 8);
  CHECK(count_requests(paged.log, "/api/v1/nodes") == 3);
  CHECK(count_requests(paged.log, "/api/v1/pods", "spec.nodeName=") == 3);
  // One cluster-wide list for the rest (its first page has no continue token), as with one page
  // of nodes, where none is read ahead.
  const auto cluster_wide_lists = [](const std::vector<fakekube::LoggedRequest>& log) {
    return std::count_if(log.begin(), log.end(), [](const fakekube::LoggedRequest& r) {
      return r.path == "/api/v1/pods" && r.query.starts_with("fieldSelector=status.phase%21%3DSucceeded") &&
             r.query.find("continue=") == std::string::npos;
    });
  };
  CHECK(cluster_wide_lists(paged.log) == 1);
  const HeldRun whole = collect_holding(extra, 500);
  CHECK(count_requests(whole.log, "/api/v1/pods", "spec.nodeName=") == 0);
  CHECK(cluster_wide_lists(whole.log) == 1);
  CHECK(names(paged.snapshot.pods) == names(whole.snapshot.pods));
  CHECK(paged.snapshot.pods.size() == 16);
}
