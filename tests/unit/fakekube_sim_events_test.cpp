// SPDX-License-Identifier: Apache-2.0
// Event rates (sim/events.cpp) and the scenario's `simulation:` settings (sim/settings.cpp):
// the scheduler's FailedScheduling series keeps its first note and bumps series.count every
// schedulerEveryTicks; the autoscaler's spam filter writes one event per (pod, reason) per
// autoscalerEveryTicks; kubernetesVersion picks the scheduler's wording.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

std::vector<Json> default_events(Cluster& cluster, const std::string& reason) {
  std::vector<Json> out;
  for (const Json& event : cluster.items("/api/v1/namespaces/default/events"))
    if (event["reason"] == reason) out.push_back(event);
  return out;
}

Json selective_pod() {
  Json pod = fakekube_sim_test::make_pod("default", "waiting", {{"cpu", "1"}});
  pod["spec"]["nodeSelector"] = {{"pool", "gpu"}};
  return pod;
}

} // namespace

TEST_CASE("fakekube::sim::scheduler_failed_event keeps one series per pod") {
  Cluster cluster;
  fakekube::SimulationSettings settings;
  settings.scheduler_event_every_ticks = 3;
  cluster.api.simulation().configure(settings);
  cluster.create("/api/v1/namespaces/default/pods", selective_pod());
  cluster.tick();
  std::vector<Json> events = default_events(cluster, "FailedScheduling");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["message"] == "no nodes available to schedule pods");
  CHECK_FALSE(events[0].contains("series"));

  // A node that does not match: the pod's condition says so at once, the event note does not.
  cluster.api.load(fakekube_sim_test::make_node("cpu"));
  cluster.tick(2);
  const std::string now =
      "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are "
      "available: 1 Preemption is not helpful for scheduling.";
  CHECK(fakekube_sim_test::scheduled_field(cluster.get("/api/v1/namespaces/default/pods/waiting"), "message") == now);
  events = default_events(cluster, "FailedScheduling");
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].contains("series")); // ticks 2 and 3: within the period
  cluster.tick();
  events = default_events(cluster, "FailedScheduling");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["series"]["count"] == 2);
  CHECK(events[0]["message"] == "no nodes available to schedule pods");
}

TEST_CASE("fakekube::sim::autoscaler_event writes one event per pod and reason per period") {
  Cluster cluster;
  fakekube::SimulationSettings settings;
  settings.autoscaler_event_every_ticks = 5;
  fakekube::NodeGroup group;
  group.name = "gpu";
  group.size = group.max_size = 1;
  settings.node_groups.push_back(group);
  cluster.api.simulation().configure(settings);
  cluster.create("/api/v1/namespaces/default/pods", selective_pod());
  cluster.tick(5);
  std::vector<Json> events = default_events(cluster, "NotTriggerScaleUp");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["message"] == "pod didn't trigger scale-up: 1 max node group size reached");
  CHECK(events[0]["count"] == 1);
  cluster.tick();
  events = default_events(cluster, "NotTriggerScaleUp");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["count"] == 2);
}

TEST_CASE("fakekube::parse_simulation_settings") {
  SUBCASE("a scenario's settings drive the wording: kubernetesVersion v1.23") {
    Cluster cluster;
    cluster.api.simulation().configure(fakekube::parse_simulation_settings(
        Json::parse(R"({"kubernetesVersion": "v1.23.17-eks-1", "controllers": {"autoscaler": false}})")));
    Json node = fakekube_sim_test::make_node("tainted", {{"pool", "gpu"}});
    node["spec"]["taints"] = Json::array({{{"key", "dedicated"}, {"value", "ml"}, {"effect", "NoSchedule"}}});
    cluster.api.load(node);
    cluster.create("/api/v1/namespaces/default/pods", selective_pod());
    cluster.tick();
    CHECK(fakekube_sim_test::scheduled_field(cluster.get("/api/v1/namespaces/default/pods/waiting"), "message") ==
          "0/1 nodes are available: 1 node(s) had taint {dedicated: ml}, that the pod didn't tolerate.");
  }
  SUBCASE("a switched-off controller does nothing") {
    Cluster cluster;
    cluster.api.simulation().configure(
        fakekube::parse_simulation_settings(Json::parse(R"({"controllers": {"scheduler": false}})")));
    cluster.api.load(fakekube_sim_test::make_node("n", {{"pool", "gpu"}}));
    cluster.create("/api/v1/namespaces/default/pods", selective_pod());
    cluster.tick(3);
    const Json pod = cluster.get("/api/v1/namespaces/default/pods/waiting");
    CHECK(pod["spec"].value("nodeName", "") == "");
    CHECK(fakekube_sim_test::scheduled_field(pod, "status") == "");
    cluster.api.simulation().set_enabled(fakekube::Controller::scheduler, true);
    cluster.tick();
    CHECK(cluster.get("/api/v1/namespaces/default/pods/waiting")["spec"]["nodeName"] == "n");
  }
  SUBCASE("bad settings name the key") {
    CHECK_THROWS_WITH(fakekube::parse_simulation_settings(Json::parse(R"({"controllers": {"kube-proxy": true}})")),
                      "simulation.controllers: unknown controller \"kube-proxy\"");
    CHECK_THROWS_WITH(fakekube::parse_simulation_settings(
                          Json::parse(R"({"daemonSets": [{"name": "x", "failure": "oom"}]})")),
                      "simulation.daemonSets[0].failure: must be crashLoop or imagePullBackOff");
    CHECK_THROWS_WITH(fakekube::parse_simulation_settings(
                          Json::parse(R"({"autoscaler": {"nodeGroups": [{"name": "g", "minSize": 3, "maxSize": 1}]}})")),
                      "simulation.autoscaler.nodeGroups[0]: needs 0 <= minSize <= maxSize");
  }
}

TEST_CASE("fakekube_test::Call splits a query left in the path") {
  // The trap that made in-process simulation tests see empty node and event lists: the query
  // stayed in the path, the API answered 404, and body["items"] of the Status was null.
  Cluster cluster("eks-gpu-incident-sim.yaml");
  cluster.tick();
  fakekube_test::Reply nodes =
      fakekube_test::Call(cluster.api, "GET", "/api/v1/nodes?labelSelector=k8s.amazonaws.com/accelerator").send();
  CHECK(nodes.status == 200);
  CHECK(nodes.body["items"].size() == 3);
  fakekube_test::Reply events =
      fakekube_test::Call(cluster.api, "GET", "/api/v1/namespaces/ml/events?fieldSelector=reason=NotTriggerScaleUp&limit=2")
          .send();
  CHECK(events.status == 200);
  CHECK(events.body["items"].size() == 2);
  CHECK(events.body["metadata"].contains("continue"));
}

TEST_CASE("fakekube::Simulation survives sparse objects") {
  Cluster cluster;
  cluster.api.load(Json::array(
      {{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "bare"}}}},
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "no-spec"}, {"namespace", "default"}}}},
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "no-containers"}, {"namespace", "default"}}},
        {"spec", Json::object()}},
       {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"metadata", {{"name", "empty"}, {"namespace", "default"}}},
        {"spec", {{"selector", {{"matchLabels", {{"a", "b"}}}}}, {"template", {{"metadata", {{"labels", {{"a", "b"}}}}}}}}}},
       {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "empty"}, {"namespace", "default"}}},
        {"spec", {{"selector", {{"matchLabels", {{"a", "c"}}}}}, {"template", {{"metadata", {{"labels", {{"a", "c"}}}}}}}}}}}));
  fakekube::SimulationSettings settings;
  settings.node_groups.push_back(fakekube::NodeGroup{"g", 0, 1, 0, "", {}, Json::array(), {}});
  cluster.api.simulation().configure(settings);
  cluster.tick(3);
  CHECK(cluster.api.simulation().ticks() == 3);
  CHECK(cluster.items("/api/v1/nodes").size() >= 1);

  // An object a controller cannot read: that controller skips the tick, the others go on.
  cluster.create("/apis/apps/v1/namespaces/default/deployments",
                 {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "odd"}}},
                  {"spec", {{"replicas", "three"}, {"selector", {{"matchLabels", {{"a", "d"}}}}},
                            {"template", {{"metadata", {{"labels", {{"a", "d"}}}}}}}}}});
  cluster.create("/api/v1/namespaces/default/pods", fakekube_sim_test::make_pod("default", "fine"));
  CHECK_NOTHROW(cluster.api.simulation().tick(2));
  CHECK(cluster.api.simulation().last_error().starts_with("deployments: "));
  CHECK(cluster.get("/api/v1/namespaces/default/pods/fine")["spec"].value("nodeName", "") != "");
}
