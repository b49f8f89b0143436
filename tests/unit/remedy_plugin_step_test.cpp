// SPDX-License-Identifier: Apache-2.0
// The plugin step: re-point (Helm, static), ClusterPolicy patch (GPU Operator), replace and
// native install, uninstall; each re-planned after its edit plans nothing.
#include <doctest/doctest.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/remedy/plugin.hpp>
#include <gpuslice/remedy/verify.hpp>

#include "unit/builders.hpp"

using namespace gpuslice;
using gpuslice::testing::DaemonSetBuilder;
using gpuslice::testing::NodeBuilder;
using gpuslice::testing::PodBuilder;

namespace {

constexpr const char* k_step_image = "nvcr.io/nvidia/k8s-device-plugin:v0.17.1";

Snapshot plugin_incident() {
  return collect::load_snapshot_files(
      {std::string(GPUSLICE_SOURCE_DIR) + "/tests/fixtures/scenarios/eks-gpu-incident.yaml"});
}

remedy::ConfigApplyOptions four_replicas() {
  remedy::ConfigApplyOptions config;
  config.replicas = 4;
  return config;
}

std::vector<std::string> step_lines(const remedy::Step& step) {
  std::vector<std::string> out;
  for (const remedy::Change& change : step.changes)
    out.push_back(std::string(remedy::to_string(change.action)) + " " + change.target.display() +
                  (change.changed ? "" : " (unchanged)"));
  return out;
}

// The snapshot with DaemonSet ns/name replaced by `object` (what the executor would leave).
void replace_daemonset(Snapshot& s, const nlohmann::json& object) {
  for (model::DaemonSet& ds : s.daemonsets)
    if (ds.meta.ns == object["metadata"]["namespace"] && ds.meta.name == object["metadata"]["name"])
      ds = model::daemonset_from_json(object);
}

Snapshot static_plugin_cluster() {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(1).build());
  s.daemonsets.push_back(DaemonSetBuilder("kube-system", "nvidia-device-plugin-daemonset")
                             .container("nvidia-device-plugin-ctr", k_step_image)
                             .build());
  return s;
}

} // namespace

TEST_CASE("remedy::plan_plugin_install re-points a Helm plugin in place, once") {
  Snapshot s = plugin_incident();
  const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), {});
  CHECK(step_lines(step) == std::vector<std::string>{"patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin"});
  const remedy::Change& change = step.changes.front();
  REQUIRE(change.edit);
  CHECK(change.edit->kind == remedy::EditKind::mount_plugin_config);
  const nlohmann::json& pod = change.after["spec"]["template"];
  CHECK(pod["metadata"]["annotations"][std::string(remedy::k_config_checksum_annotation)] ==
        remedy::config_checksum(remedy::time_slicing_config_text(four_replicas())));
  bool has_config_file = false;
  for (const nlohmann::json& env : pod["spec"]["containers"][0]["env"])
    has_config_file = has_config_file || (env["name"] == "CONFIG_FILE" && env["value"] == "/etc/gpuslice/time-slicing/config.yaml");
  CHECK(has_config_file);
  bool mentions_helm = false;
  for (const std::string& note : step.notes) mentions_helm = mentions_helm || note.find("helm upgrade --install nvdp") != std::string::npos;
  CHECK(mentions_helm);

  // The edit again changes nothing, and the plugin now reads the config: nothing to plan.
  CHECK(remedy::apply_edit(*change.edit, change.after) == change.after);
  replace_daemonset(s, change.after);
  const std::vector<remedy::DevicePluginInstall> installs = remedy::detect_device_plugins(s);
  REQUIRE(installs.size() == 1);
  REQUIRE(installs[0].config);
  CHECK(installs[0].config->configmap == "time-slicing-config");
  CHECK_FALSE(remedy::plan_plugin_install(s, four_replicas(), {}).changes.front().changed);

  SUBCASE("other replicas: only the checksum changes, so the pods restart") {
    remedy::ConfigApplyOptions two = four_replicas();
    two.replicas = 2;
    const remedy::Step again = remedy::plan_plugin_install(s, two, {});
    REQUIRE(again.changes.size() == 1);
    CHECK(again.changes.front().changed);
  }
}

TEST_CASE("remedy::plan_plugin_install: static, replace, none, operator, host") {
  SUBCASE("eksctl's static DaemonSet is re-pointed at a ConfigMap in its own namespace") {
    const Snapshot s = static_plugin_cluster();
    CHECK(remedy::config_namespace(s, four_replicas()) == "kube-system");
    CHECK(step_lines(remedy::plan_plugin_install(s, four_replicas(), {})) ==
          std::vector<std::string>{"patch DaemonSet/kube-system/nvidia-device-plugin-daemonset"});
  }
  SUBCASE("--strategy replace deletes it first, then installs natively") {
    remedy::PluginStepOptions options;
    options.strategy = remedy::PluginStrategy::replace;
    CHECK(step_lines(remedy::plan_plugin_install(static_plugin_cluster(), four_replicas(), options)) ==
          std::vector<std::string>{"delete DaemonSet/kube-system/nvidia-device-plugin-daemonset",
                                   "create ServiceAccount/kube-system/nvdp-nvidia-device-plugin-service-account",
                                   "create ClusterRole/nvdp-nvidia-device-plugin-role",
                                   "create ClusterRoleBinding/nvdp-nvidia-device-plugin-role-binding",
                                   "create DaemonSet/kube-system/nvdp-nvidia-device-plugin"});
  }
  SUBCASE("a ConfigMap in another namespace: reconfigure is refused, auto replaces") {
    remedy::ConfigApplyOptions elsewhere = four_replicas();
    elsewhere.ns = "nvidia";
    remedy::PluginStepOptions options;
    options.strategy = remedy::PluginStrategy::reconfigure;
    CHECK_THROWS_AS(remedy::plan_plugin_install(static_plugin_cluster(), elsewhere, options), UsageError);
    const remedy::Step step = remedy::plan_plugin_install(static_plugin_cluster(), elsewhere, {});
    CHECK(step_lines(step).front() == "delete DaemonSet/kube-system/nvidia-device-plugin-daemonset");
    CHECK(step_lines(step).back() == "create DaemonSet/nvidia/nvdp-nvidia-device-plugin");
  }
  SUBCASE("no plugin: a native install; once it runs, nothing more") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(1).build());
    const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), {});
    REQUIRE(step.changes.size() == 4);
    s.daemonsets.push_back(model::daemonset_from_json(step.changes.back().object));
    const remedy::Step again = remedy::plan_plugin_install(s, four_replicas(), {});
    CHECK(step_lines(again) ==
          std::vector<std::string>{"patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin (unchanged)"});
  }
  SUBCASE("GPU Operator: the ClusterPolicy is patched, its DaemonSet never") {
    Snapshot s;
    s.daemonsets.push_back(DaemonSetBuilder("gpu-operator", "nvidia-device-plugin-daemonset")
                               .container("nvidia-device-plugin", k_step_image)
                               .owner("ClusterPolicy", "cluster-policy", true, "nvidia.com/v1")
                               .build());
    model::ClusterPolicy policy;
    policy.meta.name = "cluster-policy";
    policy.operator_namespace = "gpu-operator";
    s.cluster_policies.push_back(policy);
    const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), {});
    CHECK(step_lines(step) == std::vector<std::string>{"patch ClusterPolicy/cluster-policy"});
    CHECK(step.changes.front().after["spec"]["devicePlugin"]["config"] ==
          nlohmann::json{{"name", "time-slicing-config"}, {"default", "any"}});
    s.cluster_policies.front().config_name = "time-slicing-config";
    s.cluster_policies.front().config_default = "any";
    CHECK_FALSE(remedy::plan_plugin_install(s, four_replicas(), {}).changes.front().changed);
  }
  SUBCASE("Bottlerocket: nothing installed beside the host plugin, settings as a note") {
    Snapshot s;
    s.nodes.push_back(NodeBuilder("br").instance_type("g5.xlarge").gpus(1).os_image("Bottlerocket OS 1.26.1 (aws-k8s-1.30-nvidia)").build());
    const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), {});
    CHECK(step.changes.empty());
    bool settings = false;
    for (const std::string& note : step.notes) settings = settings || note.find("replicas = 4") != std::string::npos;
    CHECK(settings);
  }
}

TEST_CASE("remedy::plan_plugin_uninstall removes the Helm release as helm uninstall does") {
  const remedy::Step step = remedy::plan_plugin_uninstall(plugin_incident());
  const std::vector<std::string> lines = step_lines(step);
  REQUIRE_FALSE(lines.empty());
  CHECK(std::find(lines.begin(), lines.end(), "delete DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin") != lines.end());
  CHECK(lines.back() == "delete Secret/nvidia-device-plugin/sh.helm.release.v1.nvdp.v1");
}

TEST_CASE("remedy::rollout_status") {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).build());
  DaemonSetBuilder ds("nvidia", "nvdp-nvidia-device-plugin");
  ds.container("nvidia-device-plugin-ctr", k_step_image).status(1, 0);
  s.daemonsets.push_back(ds.build());
  remedy::VerifyOptions options;
  options.replicas = 4;
  const remedy::RolloutStatus waiting = remedy::rollout_status(s, options);
  CHECK_FALSE(waiting.done());
  CHECK(waiting.plugin_daemonsets == 1);
  CHECK(waiting.daemonsets_rolled_out == 0);
  CHECK(waiting.line(4).find("plugin rollout 0/1") != std::string::npos);
}

TEST_CASE("remedy::helm_install_argv: the corrected chart and values, no shell") {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(1).build());
  remedy::PluginStepOptions options;
  CHECK(remedy::helm_install_argv(s, four_replicas(), options).empty()); // native: no helm
  options.helm_installer = true;
  const std::vector<std::string> argv = remedy::helm_install_argv(s, four_replicas(), options);
  CHECK(argv == std::vector<std::string>{"helm", "upgrade", "--install", "nvdp", "nvidia-device-plugin", "--repo",
                                         "https://nvidia.github.io/k8s-device-plugin", "--version", "0.20.0",
                                         "--namespace", "nvidia-device-plugin", "--set",
                                         "config.name=time-slicing-config", "--set", "config.default=any"});
  // The plan then creates nothing through the API and says what helm will do.
  const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), options);
  CHECK(step.changes.empty());
  REQUIRE_FALSE(step.notes.empty());
  CHECK(step.notes.front().find("helm upgrade --install nvdp nvidia-device-plugin") != std::string::npos);
}

TEST_CASE("remedy::helm_install_argv: helm runs only where the plan installs with it") {
  // The incident's Helm plugin is re-pointed in place (strategy auto): the plan shows no helm
  // run, so none may happen; replacing it ends in a helm install, which the plan shows.
  const Snapshot s = plugin_incident();
  remedy::PluginStepOptions options;
  options.helm_installer = true;
  CHECK(remedy::helm_install_argv(s, four_replicas(), options).empty());
  options.strategy = remedy::PluginStrategy::replace;
  const std::vector<std::string> argv = remedy::helm_install_argv(s, four_replicas(), options);
  REQUIRE(argv.size() > 4);
  CHECK(argv[4] == "nvidia-device-plugin");
  const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), options);
  CHECK(step.summary.find("helm install") != std::string::npos);
}

TEST_CASE("remedy::rollout_status judges the plugin by its pods on GPU nodes, not on CPU nodes") {
  // eksctl's static manifest: no node selector, so a pod on each CPU node crash-loops for good
  // and the DaemonSet's counters never reach desired (3 desired, 1 available).
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).build());
  s.nodes.push_back(NodeBuilder("cpu-a").instance_type("m5.xlarge").build());
  s.nodes.push_back(NodeBuilder("cpu-b").instance_type("m5.xlarge").build());
  DaemonSetBuilder ds("kube-system", "nvidia-device-plugin-daemonset");
  ds.container("nvidia-device-plugin-ctr", k_step_image).status(3, 1);
  s.daemonsets.push_back(ds.build());
  auto plugin_pod = [](const std::string& node, const std::string& generation) {
    PodBuilder pod("kube-system", "nvidia-device-plugin-daemonset-" + node);
    pod.owner("DaemonSet", "nvidia-device-plugin-daemonset").label("pod-template-generation", generation);
    pod.container("nvidia-device-plugin-ctr", k_step_image);
    return pod;
  };
  s.pods.push_back(plugin_pod("cpu-a", "1").node_name("cpu-a").waiting("CrashLoopBackOff", 7).build());
  s.pods.push_back(plugin_pod("cpu-b", "1").node_name("cpu-b").waiting("CrashLoopBackOff", 7).build());
  remedy::VerifyOptions options;
  options.replicas = 4;

  SUBCASE("the GPU node's pod runs the current template: rolled out") {
    s.pods.push_back(plugin_pod("gpu-a", "1").running_on("gpu-a").build());
    CHECK(remedy::rollout_status(s, options).daemonsets_rolled_out == 1);
  }
  SUBCASE("the GPU node's pod is from an older template: still rolling out") {
    s.pods.push_back(plugin_pod("gpu-a", "0").running_on("gpu-a").build());
    CHECK(remedy::rollout_status(s, options).daemonsets_rolled_out == 0);
  }
  SUBCASE("the GPU node's pod is not Ready: still rolling out") {
    s.pods.push_back(plugin_pod("gpu-a", "1").node_name("gpu-a").waiting("CrashLoopBackOff", 1).build());
    CHECK(remedy::rollout_status(s, options).daemonsets_rolled_out == 0);
  }
}

namespace {

// The chart's GFD DaemonSet beside the incident's Helm plugin, reading no config yet.
nlohmann::json chart_gfd(const std::string& ns) {
  return DaemonSetBuilder(ns, "nvdp-nvidia-device-plugin-gpu-feature-discovery")
      .container("gpu-feature-discovery-ctr", k_step_image)
      .command({"gpu-feature-discovery"})
      .json();
}

bool reads_mounted_config(const nlohmann::json& container) {
  bool env = false;
  bool mount = false;
  for (const nlohmann::json& e : container.value("env", nlohmann::json::array()))
    env = env || (e["name"] == "CONFIG_FILE" && e["value"] == "/etc/gpuslice/time-slicing/config.yaml");
  for (const nlohmann::json& m : container.value("volumeMounts", nlohmann::json::array()))
    mount = mount || m["name"] == std::string(remedy::k_mounted_config_volume);
  return env && mount;
}

} // namespace

TEST_CASE("remedy::plan_plugin_install re-points GFD with the plugin, once, so its labels follow") {
  Snapshot s = plugin_incident();
  s.daemonsets.push_back(model::daemonset_from_json(chart_gfd("nvidia-device-plugin")));
  const remedy::Step step = remedy::plan_plugin_install(s, four_replicas(), {});
  CHECK(step_lines(step) ==
        std::vector<std::string>{"patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin",
                                 "patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin-gpu-feature-discovery"});
  const remedy::Change& gfd = step.changes.back();
  CHECK(reads_mounted_config(gfd.after["spec"]["template"]["spec"]["containers"][0]));
  CHECK(gfd.after["spec"]["template"]["metadata"]["annotations"][std::string(remedy::k_config_checksum_annotation)] ==
        step.changes.front().after["spec"]["template"]["metadata"]["annotations"][std::string(remedy::k_config_checksum_annotation)]);
  CHECK(std::any_of(step.notes.begin(), step.notes.end(), [](const std::string& n) {
    return n.find("GFD DaemonSet nvidia-device-plugin/nvdp-nvidia-device-plugin-gpu-feature-discovery reads the same "
                  "ConfigMap time-slicing-config key any") != std::string::npos;
  }));
  // After both edits the next plan changes nothing (a second apply writes no journal).
  for (const remedy::Change& change : step.changes) replace_daemonset(s, change.after);
  const remedy::Step again = remedy::plan_plugin_install(s, four_replicas(), {});
  CHECK(step_lines(again) ==
        std::vector<std::string>{"patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin (unchanged)",
                                 "patch DaemonSet/nvidia-device-plugin/nvdp-nvidia-device-plugin-gpu-feature-discovery "
                                 "(unchanged)"});
  SUBCASE("a GFD in another namespace cannot mount the ConfigMap: named, not patched") {
    Snapshot other = plugin_incident();
    other.daemonsets.push_back(model::daemonset_from_json(chart_gfd("gfd")));
    const remedy::Step planned = remedy::plan_plugin_install(other, four_replicas(), {});
    CHECK(planned.changes.size() == 1);
    CHECK(std::any_of(planned.notes.begin(), planned.notes.end(), [](const std::string& n) {
      return n.find("GFD DaemonSet gfd/nvdp-nvidia-device-plugin-gpu-feature-discovery cannot mount the ConfigMap in "
                    "nvidia-device-plugin") != std::string::npos;
    }));
  }
}

TEST_CASE("remedy::mount_plugin_config mounts the config into the plugin and a GFD container of one pod") {
  const nlohmann::json combined = DaemonSetBuilder("nvidia", "nvdp")
                                      .container("nvidia-device-plugin-ctr", k_step_image)
                                      .container("gpu-feature-discovery", "nvcr.io/nvidia/gpu-feature-discovery:v0.8.2")
                                      .container("gpu-feature-discovery-sidecar", k_step_image)
                                      .json();
  const nlohmann::json out = remedy::mount_plugin_config(combined, {{"configmap", "ts"}, {"key", "any"}, {"checksum", "c"}});
  const nlohmann::json& containers = out["spec"]["template"]["spec"]["containers"];
  CHECK(reads_mounted_config(containers[0]));
  CHECK(reads_mounted_config(containers[1]));
  CHECK_FALSE(reads_mounted_config(containers[2])); // the config-manager sidecar reads the ConfigMap itself
  CHECK(remedy::mount_plugin_config(out, {{"configmap", "ts"}, {"key", "any"}, {"checksum", "c"}}) == out);
}

TEST_CASE("remedy::rollout_status waits for GFD's labels where GFD runs") {
  Snapshot s;
  s.nodes.push_back(NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4", 1, 1).build());
  s.daemonsets.push_back(model::daemonset_from_json(chart_gfd("nvidia")));
  remedy::VerifyOptions options;
  options.replicas = 4;
  const remedy::RolloutStatus stale = remedy::rollout_status(s, options);
  CHECK(stale.gfd_nodes == 1);
  CHECK(stale.gfd_labelled == 0);
  CHECK(stale.line(4).find("GFD labels × 4: 0/1") != std::string::npos);
  CHECK(std::any_of(stale.waiting_for.begin(), stale.waiting_for.end(),
                    [](const std::string& w) { return w.starts_with("gfd-labels node/gpu-a"); }));
  s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4-SHARED", 1, 4).build();
  const remedy::RolloutStatus labelled = remedy::rollout_status(s, options);
  CHECK(labelled.gfd_labelled == 1);
  CHECK(std::none_of(labelled.waiting_for.begin(), labelled.waiting_for.end(),
                     [](const std::string& w) { return w.starts_with("gfd-labels"); }));
  // No GFD running: its stale labels are not waited for, and the line does not mention them.
  s.daemonsets.clear();
  s.nodes[0] = NodeBuilder("gpu-a").instance_type("g4dn.xlarge").gpus(4).gfd("Tesla-T4", 1, 1).build();
  const remedy::RolloutStatus without = remedy::rollout_status(s, options);
  CHECK(without.gfd_nodes == 0);
  CHECK(without.line(4).find("GFD") == std::string::npos);
}
