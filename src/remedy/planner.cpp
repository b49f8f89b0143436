// SPDX-License-Identifier: Apache-2.0
// `apply`: every step, in the order that never leaves a GPU pod or node worse off mid-way.
#include <gpuslice/remedy/plan.hpp>

#include <fmt/format.h>

#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

// The device-plugin steps are not planned by apply yet: say exactly what the user must do.
std::string plugin_wiring_note(const Snapshot& snapshot, const ConfigApplyOptions& config) {
  const std::string ns = config_namespace(snapshot, config);
  for (const DevicePluginInstall& install : detect_device_plugins(snapshot)) {
    if (install.kind == PluginInstallKind::helm && install.release) {
      PluginInstallOptions options;
      options.ns = install.ns;
      options.release = install.release->name;
      options.configmap = config.name;
      options.default_config = config.key;
      return "apply does not change the device plugin yet; point the Helm release at the config: " +
             helm_upgrade_command(*install.release, options);
    }
    if (install.kind == PluginInstallKind::gpu_operator) {
      return fmt::format("apply does not change the device plugin yet; point the GPU Operator at the config: "
                         "kubectl patch clusterpolicies.nvidia.com/{} --type merge -p "
                         "'{{\"spec\":{{\"devicePlugin\":{{\"config\":{{\"name\":\"{}\",\"default\":\"{}\"}}}}}}}}' "
                         "and restart its device-plugin DaemonSet",
                         install.cluster_policy, config.name, config.key);
    }
  }
  return fmt::format("apply does not change the device plugin yet: configure it with config.name={} and "
                     "config.default={} (ConfigMap in {}), then restart its pods",
                     config.name, config.key, ns);
}

} // namespace

Plan plan_apply(const Snapshot& snapshot, const ApplyOptions& options) {
  Plan plan;
  plan.steps.push_back(plan_config_apply(snapshot, options.config));
  plan.steps.back().notes.push_back(plugin_wiring_note(snapshot, options.config));
  // The chart's DaemonSet schedules only on labelled nodes: label before any plugin change.
  plan.steps.push_back(plan_nodes_label(snapshot, options.nodes));
  // Tolerations before the taint, so no GPU pod is ever left unable to reschedule.
  if (options.tolerate_workloads) plan.steps.push_back(plan_workloads_tolerate(snapshot, options.workloads, options.taint));
  if (options.taint_nodes) plan.steps.push_back(plan_nodes_taint(snapshot, options.nodes, options.taint));
  return plan;
}

} // namespace gpuslice::remedy
