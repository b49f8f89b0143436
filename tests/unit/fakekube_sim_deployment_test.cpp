// SPDX-License-Identifier: Apache-2.0
// The Deployment and ReplicaSet controller stand-ins (sim/deployment_controller.cpp,
// sim/replicaset_controller.cpp): a ReplicaSet and pods for spec.replicas, a new ReplicaSet
// (next revision) on a template change rolled within maxSurge/maxUnavailable, scaling, and
// status and conditions as `kubectl rollout status` reads them.
#include <set>

#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

const std::string k_deploy_path = "/apis/apps/v1/namespaces/default/deployments/web";

Json web_deployment(int replicas, const std::string& cpu = "100m") {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", Json::array({{{"name", "main"},
                                                     {"image", "nginx:1"},
                                                     {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}}}}}};
}

Json deployment_replicasets(Cluster& cluster) {
  return cluster.items("/apis/apps/v1/namespaces/default/replicasets", "app=web");
}

const Json* condition_of(const Json& object, const std::string& type) {
  for (const Json& condition : object["status"]["conditions"])
    if (condition["type"] == type) return &condition;
  return nullptr;
}

int ready_pods(const Json& pods) {
  int ready = 0;
  for (const Json& pod : pods)
    for (const Json& condition : pod["status"].value("conditions", Json::array()))
      if (condition["type"] == "Ready" && condition["status"] == "True") ++ready;
  return ready;
}

// Ticks until `kubectl rollout status` would succeed; the number of ticks it took, or -1.
int ticks_to_roll_out(Cluster& cluster, int limit) {
  for (int tick = 1; tick <= limit; ++tick) {
    cluster.tick();
    if (fakekube_sim_test::deployment_rollout(cluster.get(k_deploy_path)) ==
        "deployment \"web\" successfully rolled out")
      return tick;
  }
  return -1;
}

} // namespace

TEST_CASE("fakekube::sim::run_deployments creates a ReplicaSet and pods, status as rollout status reads it") {
  Cluster cluster;
  for (const char* name : {"a", "b"}) cluster.api.load(fakekube_sim_test::make_node(name));
  const Json created = cluster.create("/apis/apps/v1/namespaces/default/deployments", web_deployment(3));
  CHECK(fakekube_sim_test::deployment_rollout(created) == "Waiting for deployment spec update to be observed...");

  cluster.tick();
  Json replicasets = deployment_replicasets(cluster);
  REQUIRE(replicasets.size() == 1);
  const Json& rs = replicasets[0];
  const std::string hash = rs["metadata"]["labels"]["pod-template-hash"];
  CHECK(rs["metadata"]["name"] == "web-" + hash);
  CHECK(rs["spec"]["replicas"] == 3);
  CHECK(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"] == hash);
  CHECK(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1");
  CHECK(rs["metadata"]["ownerReferences"][0]["kind"] == "Deployment");
  CHECK(cluster.items("/api/v1/namespaces/default/pods", "app=web").size() == 3);

  const int ticks = ticks_to_roll_out(cluster, 6);
  CHECK(ticks > 0);
  const Json deployment = cluster.get(k_deploy_path);
  const Json& status = deployment["status"];
  CHECK(status["observedGeneration"] == deployment["metadata"]["generation"]);
  CHECK(status["replicas"] == 3);
  CHECK(status["updatedReplicas"] == 3);
  CHECK(status["readyReplicas"] == 3);
  CHECK(status["availableReplicas"] == 3);
  CHECK_FALSE(status.contains("unavailableReplicas")); // omitempty
  CHECK(deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1");
  const Json* available = condition_of(deployment, "Available");
  REQUIRE(available != nullptr);
  CHECK((*available)["status"] == "True");
  CHECK((*available)["reason"] == "MinimumReplicasAvailable");
  const Json* progressing = condition_of(deployment, "Progressing");
  REQUIRE(progressing != nullptr);
  CHECK((*progressing)["status"] == "True");
  CHECK((*progressing)["reason"] == "NewReplicaSetAvailable");
  CHECK((*progressing)["message"] == "ReplicaSet \"web-" + hash + "\" has successfully progressed.");
  for (const Json& pod : cluster.items("/api/v1/namespaces/default/pods", "app=web")) {
    CHECK(pod["status"]["phase"] == "Running");
    CHECK(pod["metadata"]["labels"]["pod-template-hash"] == hash);
  }
}

TEST_CASE("fakekube::sim::run_deployments scales the same ReplicaSet when only replicas change") {
  Cluster cluster;
  cluster.api.load(fakekube_sim_test::make_node("a"));
  cluster.create("/apis/apps/v1/namespaces/default/deployments", web_deployment(2));
  REQUIRE(ticks_to_roll_out(cluster, 6) > 0);
  int want = 0;
  SUBCASE("up") { want = 5; }
  SUBCASE("down") { want = 1; }
  cluster.patch(k_deploy_path, {{"spec", {{"replicas", want}}}});
  CHECK(ticks_to_roll_out(cluster, 6) > 0);
  CHECK(deployment_replicasets(cluster).size() == 1);
  const Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=web");
  CHECK(pods.size() == static_cast<std::size_t>(want));
  CHECK(ready_pods(pods) == want);
}

TEST_CASE("fakekube::sim::run_deployments rolls a template change out through a new ReplicaSet") {
  Cluster cluster;
  for (const char* name : {"a", "b"}) cluster.api.load(fakekube_sim_test::make_node(name));
  cluster.create("/apis/apps/v1/namespaces/default/deployments", web_deployment(4));
  REQUIRE(ticks_to_roll_out(cluster, 6) > 0);
  const std::string old_hash = deployment_replicasets(cluster)[0]["metadata"]["labels"]["pod-template-hash"];

  cluster.patch(k_deploy_path, {{"spec", {{"template", {{"spec", {{"containers", Json::array({{{"name", "main"},
                                                                                          {"image", "nginx:2"}}})}}}}}}}},
                "application/strategic-merge-patch+json");
  // Defaults: maxSurge 25% (1 of 4, rounded up), maxUnavailable 25% (1 of 4, rounded down).
  bool saw_waiting = false;
  int tick = 0;
  for (; tick < 30; ++tick) {
    cluster.tick();
    const Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=web");
    CHECK_MESSAGE(pods.size() <= 5, "tick " << tick << ": more than replicas + maxSurge pods");
    CHECK_MESSAGE(ready_pods(pods) >= 3, "tick " << tick << ": more than maxUnavailable down");
    const std::string rollout = fakekube_sim_test::deployment_rollout(cluster.get(k_deploy_path));
    if (rollout.starts_with("Waiting for deployment \"web\" rollout to finish")) saw_waiting = true;
    if (rollout == "deployment \"web\" successfully rolled out") break;
  }
  CHECK(saw_waiting);
  CHECK(tick < 30);

  const Json replicasets = deployment_replicasets(cluster);
  REQUIRE(replicasets.size() == 2);
  for (const Json& rs : replicasets) {
    const bool old = rs["metadata"]["labels"]["pod-template-hash"] == old_hash;
    CHECK(rs["spec"]["replicas"] == (old ? 0 : 4));
    CHECK(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == (old ? "1" : "2"));
  }
  const Json deployment = cluster.get(k_deploy_path);
  CHECK(deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2");
  for (const Json& pod : cluster.items("/api/v1/namespaces/default/pods", "app=web")) {
    CHECK(pod["spec"]["containers"][0]["image"] == "nginx:2");
    CHECK(pod["metadata"]["labels"]["pod-template-hash"] != old_hash);
  }
}

TEST_CASE("fakekube::sim::run_deployments reports pods that cannot run") {
  Cluster cluster;
  cluster.api.load(fakekube_sim_test::make_node("a")); // 4 CPUs
  cluster.create("/apis/apps/v1/namespaces/default/deployments", web_deployment(3, "3"));
  cluster.tick(4);
  const Json deployment = cluster.get(k_deploy_path);
  CHECK(fakekube_sim_test::deployment_rollout(deployment) ==
        "Waiting for deployment \"web\" rollout to finish: 1 of 3 updated replicas are available...");
  CHECK(deployment["status"]["unavailableReplicas"] == 2);
  const Json* available = condition_of(deployment, "Available");
  REQUIRE(available != nullptr);
  CHECK((*available)["status"] == "False");
  CHECK((*available)["reason"] == "MinimumReplicasUnavailable");
  const Json* progressing = condition_of(deployment, "Progressing");
  REQUIRE(progressing != nullptr);
  CHECK((*progressing)["reason"] == "ReplicaSetUpdated");
}

TEST_CASE("fakekube::sim::run_deployments Recreate: old pods go before new ones come") {
  Cluster cluster;
  cluster.api.load(fakekube_sim_test::make_node("a"));
  Json deployment = web_deployment(3);
  deployment["spec"]["strategy"] = {{"type", "Recreate"}};
  cluster.create("/apis/apps/v1/namespaces/default/deployments", deployment);
  REQUIRE(ticks_to_roll_out(cluster, 6) > 0);
  cluster.patch(k_deploy_path, {{"spec", {{"template", {{"metadata", {{"annotations", {{"restartedAt", "now"}}}}}}}}}});
  int tick = 0;
  for (; tick < 10; ++tick) {
    cluster.tick();
    std::set<std::string> hashes;
    for (const Json& pod : cluster.items("/api/v1/namespaces/default/pods", "app=web"))
      hashes.insert(pod["metadata"]["labels"]["pod-template-hash"].get<std::string>());
    CHECK_MESSAGE(hashes.size() <= 1, "tick " << tick << ": old and new pods at once");
    if (fakekube_sim_test::deployment_rollout(cluster.get(k_deploy_path)) == "deployment \"web\" successfully rolled out")
      break;
  }
  CHECK(tick < 10);
  CHECK(deployment_replicasets(cluster).size() == 2);
  CHECK(ready_pods(cluster.items("/api/v1/namespaces/default/pods", "app=web")) == 3);
}

TEST_CASE("fakekube::sim::run_deployments paused: status observed, nothing rolled until resumed") {
  Cluster cluster;
  cluster.api.load(fakekube_sim_test::make_node("a"));
  cluster.create("/apis/apps/v1/namespaces/default/deployments", web_deployment(2));
  REQUIRE(ticks_to_roll_out(cluster, 6) > 0);
  cluster.patch(k_deploy_path, {{"spec", {{"paused", true}}}});
  cluster.patch(k_deploy_path, {{"spec", {{"template", {{"metadata", {{"annotations", {{"restartedAt", "now"}}}}}}}}}});
  cluster.tick(3);
  Json deployment = cluster.get(k_deploy_path);
  CHECK(deployment["status"]["observedGeneration"] == deployment["metadata"]["generation"]);
  CHECK(deployment_replicasets(cluster).size() == 1);
  const Json* progressing = condition_of(deployment, "Progressing");
  REQUIRE(progressing != nullptr);
  CHECK((*progressing)["status"] == "Unknown");
  CHECK((*progressing)["reason"] == "DeploymentPaused");
  CHECK(fakekube_sim_test::deployment_rollout(deployment) ==
        "Waiting for deployment \"web\" rollout to finish: 0 out of 2 new replicas have been updated...");
  cluster.patch(k_deploy_path, {{"spec", {{"paused", false}}}});
  CHECK(ticks_to_roll_out(cluster, 10) > 0);
  CHECK(deployment_replicasets(cluster).size() == 2);
}
