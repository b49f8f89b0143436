// SPDX-License-Identifier: Apache-2.0
// GS4xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <algorithm>

#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

namespace {

void remove_daemonset(gpuslice::Snapshot& s, const std::string& name) {
  std::erase_if(s.daemonsets, [&](const gpuslice::model::DaemonSet& ds) { return ds.meta.name == name; });
}

} // namespace

TEST_CASE("diagnose::find_device_plugin") {
  SUBCASE("GS400 device-plugin-missing") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin");
    s.nodes[0] = NodeBuilder("gpu-1").instance_type("g4dn.xlarge").build();
    s.nodes[1] = NodeBuilder("gpu-2").instance_type("g4dn.xlarge").build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS400");
    CHECK(f.objects.size() == 2);
    CHECK(f.evidence.front() == "node gpu-1 (g4dn.xlarge) has no GPU in allocatable");
    CHECK_FALSE(has(d, "GS503"));  // the cause is cluster-wide, not per node
    // Bottlerocket runs the plugin on the host: GPUs advertised, no DaemonSet, nothing missing.
    gpuslice::Snapshot twin = healthy();
    remove_daemonset(twin, "nvdp-nvidia-device-plugin");
    twin.nodes[0] = gpu_node("gpu-1", 2).os_image("Bottlerocket OS 1.20.0 (aws-k8s-1.29-nvidia)").build();
    twin.nodes[1] = gpu_node("gpu-2", 2).os_image("Bottlerocket OS 1.20.0 (aws-k8s-1.29-nvidia)").build();
    CHECK_FALSE(has(analyze(twin), "GS400"));
  }

  SUBCASE("GS401 device-plugin-not-on-all-gpu-nodes: the chart's affinity wants gpu.present") {
    gpuslice::Snapshot s = healthy();
    s.nodes.push_back(NodeBuilder("gpu-3").instance_type("g4dn.xlarge").taint("nvidia.com/gpu", "present", "NoSchedule").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS401");
    CHECK(f.summary == "the device plugin does not run on 1 of 3 GPU node(s)");
    CHECK(f.remedy.command == "kubectl label nodes gpu-3 nvidia.com/gpu.present=true");
    CHECK_FALSE(has(analyze(healthy()), "GS401"));
  }

  SUBCASE("GS401 with an untolerated taint patches the DaemonSet") {
    gpuslice::Snapshot s = healthy();
    s.nodes.push_back(gpu_node("gpu-3", 2).taint("dedicated", "ml", "NoSchedule").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS401");
    CHECK(f.evidence.front() == "node gpu-3: DaemonSet nvidia/nvdp-nvidia-device-plugin: taint dedicated=ml:NoSchedule is not tolerated");
    CHECK(f.remedy.command.starts_with("kubectl -n nvidia patch daemonset nvdp-nvidia-device-plugin --type json"));
    CHECK(f.remedy.command.find("tolerations/-") != std::string::npos);
  }

  SUBCASE("GS402 device-plugin-unhealthy") {
    gpuslice::Snapshot s = healthy();
    s.pods[0] = plugin_pod("gpu-1").waiting("CrashLoopBackOff", 7).build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS402");
    CHECK(f.evidence.front().find("CrashLoopBackOff") != std::string::npos);
    CHECK(f.evidence.front().find("after 7 restart(s)") != std::string::npos);
    CHECK(f.remedy.command == "kubectl -n nvidia logs nvdp-nvidia-device-plugin-gpu-1 --all-containers --previous");
    CHECK_FALSE(has(analyze(healthy()), "GS402"));
  }

  SUBCASE("GS403 time-slicing-config-invalid names the bad key") {
    gpuslice::Snapshot s = healthy();
    s.configmaps[0] = ConfigMapBuilder("nvidia", "nvdp-config")
                          .data("any", "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 1\n")
                          .build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS403");
    REQUIRE(f.evidence.size() == 1);
    CHECK(f.evidence[0].starts_with("sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2"));
    CHECK(f.evidence[0].ends_with("[fatal]"));
    CHECK_FALSE(has(analyze(healthy()), "GS403"));
  }

  SUBCASE("GS404 time-slicing-config-unused: mounted but no CONFIG_FILE") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin");
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                               .container("nvidia-device-plugin-ctr", k_plugin_image)
                               .config_map_volume("available-configs", "nvdp-config", "/available-configs")
                               .toleration("nvidia.com/gpu").status(2, 2).build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS404");
    CHECK(f.summary == "ConfigMap nvidia/nvdp-config holds a time-slicing config (2 replicas) that no device plugin uses");
    CHECK(f.remedy.command == "kubectl gpuslice apply --replicas 2");
    CHECK_FALSE(has(analyze(healthy()), "GS404"));
  }

  SUBCASE("GS405 device-plugin-operator-managed, and GS404 points at the ClusterPolicy") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin");
    s.daemonsets.push_back(DaemonSetBuilder("gpu-operator", "nvidia-device-plugin-daemonset")
                               .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                               .container("nvidia-device-plugin", k_plugin_image)
                               .label("app", "nvidia-device-plugin-daemonset")
                               .status(2, 2).build());
    s.cluster_policies.push_back(gpuslice::model::cluster_policy_from_json(
        {{"apiVersion", "nvidia.com/v1"}, {"kind", "ClusterPolicy"}, {"metadata", {{"name", "cluster-policy"}}},
         {"spec", {{"devicePlugin", {{"enabled", true}}}}}}));
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS405");
    CHECK(f.remedy.command.starts_with("kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge"));
    const Finding& unused = finding(d, "GS404");
    CHECK(unused.remedy.command.find(R"("name":"nvdp-config","default":"any")") != std::string::npos);
    CHECK_FALSE(has(analyze(healthy()), "GS405"));
  }

  SUBCASE("GS406 multiple-device-plugins: the static manifest is the one to delete") {
    gpuslice::Snapshot s = healthy();
    s.daemonsets.push_back(DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                               .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.19.0")
                               .toleration("nvidia.com/gpu").status(3, 3).build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS406");
    CHECK(f.remedy.command == "kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset");
    CHECK(f.evidence.size() == 2);
    CHECK_FALSE(has(analyze(healthy()), "GS406"));
  }

  SUBCASE("GS406 a DaemonSet plugin on a Bottlerocket node that has its own") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0] = gpu_node("gpu-1", 2).os_image("Bottlerocket OS 1.20.0 (aws-k8s-1.29-nvidia)").build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS406");
    CHECK(f.summary.starts_with("2 device plugins"));
    CHECK(f.evidence.front() == "node gpu-1: nvidia/nvdp-nvidia-device-plugin and the host's built-in plugin (Bottlerocket)");
    CHECK(f.remedy.command == "kubectl -n nvidia edit daemonset nvdp-nvidia-device-plugin");  // gpu-2 needs it
  }

  SUBCASE("GS407 gpu-feature-discovery-missing") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    for (auto& node : s.nodes) node.meta.labels.erase("nvidia.com/gpu.product");
    const Diagnosis d = analyze(s);
    CHECK(finding(d, "GS407").remedy.command ==
          "helm upgrade -i nvdp nvdp/nvidia-device-plugin -n nvidia-device-plugin --reuse-values --set gfd.enabled=true");
    // No GFD DaemonSet but the labels are there: not missing (GS408 says they are stale).
    gpuslice::Snapshot twin = healthy();
    remove_daemonset(twin, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    CHECK_FALSE(has(analyze(twin), "GS407"));
  }

  SUBCASE("GS408 gpu-feature-discovery-labels-stale: GFD labels, no GFD") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    s.nodes[1] = gpu_node("gpu-2", 2).label("nvidia.com/cuda.driver-version.major", "550")
                     .label("nvidia.com/gpu.deploy.device-plugin", "true")  // the operator's, kept
                     .build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS408");
    CHECK(f.severity == gpuslice::diagnose::Severity::warning);
    CHECK(f.summary == "2 GPU node(s) carry GFD labels but GFD is not running: the labels are stale");
    CHECK(f.objects.size() == 2);
    REQUIRE(f.evidence.size() == 3);
    CHECK(f.evidence[0] == "node gpu-1: nvidia.com/gpu.product=Tesla-T4-SHARED, nvidia.com/gpu.replicas=2, "
                           "nvidia.com/gpu.sharing-strategy=time-slicing (5 GFD label(s))");
    CHECK(f.evidence[1].ends_with("(6 GFD label(s))"));
    // Every GFD key on any of the nodes, sorted; gpu.present and gpu.deploy.* stay.
    CHECK(f.remedy.command ==
          "kubectl label nodes gpu-1 gpu-2 nvidia.com/cuda.driver-version.major- nvidia.com/gpu.count- "
          "nvidia.com/gpu.memory- nvidia.com/gpu.product- nvidia.com/gpu.replicas- nvidia.com/gpu.sharing-strategy-");
    CHECK(f.remedy.text.find("apply --gfd") != std::string::npos);
    CHECK_FALSE(has(d, "GS407"));  // labels are there: not "missing"
  }

  SUBCASE("GS408: on many nodes, a selector instead of the names") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    for (int i = 3; i <= 12; ++i) s.nodes.push_back(gpu_node("gpu-" + std::to_string(i), 2).build());
    s.nodes.back().meta.labels.erase("nvidia.com/gpu.count");
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS408");
    CHECK(f.objects.size() == 12);
    CHECK(f.evidence.size() == 9);  // 8 nodes and the no-GFD line
    // gpu.count is not on every node: the selector is the first key they all carry.
    CHECK(f.remedy.command.starts_with("kubectl label nodes -l nvidia.com/gpu.memory nvidia.com/gpu.count- "));
  }

  SUBCASE("GS408 twins: GFD running with labels; neither labels nor GFD") {
    CHECK_FALSE(has(analyze(healthy()), "GS408"));
    gpuslice::Snapshot bare = healthy();
    remove_daemonset(bare, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    for (auto& node : bare.nodes)
      for (const char* key : {"nvidia.com/gpu.product", "nvidia.com/gpu.count", "nvidia.com/gpu.replicas",
                              "nvidia.com/gpu.memory", "nvidia.com/gpu.sharing-strategy"})
        node.meta.labels.erase(key);
    const Diagnosis d = analyze(bare);
    CHECK_FALSE(has(d, "GS408"));
    CHECK(has(d, "GS407"));  // nothing stale, GFD simply missing
  }

  SUBCASE("GS408 twin: the chart's GFD container inside the plugin DaemonSet runs GFD") {
    gpuslice::Snapshot s = healthy();
    remove_daemonset(s, "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    remove_daemonset(s, "nvdp-nvidia-device-plugin");
    s.daemonsets.push_back(device_plugin(2).container("gpu-feature-discovery", k_plugin_image).build());
    const Diagnosis d = analyze(s);
    CHECK_FALSE(has(d, "GS408"));
    CHECK_FALSE(has(d, "GS407"));
  }
}
