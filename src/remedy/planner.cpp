// SPDX-License-Identifier: Apache-2.0
// `apply`: every step, in the order that never leaves a GPU pod or node worse off mid-way.
#include <functional>
#include <optional>
#include <vector>

#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/side_by_side.hpp>

#include "autoscaler_tags_note.hpp"

namespace gpuslice::remedy {

std::optional<Plan> plan_platform_refusal(const Snapshot& snapshot, int replicas) {
  std::optional<ManagedPlatform> platform = managed_gpu_platform(snapshot, replicas);
  if (!platform) return std::nullopt;
  Plan refused;
  refused.platform = std::move(platform);
  return refused;
}

Plan plan_apply(const Snapshot& snapshot, const ApplyOptions& options) {
  // A plugin the platform owns is not changed at all: a ConfigMap it never reads, labels or
  // taints for a setup that never comes would be a half-change.
  if (options.configure_plugin) {
    if (std::optional<Plan> refused = plan_platform_refusal(snapshot, options.config.replicas)) return *refused;
  }
  std::vector<std::function<Step()>> steps;
  // The config exists before the plugin is pointed at it (a missing ConfigMap blocks its pods).
  steps.emplace_back([&] { return plan_config_apply(snapshot, options.config); });
  // The chart's DaemonSet schedules only on labelled nodes: label before any plugin change.
  steps.emplace_back([&] { return plan_nodes_label(snapshot, options.nodes); });
  if (options.configure_plugin) steps.emplace_back([&] { return plan_plugin_install(snapshot, options.config, options.plugin); });
  // Tolerations before the taint, so no GPU pod is ever left unable to reschedule.
  if (options.tolerate_workloads)
    steps.emplace_back([&] { return plan_workloads_tolerate(snapshot, options.workloads, options.taint); });
  if (options.taint_nodes) steps.emplace_back([&] { return plan_nodes_taint(snapshot, options.nodes, options.taint); });
  // Each step only reads the snapshot: they are planned side by side (at 5,000 nodes the node
  // and workload steps take 10-30 ms each) and kept in the order above.
  Plan plan;
  plan.steps.resize(steps.size());
  run_side_by_side(steps.size(), 4, [&](std::size_t i) { plan.steps[i] = steps[i](); });
  // New nodes of an autoscaled group at 0 are built from its tags: the config step says which.
  for (std::string& note : autoscaler_tag_notes(snapshot, options)) plan.steps.front().notes.push_back(std::move(note));
  return plan;
}

} // namespace gpuslice::remedy
