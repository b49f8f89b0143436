// SPDX-License-Identifier: Apache-2.0
// The cluster-autoscaler stand-in (sim/autoscaler.cpp, sim/autoscaler_status.cpp): per
// unschedulable pod, NotTriggerScaleUp with reasons counted per node group, or
// TriggeredScaleUp and a node of the group joining after provisionTicks; the
// cluster-autoscaler-status ConfigMap kept current.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

fakekube::NodeGroup node_group(const std::string& name, int size, int max_size) {
  fakekube::NodeGroup group;
  group.name = name;
  group.min_size = 0;
  group.size = size;
  group.max_size = max_size;
  group.instance_type = "g4dn.xlarge";
  group.labels = {{"pool", name}};
  return group;
}

fakekube::SimulationSettings autoscaling(std::vector<fakekube::NodeGroup> groups) {
  fakekube::SimulationSettings settings;
  settings.node_groups = std::move(groups);
  settings.autoscaler_status_every_ticks = 1;
  settings.autoscaler_event_every_ticks = 1;
  settings.node_provision_ticks = 3;
  return settings;
}

// Messages of the cluster-autoscaler's events with `reason` about pod default/`pod`.
std::vector<std::string> ca_messages(Cluster& cluster, const std::string& reason, const std::string& pod) {
  std::vector<std::string> out;
  for (const Json& event : cluster.items("/api/v1/namespaces/default/events"))
    if (event["reason"] == reason && event["involvedObject"]["name"] == pod &&
        event["source"].value("component", "") == "cluster-autoscaler")
      out.push_back(event["message"]);
  return out;
}

Json gpu_pod(const std::string& name, const std::string& pool) {
  Json pod = fakekube_sim_test::make_pod("default", name, {{"nvidia.com/gpu", "1"}});
  pod["spec"]["containers"][0]["resources"]["limits"] = {{"nvidia.com/gpu", "1"}};
  pod["spec"]["nodeSelector"] = {{"pool", pool}};
  return pod;
}

std::string status_text(Cluster& cluster) {
  return cluster.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status")["data"]["status"];
}

// The plugin that makes a joined g4dn node advertise its GPU.
Json static_plugin() {
  return fakekube_sim_test::make_daemonset(
      "kube-system", "nvidia-device-plugin-daemonset",
      {{"containers", Json::array({{{"name", "nvidia-device-plugin-ctr"},
                                    {"image", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}}})},
       {"tolerations", Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}});
}

} // namespace

TEST_CASE("fakekube::sim::run_autoscaler counts the reasons of every node group") {
  Cluster cluster;
  cluster.api.load(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "kube-system"}}}});
  fakekube::NodeGroup tainted = node_group("tainted", 0, 3);
  tainted.taints = Json::array({{{"key", "dedicated"}, {"value", "ml"}, {"effect", "NoSchedule"}}});
  tainted.labels["pool"] = "gpu";
  fakekube::NodeGroup small = node_group("small", 0, 3);
  small.labels["pool"] = "gpu";
  small.resources = {{"cpu", "1"}};
  cluster.api.simulation().configure(autoscaling({node_group("full-a", 1, 1), node_group("full-b", 2, 2),
                                                  node_group("other", 0, 5), tainted, small}));
  Json pod = gpu_pod("trainer", "gpu");
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2";
  cluster.create("/api/v1/namespaces/default/pods", pod);
  cluster.tick();

  CHECK(fakekube_sim_test::scheduled_field(cluster.get("/api/v1/namespaces/default/pods/trainer"), "reason") ==
        "Unschedulable");
  const std::vector<std::string> messages = ca_messages(cluster, "NotTriggerScaleUp", "trainer");
  REQUIRE(messages.size() == 1);
  CHECK(messages[0] == "pod didn't trigger scale-up: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
                       "affinity/selector, 1 node(s) had untolerated taint {dedicated: ml}, 2 max node group "
                       "size reached");
  for (const Json& event : cluster.items("/api/v1/namespaces/default/events"))
    if (event["reason"] == "NotTriggerScaleUp") {
      CHECK(event["type"] == "Normal");
      CHECK(event["involvedObject"]["kind"] == "Pod");
      CHECK(event["count"] == 1);
    }
  CHECK(ca_messages(cluster, "TriggeredScaleUp", "trainer").empty());
  CHECK(cluster.items("/api/v1/nodes").empty());
}

TEST_CASE("fakekube::sim::run_autoscaler scales a fitting group up and the node joins") {
  Cluster cluster;
  cluster.api.load(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "kube-system"}}}});
  cluster.api.simulation().configure(autoscaling({node_group("gpu", 0, 2), node_group("cpu", 0, 4)}));
  cluster.create("/apis/apps/v1/namespaces/kube-system/daemonsets", static_plugin());
  cluster.create("/api/v1/namespaces/default/pods", gpu_pod("trainer", "gpu"));
  cluster.tick();

  CHECK(ca_messages(cluster, "TriggeredScaleUp", "trainer") ==
        std::vector<std::string>{"pod triggered scale-up: [{gpu 0->1 (max: 2)}]"});
  CHECK(ca_messages(cluster, "NotTriggerScaleUp", "trainer").empty());
  const std::string in_progress = status_text(cluster);
  CHECK(in_progress.find("- name: gpu\n") != std::string::npos);
  CHECK(in_progress.find("    cloudProviderTarget: 1\n    minSize: 0\n    maxSize: 2\n") != std::string::npos);
  CHECK(in_progress.find("scaleUp:\n    status: InProgress") != std::string::npos);

  cluster.tick(2);
  CHECK(cluster.items("/api/v1/nodes").empty()); // provisioning takes 3 ticks
  cluster.tick();
  const Json nodes = cluster.items("/api/v1/nodes");
  REQUIRE(nodes.size() == 1);
  const std::string node = nodes[0]["metadata"]["name"];
  CHECK(nodes[0]["metadata"]["labels"]["pool"] == "gpu");
  CHECK(nodes[0]["metadata"]["labels"]["node.kubernetes.io/instance-type"] == "g4dn.xlarge");

  // The plugin starts there, the GPU is advertised, the pod is bound; no second scale-up meanwhile.
  cluster.tick(3);
  const Json pod = cluster.get("/api/v1/namespaces/default/pods/trainer");
  CHECK(pod["spec"]["nodeName"] == node);
  CHECK(pod["status"]["phase"] == "Running");
  CHECK(cluster.items("/api/v1/nodes").size() == 1);
  CHECK(ca_messages(cluster, "TriggeredScaleUp", "trainer").size() == 1);
  const std::string settled = status_text(cluster);
  CHECK(settled.find("autoscalerStatus: Running\n") != std::string::npos);
  CHECK(settled.find("scaleUp:\n    status: NoActivity") != std::string::npos);
  CHECK(settled.find("InProgress") == std::string::npos);
  CHECK(settled.find("clusterWide:\n  health:\n    status: Healthy\n    nodeCounts:\n      registered:\n"
                     "        total: 1\n        ready: 1\n") != std::string::npos);
}

TEST_CASE("fakekube::sim::run_autoscaler without adding nodes: decides, but the cluster stays") {
  Cluster cluster;
  fakekube::SimulationSettings settings = autoscaling({node_group("gpu", 0, 2)});
  settings.autoscaler_adds_nodes = false;
  cluster.api.simulation().configure(settings);
  cluster.create("/api/v1/namespaces/default/pods", gpu_pod("trainer", "gpu"));
  cluster.tick(6);
  CHECK(ca_messages(cluster, "TriggeredScaleUp", "trainer").size() == 1);
  CHECK(cluster.items("/api/v1/nodes").empty());
}
