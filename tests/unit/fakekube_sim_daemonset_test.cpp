// SPDX-License-Identifier: Apache-2.0
// The DaemonSet controller stand-in (sim/daemonset_controller.cpp): which nodes get a pod
// (nodeSelector, every required-affinity operator, taints against tolerations, cordoned
// nodes), pods following node and label changes, status as `kubectl rollout status` reads it,
// rolling updates within maxUnavailable, and the scenario's failure modes.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

const std::string k_ds_path = "/apis/apps/v1/namespaces/default/daemonsets/";
const std::string k_ds_collection = "/apis/apps/v1/namespaces/default/daemonsets";

Json taint(const std::string& key, const std::string& value, const std::string& effect) {
  return {{"key", key}, {"value", value}, {"effect", effect}};
}

// Seven nodes covering every placement rule.
void load_placement_nodes(Cluster& cluster) {
  using fakekube_sim_test::make_node;
  Json nodes = Json::array();
  nodes.push_back(make_node("plain"));
  nodes.push_back(make_node("gpu", {{"gpu", "true"}, {"rank", "5"}}));
  nodes.push_back(make_node("cpu", {{"gpu", "false"}, {"rank", "1"}}));
  Json tainted = make_node("tainted", {{"gpu", "true"}, {"rank", "10"}});
  tainted["spec"]["taints"] = Json::array({taint("dedicated", "ml", "NoSchedule")});
  nodes.push_back(tainted);
  Json evicting = make_node("evicting", {{"rank", "3"}});
  evicting["spec"]["taints"] = Json::array({taint("maint", "now", "NoExecute")});
  nodes.push_back(evicting);
  Json cordoned = make_node("cordoned", {{"gpu", "true"}});
  cordoned["spec"]["unschedulable"] = true;
  cordoned["spec"]["taints"] = Json::array({taint("node.kubernetes.io/unschedulable", "", "NoSchedule")});
  nodes.push_back(cordoned);
  Json prefer = make_node("prefer");
  prefer["spec"]["taints"] = Json::array({taint("soft", "yes", "PreferNoSchedule")});
  nodes.push_back(prefer);
  cluster.api.load(nodes);
}

Json affinity(const std::string& key, const std::string& op, std::vector<std::string> values = {}) {
  Json expression = {{"key", key}, {"operator", op}};
  if (!values.empty()) expression["values"] = values;
  return {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms", Json::array({{{"matchExpressions", Json::array({expression})}}})}}}}}};
}

std::vector<std::string> placed_nodes(Cluster& cluster, const std::string& name) {
  return fakekube_sim_test::bound_nodes(cluster.items("/api/v1/namespaces/default/pods", "app=" + name));
}

std::vector<std::string> placement_of(Json pod_spec) {
  Cluster cluster;
  load_placement_nodes(cluster);
  cluster.create(k_ds_collection, fakekube_sim_test::make_daemonset("default", "agent", std::move(pod_spec)));
  cluster.tick(2); // create, then bind and start
  return placed_nodes(cluster, "agent");
}

using Names = std::vector<std::string>;

} // namespace

TEST_CASE("fakekube::sim::run_daemonsets places pods by selector, affinity and taints") {
  SUBCASE("no selector: every node but the NoSchedule/NoExecute-tainted; cordoned and PreferNoSchedule nodes too") {
    CHECK(placement_of(Json::object()) == Names{"cordoned", "cpu", "gpu", "plain", "prefer"});
  }
  SUBCASE("nodeSelector") {
    CHECK(placement_of({{"nodeSelector", {{"gpu", "true"}}}}) == Names{"cordoned", "gpu"});
  }
  SUBCASE("required node affinity: In") {
    CHECK(placement_of({{"affinity", affinity("gpu", "In", {"true"})}}) == Names{"cordoned", "gpu"});
  }
  SUBCASE("required node affinity: NotIn also matches nodes without the label") {
    CHECK(placement_of({{"affinity", affinity("gpu", "NotIn", {"true"})}}) == Names{"cpu", "plain", "prefer"});
  }
  SUBCASE("required node affinity: Exists") {
    CHECK(placement_of({{"affinity", affinity("gpu", "Exists")}}) == Names{"cordoned", "cpu", "gpu"});
  }
  SUBCASE("required node affinity: DoesNotExist") {
    CHECK(placement_of({{"affinity", affinity("gpu", "DoesNotExist")}}) == Names{"plain", "prefer"});
  }
  SUBCASE("required node affinity: Gt and Lt compare integers") {
    CHECK(placement_of({{"affinity", affinity("rank", "Gt", {"4"})}}) == Names{"gpu"});
    CHECK(placement_of({{"affinity", affinity("rank", "Lt", {"4"})}}) == Names{"cpu"});
  }
  SUBCASE("Exists with an empty key tolerates every taint") {
    CHECK(placement_of({{"tolerations", Json::array({{{"operator", "Exists"}}})}}) ==
          Names{"cordoned", "cpu", "evicting", "gpu", "plain", "prefer", "tainted"});
  }
  SUBCASE("Equal needs the value; the effect must match when given") {
    CHECK(placement_of({{"tolerations", Json::array({{{"key", "dedicated"}, {"operator", "Equal"},
                                                      {"value", "ml"}, {"effect", "NoSchedule"}}})}}) ==
          Names{"cordoned", "cpu", "gpu", "plain", "prefer", "tainted"});
    CHECK(placement_of({{"tolerations", Json::array({{{"key", "dedicated"}, {"operator", "Equal"},
                                                      {"value", "other"}}})}}) ==
          Names{"cordoned", "cpu", "gpu", "plain", "prefer"});
    CHECK(placement_of({{"tolerations", Json::array({{{"key", "maint"}, {"operator", "Exists"},
                                                      {"effect", "NoExecute"}}})}}) ==
          Names{"cordoned", "cpu", "evicting", "gpu", "plain", "prefer"});
    CHECK(placement_of({{"tolerations", Json::array({{{"key", "maint"}, {"operator", "Exists"},
                                                      {"effect", "NoSchedule"}}})}}) ==
          Names{"cordoned", "cpu", "gpu", "plain", "prefer"});
  }
  SUBCASE("selector and affinity together") {
    CHECK(placement_of({{"nodeSelector", {{"gpu", "true"}}}, {"affinity", affinity("rank", "Exists")},
                        {"tolerations", Json::array({{{"operator", "Exists"}}})}}) ==
          Names{"gpu", "tainted"});
  }
}

TEST_CASE("fakekube::sim::run_daemonsets follows nodes, labels and taints") {
  Cluster cluster;
  load_placement_nodes(cluster);
  cluster.create(k_ds_collection,
                 fakekube_sim_test::make_daemonset("default", "agent", {{"nodeSelector", {{"gpu", "true"}}}}));
  cluster.tick(2);
  REQUIRE(placed_nodes(cluster, "agent") == Names{"cordoned", "gpu"});

  SUBCASE("a node gaining the label gets a pod; losing it removes the pod") {
    cluster.patch("/api/v1/nodes/plain", {{"metadata", {{"labels", {{"gpu", "true"}}}}}});
    cluster.patch("/api/v1/nodes/gpu", {{"metadata", {{"labels", {{"gpu", nullptr}}}}}});
    cluster.tick(2);
    CHECK(placed_nodes(cluster, "agent") == Names{"cordoned", "plain"});
  }
  SUBCASE("a new node gets a pod; a deleted node's pod goes") {
    cluster.create("/api/v1/nodes", fakekube_sim_test::make_node("late", {{"gpu", "true"}}));
    cluster.remove("/api/v1/nodes/cordoned");
    cluster.tick(2);
    CHECK(placed_nodes(cluster, "agent") == Names{"gpu", "late"});
  }
  SUBCASE("a NoSchedule taint keeps the running pod (counted misscheduled), NoExecute evicts it") {
    cluster.patch("/api/v1/nodes/gpu", {{"spec", {{"taints", Json::array({taint("x", "y", "NoSchedule")})}}}});
    cluster.tick();
    CHECK(placed_nodes(cluster, "agent") == Names{"cordoned", "gpu"});
    Json status = cluster.get(k_ds_path + "agent")["status"];
    CHECK(status["desiredNumberScheduled"] == 1);
    CHECK(status["numberMisscheduled"] == 1);
    cluster.patch("/api/v1/nodes/gpu", {{"spec", {{"taints", Json::array({taint("x", "y", "NoExecute")})}}}});
    cluster.tick(2);
    CHECK(placed_nodes(cluster, "agent") == Names{"cordoned"});
    status = cluster.get(k_ds_path + "agent")["status"];
    CHECK(status["numberMisscheduled"] == 0);
    CHECK(status["currentNumberScheduled"] == 1);
  }
}

TEST_CASE("fakekube::sim::run_daemonsets status reads as kubectl rollout status expects") {
  Cluster cluster;
  load_placement_nodes(cluster);
  const Json created =
      cluster.create(k_ds_collection, fakekube_sim_test::make_daemonset("default", "agent", Json::object()));
  CHECK(fakekube_sim_test::daemonset_rollout(created) == "Waiting for daemon set spec update to be observed...");

  cluster.tick(); // pods created, not yet bound
  Json ds = cluster.get(k_ds_path + "agent");
  CHECK(ds["status"]["desiredNumberScheduled"] == 5);
  CHECK(ds["status"]["currentNumberScheduled"] == 0);
  CHECK(ds["status"]["numberReady"] == 0);
  CHECK(ds["status"]["numberMisscheduled"] == 0);
  CHECK(ds["status"]["observedGeneration"] == 1);
  CHECK_FALSE(ds["status"].contains("numberAvailable")); // omitempty, as the API serialises it
  CHECK(fakekube_sim_test::daemonset_rollout(ds) ==
        "Waiting for daemon set \"agent\" rollout to finish: 0 out of 5 new pods have been updated...");

  cluster.tick(2);
  ds = cluster.get(k_ds_path + "agent");
  const Json& status = ds["status"];
  CHECK(status["desiredNumberScheduled"] == 5);
  CHECK(status["currentNumberScheduled"] == 5);
  CHECK(status["numberReady"] == 5);
  CHECK(status["updatedNumberScheduled"] == 5);
  CHECK(status["numberAvailable"] == 5);
  CHECK_FALSE(status.contains("numberUnavailable"));
  CHECK(fakekube_sim_test::daemonset_rollout(ds) == "daemon set \"agent\" successfully rolled out");
  for (const Json& pod : cluster.items("/api/v1/namespaces/default/pods", "app=agent")) {
    CHECK(pod["status"]["phase"] == "Running");
    CHECK(pod["metadata"]["labels"]["pod-template-generation"] == "1");
    CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet");
  }
}

TEST_CASE("fakekube::sim::run_daemonsets rolls a template change out within maxUnavailable") {
  Cluster cluster;
  for (const char* name : {"a", "b", "c"}) cluster.api.load(fakekube_sim_test::make_node(name));
  cluster.create(k_ds_collection, fakekube_sim_test::make_daemonset("default", "agent", Json::object()));
  cluster.tick(3);
  REQUIRE(fakekube_sim_test::daemonset_rollout(cluster.get(k_ds_path + "agent")) ==
          "daemon set \"agent\" successfully rolled out");

  const Json patched = cluster.patch(
      k_ds_path + "agent",
      {{"spec", {{"template", {{"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "busybox:2"}}})}}}}}}}},
      "application/strategic-merge-patch+json");
  CHECK(patched["metadata"]["generation"] == 2);
  CHECK(patched["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2");

  bool saw_progress = false;
  int ticks = 0;
  for (; ticks < 20; ++ticks) {
    cluster.tick();
    const Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=agent");
    int available = 0;
    for (const Json& pod : pods)
      for (const Json& condition : pod["status"].value("conditions", Json::array()))
        if (condition["type"] == "Ready" && condition["status"] == "True") ++available;
    CHECK_MESSAGE(available >= 2, "tick " << ticks << ": more than maxUnavailable=1 down");
    const std::string rollout = fakekube_sim_test::daemonset_rollout(cluster.get(k_ds_path + "agent"));
    if (rollout.starts_with("Waiting for daemon set \"agent\" rollout to finish")) saw_progress = true;
    if (rollout == "daemon set \"agent\" successfully rolled out") break;
  }
  CHECK(saw_progress);
  CHECK(ticks < 20);
  const Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=agent");
  CHECK(fakekube_sim_test::bound_nodes(pods) == Names{"a", "b", "c"});
  for (const Json& pod : pods) {
    CHECK(pod["spec"]["containers"][0]["image"] == "busybox:2");
    CHECK(pod["metadata"]["labels"]["pod-template-generation"] == "2");
  }
  CHECK(cluster.get(k_ds_path + "agent")["status"]["observedGeneration"] == 2);
}

TEST_CASE("fakekube::sim::run_kubelet fails a DaemonSet's pods as the scenario says") {
  Cluster cluster;
  for (const char* name : {"a", "b"}) cluster.api.load(fakekube_sim_test::make_node(name));
  fakekube::SimulationSettings settings;
  std::string mode;
  SUBCASE("crashLoop") { mode = "crashLoop"; }
  SUBCASE("imagePullBackOff") { mode = "imagePullBackOff"; }
  settings.daemonset_failures.push_back({"default", "agent", mode});
  cluster.api.simulation().configure(settings);
  cluster.create(k_ds_collection, fakekube_sim_test::make_daemonset("default", "agent", Json::object()));
  cluster.tick(6);

  const Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=agent");
  REQUIRE(pods.size() == 2);
  for (const Json& pod : pods) {
    const Json& container = pod["status"]["containerStatuses"][0];
    CHECK(container["ready"] == false);
    if (mode == "crashLoop") {
      CHECK(pod["status"]["phase"] == "Running");
      CHECK(container["state"]["waiting"]["reason"] == "CrashLoopBackOff");
      CHECK(container["restartCount"].get<int>() >= 2);
      CHECK(container["lastState"]["terminated"]["exitCode"] == 1);
    } else {
      CHECK(pod["status"]["phase"] == "Pending");
      CHECK(container["state"]["waiting"]["reason"] == "ImagePullBackOff");
    }
  }
  Json ds = cluster.get(k_ds_path + "agent");
  CHECK(ds["status"]["numberReady"] == 0);
  CHECK(ds["status"]["numberUnavailable"] == 2);
  CHECK(fakekube_sim_test::daemonset_rollout(ds) ==
        "Waiting for daemon set \"agent\" rollout to finish: 0 of 2 updated pods are available...");

  // The failure gone (a fixed image), the same pods start and the rollout completes.
  cluster.api.simulation().configure(fakekube::SimulationSettings{});
  cluster.tick(2);
  ds = cluster.get(k_ds_path + "agent");
  CHECK(ds["status"]["numberReady"] == 2);
  CHECK(fakekube_sim_test::daemonset_rollout(ds) == "daemon set \"agent\" successfully rolled out");
}

TEST_CASE("fakekube::sim::run_daemonsets OnDelete replaces a pod only when it is deleted") {
  Cluster cluster;
  for (const char* name : {"a", "b"}) cluster.api.load(fakekube_sim_test::make_node(name));
  Json ds = fakekube_sim_test::make_daemonset("default", "agent", Json::object());
  ds["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  cluster.create(k_ds_collection, ds);
  cluster.tick(3);
  cluster.patch(k_ds_path + "agent",
                {{"spec", {{"template", {{"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "busybox:2"}}})}}}}}}}},
                "application/strategic-merge-patch+json");
  cluster.tick(3);
  Json pods = cluster.items("/api/v1/namespaces/default/pods", "app=agent");
  REQUIRE(pods.size() == 2);
  for (const Json& pod : pods) CHECK(pod["spec"]["containers"][0]["image"] == "busybox");
  CHECK(fakekube_sim_test::daemonset_rollout(cluster.get(k_ds_path + "agent")) ==
        "error: rollout status is only available for RollingUpdate strategy type");

  cluster.remove("/api/v1/namespaces/default/pods/" + pods[0]["metadata"]["name"].get<std::string>());
  cluster.tick(3);
  pods = cluster.items("/api/v1/namespaces/default/pods", "app=agent");
  std::vector<std::string> images;
  for (const Json& pod : pods) images.push_back(pod["spec"]["containers"][0]["image"]);
  std::sort(images.begin(), images.end());
  CHECK(images == Names{"busybox", "busybox:2"});
  const Json status = cluster.get(k_ds_path + "agent")["status"];
  CHECK(status["updatedNumberScheduled"] == 1);
  CHECK(status["numberReady"] == 2);
}
