// SPDX-License-Identifier: Apache-2.0
// For the apply/undo fault tables: a fakekube whose faults can also switch on in the middle of a
// run (when a request is seen), and a dump of every object apply and undo may touch, compared
// deeply with what the server adds on each write (resourceVersion, uid, timestamps…) left out.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <fakekube/server.hpp>

#include <gpuslice/kube.hpp>

#include "unit/collect_live_support.hpp"
#include "unit/kube_fakekube_support.hpp"

namespace apply_faults_test {

// The objects apply and undo may create, change or delete, keyed "kind ns/name".
using ClusterState = std::map<std::string, nlohmann::json>;

// A started fakekube that counts the requests it serves as the server numbers them (the first
// is 1, as fault_for counts); `on_request`, when set, is called with each number once that
// request is served (from handler threads, under a lock) and may change the faults for the
// requests after it.
struct FaultCluster {
  fakekube::Server server;
  kube_test::TempDir dir;
  std::mutex trigger_mutex;
  long served = 0;       // guarded by trigger_mutex
  long late_request = 0; // a request number to wait for before reading the state (0: none)
  std::function<void(long, fakekube::Server&)> on_request;

  explicit FaultCluster(fakekube::Scenario scenario) : server(std::move(scenario)) {
    server.set_request_listener([this](const fakekube::LoggedRequest&) {
      std::lock_guard<std::mutex> lock(trigger_mutex);
      ++served;
      if (on_request) on_request(served, server);
    });
    server.start(0);
    kube_test::wait_until_listening(server);
  }
  ~FaultCluster() { server.stop(); } // before the listener's members go

  void set_trigger(std::function<void(long, fakekube::Server&)> trigger) {
    std::lock_guard<std::mutex> lock(trigger_mutex);
    on_request = std::move(trigger);
  }

  long requests_served() {
    std::lock_guard<std::mutex> lock(trigger_mutex);
    return served;
  }

  // A request the client gave up on may still be served after the command returned: wait
  // (up to 20 s) until the server has served request number `n`.
  void wait_until_served(long n) {
    for (int i = 0; i < 2000 && requests_served() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  // Every fault off, so what follows (the state dump, a repairing undo) runs on a healthy server.
  void heal() {
    set_trigger(nullptr);
    server.set_transport_faults({});
    server.api().faults() = {};
  }

  std::filesystem::path kubeconfig() {
    return server.write_kubeconfig(dir.path / "admin-exec.kc", "admin", fakekube::KubeconfigAuth::exec);
  }
};

inline nlohmann::json comparable_object(nlohmann::json object) {
  nlohmann::json& meta = object["metadata"];
  for (const char* key : {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"})
    meta.erase(key);
  if (meta.contains("annotations")) {
    meta["annotations"].erase("deprecated.daemonset.template.generation");
    if (meta["annotations"].empty()) meta.erase("annotations");
  }
  return object;
}

// Read straight from the API layer, past any transport fault.
inline ClusterState cluster_state(fakekube::Server& server) {
  static const char* const k_collections[] = {
      "/api/v1/namespaces", "/api/v1/nodes", "/api/v1/configmaps", "/api/v1/serviceaccounts", "/api/v1/secrets",
      "/apis/apps/v1/daemonsets", "/apis/apps/v1/deployments", "/apis/apps/v1/statefulsets",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      "/apis/rbac.authorization.k8s.io/v1/roles", "/apis/rbac.authorization.k8s.io/v1/rolebindings"};
  ClusterState state;
  for (const char* path : k_collections) {
    fakekube::ApiRequest request;
    request.method = "GET";
    request.path = path;
    request.accept = "application/json";
    request.identity = {"admin", {"system:masters"}};
    const fakekube::ApiResult answer = server.api().handle(request);
    REQUIRE(answer.response.status == 200);
    const nlohmann::json list = nlohmann::json::parse(answer.response.body);
    for (const nlohmann::json& item : list["items"]) {
      const nlohmann::json& meta = item["metadata"];
      const std::string key = std::string(path) + " " + meta.value("namespace", "") + "/" + meta.value("name", "");
      state[key] = comparable_object(item);
    }
  }
  return state;
}

// The objects that differ, each with the JSON patch from `want` to `got`: empty when equal.
inline std::string state_differences(const ClusterState& got, const ClusterState& want) {
  std::string out;
  for (const auto& [key, object] : want) {
    const auto found = got.find(key);
    if (found == got.end()) out += "\n  missing " + key;
    else if (found->second != object) out += "\n  changed " + key + ": " + nlohmann::json::diff(object, found->second).dump();
  }
  for (const auto& [key, object] : got)
    if (!want.count(key)) out += "\n  extra " + key;
  return out;
}

} // namespace apply_faults_test
