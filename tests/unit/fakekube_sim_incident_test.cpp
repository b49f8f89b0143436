// SPDX-License-Identifier: Apache-2.0
// The runbook incident stepped in-process (eks-gpu-incident-sim.yaml, loaded as fakekube's
// Server loads it): the scheduler's and the autoscaler's messages, then the runbook's fix by
// API calls like kubectl's (a time-slicing ConfigMap, a JSON patch of the plugin DaemonSet),
// until every GPU pod runs and both rollouts succeed; a taint keeps new pods out.
#include <doctest/doctest.h>

#include "fakekube_sim_support.hpp"

namespace {

using fakekube_sim_test::Cluster;
using fakekube_sim_test::Json;

const std::string k_plugin_path = "/apis/apps/v1/namespaces/nvidia-device-plugin/daemonsets/nvdp-nvidia-device-plugin";

Json embeddings_pod(Cluster& cluster) {
  const Json pods = cluster.items("/api/v1/namespaces/ml/pods", "app.kubernetes.io/name=embeddings-worker");
  REQUIRE(pods.size() == 1);
  return pods[0];
}

std::vector<Json> events_about(Cluster& cluster, const std::string& name, const std::string& reason) {
  std::vector<Json> out;
  for (const Json& event : cluster.items("/api/v1/namespaces/ml/events"))
    if (event["involvedObject"]["name"] == name && event["reason"] == reason) out.push_back(event);
  return out;
}

std::vector<std::string> gpu_allocatable(Cluster& cluster) {
  std::vector<std::string> out;
  for (const Json& node : cluster.items("/api/v1/nodes", "k8s.amazonaws.com/accelerator"))
    out.push_back(node["status"]["allocatable"].value("nvidia.com/gpu", std::string()));
  return out;
}

std::vector<std::string> not_running(Cluster& cluster) {
  std::vector<std::string> out;
  for (const Json& pod : cluster.items("/api/v1/pods"))
    if (pod["status"].value("phase", "") != "Running") out.push_back(pod["metadata"]["name"]);
  return out;
}

void apply_runbook_fix(Cluster& cluster) {
  cluster.create("/api/v1/namespaces/nvidia-device-plugin/configmaps",
                 {{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", {{"name", "time-slicing-config"}, {"namespace", "nvidia-device-plugin"}}},
                  {"data", {{"any", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                                    "      - name: nvidia.com/gpu\n        replicas: 4\n"}}}});
  cluster.patch(k_plugin_path,
                Json::array({{{"op", "add"}, {"path", "/spec/template/spec/volumes/-"},
                              {"value", {{"name", "time-slicing"}, {"configMap", {{"name", "time-slicing-config"}}}}}},
                             {{"op", "add"}, {"path", "/spec/template/spec/containers/0/volumeMounts/-"},
                              {"value", {{"name", "time-slicing"}, {"mountPath", "/etc/nvidia/time-slicing"}}}},
                             {{"op", "add"}, {"path", "/spec/template/spec/containers/0/env/-"},
                              {"value", {{"name", "CONFIG_FILE"}, {"value", "/etc/nvidia/time-slicing/any"}}}}}),
                "application/json-patch+json");
}

} // namespace

TEST_CASE("fakekube::Simulation on the runbook incident: messages, the fix, rollouts, a taint") {
  Cluster cluster("eks-gpu-incident-sim.yaml");
  REQUIRE(cluster.items("/api/v1/nodes").size() == 9);
  cluster.tick();

  const Json pending = embeddings_pod(cluster);
  const std::string name = pending["metadata"]["name"];
  CHECK(pending["status"]["phase"] == "Pending");
  CHECK(fakekube_sim_test::scheduled_field(pending, "status") == "False");
  CHECK(fakekube_sim_test::scheduled_field(pending, "reason") == "Unschedulable");
  CHECK(fakekube_sim_test::scheduled_field(pending, "message") ==
        "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's node "
        "affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims found for "
        "incoming pod, 6 Preemption is not helpful for scheduling.");
  const std::vector<Json> failed = events_about(cluster, name, "FailedScheduling");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]["type"] == "Warning");
  CHECK(failed[0]["reportingComponent"] == "default-scheduler");
  const std::vector<Json> ca = events_about(cluster, name, "NotTriggerScaleUp");
  REQUIRE(ca.size() == 1);
  CHECK(ca[0]["message"] == "pod didn't trigger scale-up: 3 node(s) didn't match Pod's node affinity/selector, "
                            "6 max node group size reached");
  CHECK(ca[0]["source"]["component"] == "cluster-autoscaler");
  CHECK(gpu_allocatable(cluster) == std::vector<std::string>{"1", "1", "1"});
  const std::string status =
      cluster.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status")["data"]["status"];
  CHECK(status.find("- name: eks-gpu-t4-a-") != std::string::npos);

  // Nothing changes by itself: ten more ticks, the same verdicts, no new nodes.
  cluster.tick(10);
  CHECK(not_running(cluster).size() == 4);
  CHECK(cluster.items("/api/v1/nodes").size() == 9);
  CHECK(events_about(cluster, name, "FailedScheduling").size() == 1); // one series, count bumped
  CHECK(events_about(cluster, name, "FailedScheduling")[0]["series"]["count"] == 2);

  apply_runbook_fix(cluster);
  // Step as `kubectl rollout status` waits: until the DaemonSet and both Deployments report done.
  auto rolled_out = [&] {
    if (fakekube_sim_test::daemonset_rollout(cluster.get(k_plugin_path)) !=
        "daemon set \"nvdp-nvidia-device-plugin\" successfully rolled out")
      return false;
    for (const char* deployment : {"gpu-inference", "embeddings-worker"})
      if (fakekube_sim_test::deployment_rollout(cluster.get(std::string("/apis/apps/v1/namespaces/ml/deployments/") +
                                                            deployment)) !=
          "deployment \"" + std::string(deployment) + "\" successfully rolled out")
        return false;
    return true;
  };
  int ticks = 0;
  for (; ticks < 30 && !rolled_out(); ++ticks) cluster.tick();
  CHECK(ticks < 30);
  CHECK(gpu_allocatable(cluster) == std::vector<std::string>{"4", "4", "4"});
  CHECK(not_running(cluster).empty());
  CHECK(events_about(cluster, name, "FailedScheduling").size() == 1);
  for (const Json& node : cluster.items("/api/v1/nodes", "k8s.amazonaws.com/accelerator"))
    CHECK(node["status"]["capacity"]["nvidia.com/gpu"] == "4");

  // A taint keeps a new non-tolerating pod out, with the taint named.
  const Json gpu_nodes = cluster.items("/api/v1/nodes", "k8s.amazonaws.com/accelerator");
  const std::string node = gpu_nodes[0]["metadata"]["name"];
  cluster.patch("/api/v1/nodes/" + node,
                {{"spec", {{"taints", Json::array({{{"key", "dedicated"}, {"value", "training"}, {"effect", "NoSchedule"}}})}}}});
  Json probe = fakekube_sim_test::make_pod("default", "taint-probe");
  probe["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", node}};
  cluster.create("/api/v1/namespaces/default/pods", probe);
  cluster.tick();
  const Json stuck = cluster.get("/api/v1/namespaces/default/pods/taint-probe");
  CHECK(stuck["status"]["phase"] == "Pending");
  CHECK(fakekube_sim_test::scheduled_field(stuck, "message") ==
        "0/9 nodes are available: 1 node(s) had untolerated taint {dedicated: training}, 8 node(s) didn't match "
        "Pod's node affinity/selector. preemption: 0/9 nodes are available: 9 Preemption is not helpful for "
        "scheduling.");
  CHECK(not_running(cluster) == std::vector<std::string>{"taint-probe"}); // the running pods stay
}

TEST_CASE("fakekube::Simulation keeps the healthy twin healthy (eks-gpu-timesliced.yaml, Helm config-manager)") {
  Cluster cluster("eks-gpu-timesliced.yaml");
  const Json before = cluster.items("/api/v1/nodes", "k8s.amazonaws.com/accelerator");
  REQUIRE(before.size() == 3);
  cluster.tick(5);
  CHECK(gpu_allocatable(cluster) == std::vector<std::string>{"4", "4", "4"});
  CHECK(not_running(cluster).empty());
  const Json after = cluster.items("/api/v1/nodes", "k8s.amazonaws.com/accelerator");
  for (std::size_t i = 0; i < after.size(); ++i)
    for (const char* label : {"nvidia.com/gpu.product", "nvidia.com/gpu.count", "nvidia.com/gpu.replicas",
                              "nvidia.com/gpu.sharing-strategy", "nvidia.com/gpu.memory", "nvidia.com/gpu.family"})
      CHECK_MESSAGE(after[i]["metadata"]["labels"][label] == before[i]["metadata"]["labels"][label], label);
  for (const Json& event : cluster.items("/api/v1/events"))
    CHECK(event["reason"] != "FailedScheduling");
}

TEST_CASE("fakekube::Simulation: without the device plugin the autoscaler counts GPU nodes resourceUnready") {
  Cluster cluster("eks-gpu-incident-sim.yaml");
  auto cluster_counts = [&] {
    const std::string status =
        cluster.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status")["data"]["status"];
    const std::size_t start = status.find("      registered:\n");
    REQUIRE(start != std::string::npos);
    return status.substr(start, status.find("      longUnregistered:", start) - start);
  };
  cluster.tick();
  CHECK(cluster_counts() == "      registered:\n        total: 9\n        ready: 9\n        notStarted: 0\n"
                            "        unready:\n          total: 0\n          resourceUnready: 0\n");
  cluster.remove(k_plugin_path);
  cluster.tick(10); // the scenario rewrites the status every 10 ticks
  CHECK(gpu_allocatable(cluster) == std::vector<std::string>{"0", "0", "0"});
  CHECK(cluster_counts() == "      registered:\n        total: 9\n        ready: 6\n        notStarted: 0\n"
                            "        unready:\n          total: 3\n          resourceUnready: 3\n");
  const std::string status =
      cluster.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status")["data"]["status"];
  const std::size_t group = status.find("- name: eks-gpu-t4-a-");
  REQUIRE(group != std::string::npos);
  CHECK(status.find("          resourceUnready: 1\n", group) < status.find("- name: ", group + 1));
}
