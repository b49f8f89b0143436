// SPDX-License-Identifier: Apache-2.0
// `apply`: every step, in the order that never leaves a GPU pod or node worse off mid-way.
#include <gpuslice/remedy/plan.hpp>

namespace gpuslice::remedy {

Plan plan_apply(const Snapshot& snapshot, const ApplyOptions& options) {
  Plan plan;
  // The config exists before the plugin is pointed at it (a missing ConfigMap blocks its pods).
  plan.steps.push_back(plan_config_apply(snapshot, options.config));
  // The chart's DaemonSet schedules only on labelled nodes: label before any plugin change.
  plan.steps.push_back(plan_nodes_label(snapshot, options.nodes));
  if (options.configure_plugin) plan.steps.push_back(plan_plugin_install(snapshot, options.config, options.plugin));
  // Tolerations before the taint, so no GPU pod is ever left unable to reschedule.
  if (options.tolerate_workloads) plan.steps.push_back(plan_workloads_tolerate(snapshot, options.workloads, options.taint));
  if (options.taint_nodes) plan.steps.push_back(plan_nodes_taint(snapshot, options.nodes, options.taint));
  return plan;
}

} // namespace gpuslice::remedy
