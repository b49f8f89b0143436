// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/remedy/plugin.hpp>

#include "unit/builders.hpp"

using gpuslice::Snapshot;
using gpuslice::remedy::detect_device_plugins;
using gpuslice::remedy::DevicePluginInstall;
using gpuslice::remedy::ObjectKey;
using gpuslice::remedy::PluginInstallKind;
using namespace gpuslice::testing;

namespace {

constexpr const char* k_detect_image = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1";

gpuslice::model::HelmRelease nvdp_release(long long revision) {
  gpuslice::model::HelmRelease r;
  r.name = "nvdp";
  r.ns = "nvidia";
  r.revision = revision;
  r.secret_name = "sh.helm.release.v1.nvdp.v" + std::to_string(revision);
  r.status = revision == 2 ? "deployed" : "superseded";
  r.chart_name = "nvidia-device-plugin";
  r.chart_version = "0.17.1";
  r.manifest = {{"ServiceAccount", "", "nvdp-nvidia-device-plugin-service-account"},
                {"ClusterRole", "", "nvdp-nvidia-device-plugin-role"},
                {"DaemonSet", "nvidia", "nvdp-nvidia-device-plugin"}};
  return r;
}

DaemonSetBuilder helm_daemonset() {
  DaemonSetBuilder ds("nvidia", "nvdp-nvidia-device-plugin");
  ds.label("app.kubernetes.io/managed-by", "Helm")
      .annotation("meta.helm.sh/release-name", "nvdp")
      .annotation("meta.helm.sh/release-namespace", "nvidia")
      .container("nvidia-device-plugin-ctr", k_detect_image);
  return ds;
}

} // namespace

TEST_CASE("remedy::detect_device_plugins") {
  Snapshot s;
  SUBCASE("nothing installed") {
    s.nodes.push_back(NodeBuilder("gpu-1").instance_type("g4dn.xlarge").build());
    CHECK(detect_device_plugins(s).empty());
  }
  SUBCASE("a Helm release: the latest revision and its manifest, cluster-scoped kinds without namespace") {
    s.daemonsets.push_back(helm_daemonset().build());
    s.helm_releases = {nvdp_release(1), nvdp_release(2)};
    const std::vector<DevicePluginInstall> found = detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == PluginInstallKind::helm);
    REQUIRE(found[0].release);
    CHECK(found[0].release->revision == 2);
    CHECK(found[0].daemonset == "nvdp-nvidia-device-plugin");
    REQUIRE(found[0].objects.size() == 3);
    CHECK(found[0].objects[0] == ObjectKey{"v1", "ServiceAccount", "nvidia", "nvdp-nvidia-device-plugin-service-account"});
    CHECK(found[0].objects[1] == ObjectKey{"rbac.authorization.k8s.io/v1", "ClusterRole", "", "nvdp-nvidia-device-plugin-role"});
    CHECK_FALSE(found[0].config);
  }
  SUBCASE("Helm metadata without a readable release Secret is still Helm") {
    s.daemonsets.push_back(helm_daemonset().build());
    const std::vector<DevicePluginInstall> found = detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == PluginInstallKind::helm);
    CHECK(found[0].release->name == "nvdp");
    CHECK(found[0].objects == std::vector<ObjectKey>{{"apps/v1", "DaemonSet", "nvidia", "nvdp-nvidia-device-plugin"}});
  }
  SUBCASE("eksctl's static DaemonSet, and the config it reads") {
    DaemonSetBuilder ds("kube-system", "nvidia-device-plugin-daemonset");
    ds.container("nvidia-device-plugin-ctr", k_detect_image)
        .env("CONFIG_FILE", "/config/config.yaml")
        .config_map_volume("available-configs", "ts-config", "/available-configs")
        .init_container("nvidia-device-plugin-init", k_detect_image)
        .env("DEFAULT_CONFIG", "any");
    s.daemonsets.push_back(ds.build());
    const std::vector<DevicePluginInstall> found = detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == PluginInstallKind::static_daemonset);
    REQUIRE(found[0].config);
    CHECK(*found[0].config == gpuslice::remedy::PluginConfigRef{"kube-system", "ts-config", "any"});
  }
  SUBCASE("the GPU Operator's DaemonSet (same name), config from the ClusterPolicy") {
    s.daemonsets.push_back(DaemonSetBuilder("gpu-operator", "nvidia-device-plugin-daemonset")
                               .container("nvidia-device-plugin", k_detect_image)
                               .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                               .build());
    gpuslice::model::ClusterPolicy policy;
    policy.meta.name = "cluster-policy";
    policy.config_name = "time-slicing-config";
    policy.config_default = "any";
    s.cluster_policies.push_back(policy);
    const std::vector<DevicePluginInstall> found = detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == PluginInstallKind::gpu_operator);
    CHECK(found[0].cluster_policy == "cluster-policy");
    REQUIRE(found[0].config);
    CHECK(found[0].config->configmap == "time-slicing-config");
    CHECK(found[0].config->ns == "gpu-operator");
  }
  SUBCASE("Bottlerocket GPU nodes run it on the host; CPU Bottlerocket nodes do not count") {
    s.nodes.push_back(NodeBuilder("br-gpu").instance_type("g5.xlarge").gpus(1).os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30-nvidia)").build());
    s.nodes.push_back(NodeBuilder("br-cpu").instance_type("m5.large").os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30)").build());
    const std::vector<DevicePluginInstall> found = detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == PluginInstallKind::host);
    CHECK(found[0].host_nodes == std::vector<std::string>{"br-gpu"});
  }
  SUBCASE("GFD and MPS DaemonSets of the chart are not plugins") {
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-mps-control-daemon")
                               .container("mps-control-daemon-ctr", k_detect_image).build());
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                               .container("gpu-feature-discovery-ctr", k_detect_image).build());
    CHECK(detect_device_plugins(s).empty());
  }
}
