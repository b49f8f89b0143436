// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plugin.hpp>

#include "unit/builders.hpp"

using gpuslice::remedy::install_manifests;
using gpuslice::remedy::PluginInstallOptions;
using nlohmann::json;
using namespace gpuslice::testing;

namespace {

PluginInstallOptions ts_install_options() {
  PluginInstallOptions o;
  o.configmap = "time-slicing-config";
  o.default_config = "any";
  o.config_text = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n";
  return o;
}

const json* manifest_container_named(const json& list, const std::string& name) {
  for (const json& c : list)
    if (c.value("name", "") == name) return &c;
  return nullptr;
}

std::string manifest_env_of(const json& container, const std::string& name) {
  for (const json& e : container.value("env", json::array()))
    if (e.value("name", "") == name) return e.value("value", "<from>");
  return "<unset>";
}

} // namespace

TEST_CASE("remedy::install_manifests") {
  SUBCASE("with a ConfigMap: the chart's objects in apply order and the config-manager pair") {
    const std::vector<json> objects = install_manifests(ts_install_options());
    REQUIRE(objects.size() == 4);
    CHECK(objects[0]["kind"] == "ServiceAccount");
    CHECK(objects[0]["metadata"]["name"] == "nvdp-nvidia-device-plugin-service-account");
    CHECK(objects[1]["kind"] == "ClusterRole");
    CHECK(objects[1]["rules"][0]["resources"] == json{"nodes"});
    CHECK(objects[2]["kind"] == "ClusterRoleBinding");
    CHECK_FALSE(objects[1]["metadata"].contains("namespace"));
    const json& ds = objects[3];
    CHECK(ds["metadata"]["name"] == "nvdp-nvidia-device-plugin");
    CHECK(ds["metadata"]["namespace"] == "nvidia-device-plugin");
    const json& spec = ds["spec"]["template"]["spec"];
    CHECK(spec["shareProcessNamespace"] == true);
    CHECK(spec["priorityClassName"] == "system-node-critical");
    CHECK(spec["serviceAccountName"] == "nvdp-nvidia-device-plugin-service-account");
    const json& terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    REQUIRE(terms.size() == 3);
    CHECK(terms[2]["matchExpressions"][0]["key"] == "nvidia.com/gpu.present");
    CHECK(spec["tolerations"][1] == json{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
    const json* init = manifest_container_named(spec["initContainers"], "nvidia-device-plugin-init");
    const json* sidecar = manifest_container_named(spec["containers"], "nvidia-device-plugin-sidecar");
    const json* main = manifest_container_named(spec["containers"], "nvidia-device-plugin-ctr");
    REQUIRE(init);
    REQUIRE(sidecar);
    REQUIRE(main);
    CHECK(manifest_env_of(*init, "ONESHOT") == "true");
    CHECK(manifest_env_of(*init, "DEFAULT_CONFIG") == "any");
    CHECK(manifest_env_of(*sidecar, "SEND_SIGNAL") == "true");
    CHECK(manifest_env_of(*sidecar, "PROCESS_TO_SIGNAL") == "nvidia-device-plugin");
    CHECK(manifest_env_of(*main, "CONFIG_FILE") == "/config/config.yaml");
    CHECK((*main)["image"] == "nvcr.io/nvidia/k8s-device-plugin:v0.20.0");
    CHECK(spec["volumes"].back() == json{{"name", "config"}, {"emptyDir", json::object()}});
    // What the tool reads back: recognised as a plugin that reads this ConfigMap.
    const gpuslice::model::DaemonSet view = gpuslice::model::daemonset_from_json(ds);
    CHECK(gpuslice::model::recognise_gpu_addon(view) == gpuslice::model::GpuAddon::device_plugin);
    CHECK(gpuslice::model::mounts_plugin_config(
        view, ConfigMapBuilder("nvidia-device-plugin", "time-slicing-config").build()));
  }
  SUBCASE("the checksum annotation follows the config content") {
    PluginInstallOptions other = ts_install_options();
    other.config_text += " ";
    const json a = install_manifests(ts_install_options())[3]["spec"]["template"]["metadata"]["annotations"];
    const json b = install_manifests(other)[3]["spec"]["template"]["metadata"]["annotations"];
    CHECK(a.at("gpuslice.dev/config-checksum") != b.at("gpuslice.dev/config-checksum"));
    CHECK(a == install_manifests(ts_install_options())[3]["spec"]["template"]["metadata"]["annotations"]);
  }
  SUBCASE("without a ConfigMap: no config-manager, the chart's restricted securityContext") {
    PluginInstallOptions plain;
    plain.version = "v0.17.4";
    const json ds = install_manifests(plain)[3];
    const json& spec = ds["spec"]["template"]["spec"];
    CHECK_FALSE(spec.contains("initContainers"));
    CHECK(spec["containers"].size() == 1);
    CHECK(spec["containers"][0]["securityContext"]["capabilities"]["drop"] == json{"ALL"});
    CHECK(spec["containers"][0]["image"] == "nvcr.io/nvidia/k8s-device-plugin:v0.17.4");
  }
  SUBCASE("gfd.enabled adds the GFD DaemonSet and its RBAC") {
    PluginInstallOptions o = ts_install_options();
    o.gfd_enabled = true;
    const std::vector<json> objects = install_manifests(o);
    REQUIRE(objects.size() == 5);
    CHECK(objects[4]["metadata"]["name"] == "nvdp-nvidia-device-plugin-gpu-feature-discovery");
    CHECK(objects[1]["rules"].size() == 3);
    CHECK(gpuslice::model::recognise_gpu_addon(gpuslice::model::daemonset_from_json(objects[4])) ==
          gpuslice::model::GpuAddon::feature_discovery);
  }
  SUBCASE("refused: the default namespace, a default without ConfigMap") {
    PluginInstallOptions o = ts_install_options();
    o.ns = "default";
    CHECK_THROWS_AS(install_manifests(o), gpuslice::UsageError);
    PluginInstallOptions p;
    p.default_config = "any";
    CHECK_THROWS_AS(install_manifests(p), gpuslice::UsageError);
  }
}

TEST_CASE("remedy::chart_fullname") {
  CHECK(gpuslice::remedy::chart_fullname("nvdp") == "nvdp-nvidia-device-plugin");
  CHECK(gpuslice::remedy::chart_fullname("my-nvidia-device-plugin") == "my-nvidia-device-plugin");
  CHECK(gpuslice::remedy::chart_fullname(std::string(70, 'a')).size() == 63);
}

TEST_CASE("remedy::reconfigure_patch") {
  const gpuslice::model::DaemonSet eksctl = DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                                                .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.19.0")
                                                .build();
  const json patch = gpuslice::remedy::reconfigure_patch(eksctl, ts_install_options());
  const json& spec = patch["spec"]["template"]["spec"];
  CHECK(spec["shareProcessNamespace"] == true);
  CHECK(spec["containers"][0]["name"] == "nvidia-device-plugin-ctr");
  CHECK(manifest_env_of(spec["containers"][0], "CONFIG_FILE") == "/config/config.yaml");
  CHECK(spec["containers"][1]["name"] == "nvidia-device-plugin-sidecar");
  // The config-manager comes from the image the DaemonSet already runs.
  CHECK(spec["initContainers"][0]["image"] == "nvcr.io/nvidia/k8s-device-plugin:v0.19.0");
  CHECK(spec["volumes"][0]["configMap"]["name"] == "time-slicing-config");
  CHECK(patch["spec"]["template"]["metadata"]["annotations"].contains("gpuslice.dev/config-checksum"));
  PluginInstallOptions none;
  CHECK_THROWS_AS(gpuslice::remedy::reconfigure_patch(eksctl, none), gpuslice::UsageError);
}

TEST_CASE("remedy::helm_upgrade_command") {
  gpuslice::model::HelmRelease release;
  release.name = "nvdp";
  release.ns = "nvidia";
  release.chart_version = "0.17.1";
  const std::string command = gpuslice::remedy::helm_upgrade_command(release, ts_install_options());
  CHECK(command.find("helm upgrade --install nvdp nvidia-device-plugin/nvidia-device-plugin --namespace nvidia "
                     "--version 0.17.1 --reuse-values --set config.name=time-slicing-config,config.default=any") !=
        std::string::npos);
  CHECK(command.find("config.map") == std::string::npos);
}

TEST_CASE("remedy::reconfigure_daemonset") {
  const json live = DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                        .container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin:v0.19.0")
                        .env("FAIL_ON_INIT_ERROR", "false")
                        .env("CONFIG_FILE", "/old/path")
                        .json();
  const json out = gpuslice::remedy::reconfigure_daemonset(live, ts_install_options());
  const json& spec = out["spec"]["template"]["spec"];
  const json* main = manifest_container_named(spec["containers"], "nvidia-device-plugin-ctr");
  REQUIRE(main);
  CHECK((*main)["image"] == "nvcr.io/nvidia/k8s-device-plugin:v0.19.0"); // kept
  CHECK(manifest_env_of(*main, "FAIL_ON_INIT_ERROR") == "false");                  // kept
  CHECK(manifest_env_of(*main, "CONFIG_FILE") == "/config/config.yaml");          // replaced, not doubled
  CHECK((*main)["env"].size() == 2);
  CHECK(manifest_container_named(spec["containers"], "nvidia-device-plugin-sidecar"));
  CHECK(spec["initContainers"].size() == 1);
  CHECK(out["metadata"] == live["metadata"]);
  // Applying it twice changes nothing more: the step is idempotent.
  CHECK(gpuslice::remedy::reconfigure_daemonset(out, ts_install_options()) == out);
}
