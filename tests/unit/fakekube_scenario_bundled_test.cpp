// SPDX-License-Identifier: Apache-2.0
// The bundled EKS scenarios hold the facts the diagnosis work builds on.
#include <doctest/doctest.h>

#include <map>

#include <fakekube/server.hpp>

namespace {

const std::string k_dir = GPUSLICE_SOURCE_DIR "/tests/fixtures/scenarios/";

std::vector<nlohmann::json> of_kind(const fakekube::Scenario& s, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& o : s.objects)
    if (o["kind"] == kind) out.push_back(o);
  return out;
}

int gpus(const nlohmann::json& node) {
  return std::stoi(node["status"]["allocatable"].value("nvidia.com/gpu", "0"));
}

} // namespace

TEST_CASE("fakekube::load_scenario (bundled EKS scenarios)") {
  SUBCASE("eks-gpu-incident: every GPU taken, GPU pods pending with real messages") {
    fakekube::Scenario s = fakekube::load_scenario(k_dir + "eks-gpu-incident.yaml");
    std::vector<nlohmann::json> nodes = of_kind(s, "Node");
    REQUIRE(nodes.size() == 9);
    int gpu_nodes = 0;
    for (const nlohmann::json& n : nodes) {
      const nlohmann::json& labels = n["metadata"]["labels"];
      if (gpus(n) > 0) {
        ++gpu_nodes;
        CHECK(labels["node.kubernetes.io/instance-type"] == "g4dn.xlarge");
        CHECK(gpus(n) == 1);
      } else {
        CHECK(labels["node.kubernetes.io/instance-type"] == "m5.xlarge");
      }
    }
    CHECK(gpu_nodes == 3);

    std::map<std::string, int> gpu_pods_per_node;
    int pending = 0;
    for (const nlohmann::json& p : of_kind(s, "Pod")) {
      bool wants_gpu = false;
      for (const nlohmann::json& c : p["spec"]["containers"])
        wants_gpu = wants_gpu || c["resources"].value("limits", nlohmann::json::object()).contains("nvidia.com/gpu");
      if (!wants_gpu) continue;
      if (p["status"]["phase"] == "Pending") {
        ++pending;
        CHECK(p["status"]["conditions"][0]["type"] == "PodScheduled");
        CHECK(p["status"]["conditions"][0]["status"] == "False");
        CHECK(p["status"]["conditions"][0]["reason"] == "Unschedulable");
      } else {
        ++gpu_pods_per_node[p["spec"]["nodeName"].get<std::string>()];
      }
    }
    CHECK(pending >= 3);
    CHECK(gpu_pods_per_node.size() == 3);
    for (const auto& [node, count] : gpu_pods_per_node) CHECK(count == 1);

    int failed = 0;
    int not_triggered = 0;
    for (const nlohmann::json& e : of_kind(s, "Event")) {
      if (e["reason"] == "FailedScheduling") {
        ++failed;
        CHECK(e["message"] ==
              "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's "
              "node affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims "
              "found for incoming pod, 6 Preemption is not helpful for scheduling.");
      }
      if (e["reason"] == "NotTriggerScaleUp") {
        ++not_triggered;
        CHECK(e["message"] == "pod didn't trigger scale-up: 3 node(s) didn't match Pod's node "
                              "affinity/selector, 6 max node group size reached");
        CHECK(e["source"]["component"] == "cluster-autoscaler");
      }
    }
    CHECK(failed == pending);
    CHECK(not_triggered == pending);

    bool plugin = false;
    for (const nlohmann::json& d : of_kind(s, "DaemonSet"))
      if (d["metadata"]["name"] == "nvdp-nvidia-device-plugin") {
        plugin = true;
        CHECK(d["metadata"]["namespace"] == "nvidia-device-plugin");
        CHECK(d["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm");
        CHECK(d["metadata"]["annotations"]["meta.helm.sh/release-name"] == "nvdp");
        CHECK(d["spec"]["template"]["spec"].value("initContainers", nlohmann::json::array()).empty());
      }
    CHECK(plugin);
    std::vector<nlohmann::json> secrets = of_kind(s, "Secret");
    REQUIRE(secrets.size() == 1);
    CHECK(secrets[0]["type"] == "helm.sh/release.v1");
    CHECK(secrets[0]["metadata"]["name"] == "sh.helm.release.v1.nvdp.v1");
  }
  SUBCASE("eks-gpu-timesliced: nodes advertise 4 shares, nothing pending") {
    fakekube::Scenario s = fakekube::load_scenario(k_dir + "eks-gpu-timesliced.yaml");
    int shared_nodes = 0;
    for (const nlohmann::json& n : of_kind(s, "Node"))
      if (gpus(n) > 0) {
        ++shared_nodes;
        CHECK(gpus(n) == 4);
        CHECK(n["metadata"]["labels"]["nvidia.com/gpu.product"] == "Tesla-T4-SHARED");
        CHECK(n["metadata"]["labels"]["nvidia.com/gpu.replicas"] == "4");
      }
    CHECK(shared_nodes == 3);
    for (const nlohmann::json& p : of_kind(s, "Pod")) CHECK(p["status"]["phase"] == "Running");
    bool config = false;
    for (const nlohmann::json& c : of_kind(s, "ConfigMap"))
      if (c["metadata"]["name"] == "time-slicing-config") {
        config = true;
        CHECK(c["data"]["any"].get<std::string>().find("replicas: 4") != std::string::npos);
      }
    CHECK(config);
  }
}
