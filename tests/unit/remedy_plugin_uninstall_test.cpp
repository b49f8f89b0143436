// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/remedy/plugin.hpp>

#include "unit/builders.hpp"

using gpuslice::Snapshot;
using gpuslice::remedy::DevicePluginInstall;
using gpuslice::remedy::ObjectKey;
using gpuslice::remedy::PluginConfigTarget;
using gpuslice::remedy::PluginInstallKind;
using gpuslice::remedy::uninstall_plan;
using gpuslice::remedy::UninstallPlan;
using namespace gpuslice::testing;

namespace {

gpuslice::model::HelmRelease release_revision(long long revision) {
  gpuslice::model::HelmRelease r;
  r.name = "nvdp";
  r.ns = "nvidia";
  r.revision = revision;
  r.secret_name = "sh.helm.release.v1.nvdp.v" + std::to_string(revision);
  // Install order, as Helm stores it.
  r.manifest = {{"ServiceAccount", "", "nvdp-sa"},     {"ConfigMap", "", "nvdp-configs"},
                {"ClusterRole", "", "nvdp-role"},      {"ClusterRoleBinding", "", "nvdp-role-binding"},
                {"DaemonSet", "", "nvdp-nvidia-device-plugin"}, {"NodeFeatureRule", "", "nvdp-rule"}};
  return r;
}

std::vector<std::string> uninstall_kinds(const std::vector<ObjectKey>& keys) {
  std::vector<std::string> out;
  for (const ObjectKey& k : keys) out.push_back(k.kind + "/" + k.name);
  return out;
}

} // namespace

TEST_CASE("remedy::uninstall_plan") {
  Snapshot s;
  PluginConfigTarget target;
  target.configmap = "time-slicing-config";
  target.default_config = "any";
  target.replicas = 4;

  SUBCASE("Helm: UninstallOrder, unknown kinds last, then every revision's Secret") {
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                               .label("app.kubernetes.io/managed-by", "Helm")
                               .annotation("meta.helm.sh/release-name", "nvdp")
                               .annotation("meta.helm.sh/release-namespace", "nvidia")
                               .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
                               .build());
    s.helm_releases = {release_revision(2), release_revision(1)};
    const std::vector<DevicePluginInstall> found = gpuslice::remedy::detect_device_plugins(s);
    REQUIRE(found.size() == 1);
    const UninstallPlan plan = uninstall_plan(found[0], s, target);
    CHECK(uninstall_kinds(plan.deletions) ==
          std::vector<std::string>{"DaemonSet/nvdp-nvidia-device-plugin", "ClusterRoleBinding/nvdp-role-binding",
                                   "ClusterRole/nvdp-role", "ConfigMap/nvdp-configs", "ServiceAccount/nvdp-sa",
                                   "NodeFeatureRule/nvdp-rule", "Secret/sh.helm.release.v1.nvdp.v1",
                                   "Secret/sh.helm.release.v1.nvdp.v2"});
    CHECK(plan.deletions[0].ns == "nvidia");
    CHECK(plan.deletions[1].ns.empty());
    CHECK(plan.kept.empty());
  }
  SUBCASE("Helm: helm.sh/resource-policy keep is honoured (any case, trimmed)") {
    s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin")
                               .annotation("meta.helm.sh/release-name", "nvdp")
                               .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
                               .build());
    s.configmaps.push_back(ConfigMapBuilder("nvidia", "nvdp-configs").annotation("helm.sh/resource-policy", " Keep ").build());
    s.helm_releases = {release_revision(1)};
    const UninstallPlan plan = uninstall_plan(gpuslice::remedy::detect_device_plugins(s).at(0), s, target);
    CHECK(uninstall_kinds(plan.kept) == std::vector<std::string>{"ConfigMap/nvdp-configs"});
    for (const ObjectKey& k : plan.deletions) CHECK(k.name != "nvdp-configs");
    CHECK(plan.deletions.back().name == "sh.helm.release.v1.nvdp.v1");
  }
  SUBCASE("static DaemonSet: just the DaemonSet") {
    DevicePluginInstall install;
    install.kind = PluginInstallKind::static_daemonset;
    install.ns = "kube-system";
    install.daemonset = "nvidia-device-plugin-daemonset";
    const UninstallPlan plan = uninstall_plan(install, s, target);
    CHECK(plan.deletions == std::vector<ObjectKey>{{"apps/v1", "DaemonSet", "kube-system", "nvidia-device-plugin-daemonset"}});
    CHECK_FALSE(plan.patch_target);
  }
  SUBCASE("GPU Operator: nothing deleted, a merge patch of the ClusterPolicy") {
    DevicePluginInstall install;
    install.kind = PluginInstallKind::gpu_operator;
    install.ns = "gpu-operator";
    install.daemonset = "nvidia-device-plugin-daemonset";
    install.cluster_policy = "cluster-policy";
    const UninstallPlan plan = uninstall_plan(install, s, target);
    CHECK(plan.deletions.empty());
    REQUIRE(plan.patch_target);
    CHECK(*plan.patch_target == ObjectKey{"nvidia.com/v1", "ClusterPolicy", "", "cluster-policy"});
    CHECK(plan.patch == nlohmann::json::parse(
                            R"({"spec":{"devicePlugin":{"config":{"name":"time-slicing-config","default":"any"}}}})"));
  }
  SUBCASE("host: nothing deleted, Bottlerocket settings with the replicas") {
    DevicePluginInstall install;
    install.kind = PluginInstallKind::host;
    install.host_nodes = {"br-1"};
    const UninstallPlan plan = uninstall_plan(install, s, target);
    CHECK(plan.deletions.empty());
    CHECK(plan.host_settings.find("[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplicas = 4\n") !=
          std::string::npos);
    CHECK(plan.host_settings.find("device-sharing-strategy = \"time-slicing\"") != std::string::npos);
  }
}

TEST_CASE("remedy::helm_uninstall_rank") {
  CHECK(gpuslice::remedy::helm_uninstall_rank("Service") < gpuslice::remedy::helm_uninstall_rank("DaemonSet"));
  CHECK(gpuslice::remedy::helm_uninstall_rank("DaemonSet") < gpuslice::remedy::helm_uninstall_rank("ClusterRole"));
  CHECK(gpuslice::remedy::helm_uninstall_rank("ServiceAccount") < gpuslice::remedy::helm_uninstall_rank("Namespace"));
  CHECK(gpuslice::remedy::helm_uninstall_rank("Namespace") < gpuslice::remedy::helm_uninstall_rank("NodeFeatureRule"));
}
