// SPDX-License-Identifier: Apache-2.0
// What `apply --wait` still waits for, judged from a snapshot with the verify checks plus the
// plugin DaemonSets' rollout status (a Ready old pod is not the new config in effect).
#include <fmt/format.h>

#include <gpuslice/model/addons.hpp>
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/remedy/verify.hpp>

namespace gpuslice::remedy {

namespace {

// Every GPU node (plugin not on the host) has a Ready pod of `ds` from its current template.
// eksctl's static manifest has no node selector and its pods crash-loop on CPU nodes for good
// (no GPU to initialise), so the DaemonSet's own counters never reach desired there: judged by
// them alone, apply would wait out its timeout for pods that advertise nothing anyway.
bool gpu_node_pods_current(const Snapshot& snapshot, const model::DaemonSet& ds) {
  const std::string generation = std::to_string(ds.meta.generation);
  bool any = false;
  for (const model::Node& node : snapshot.nodes) {
    if (!model::is_gpu_node(node) || model::runs_host_device_plugin(node)) continue;
    bool current = false;
    for (const model::Pod& pod : snapshot.pods) {
      if (pod.spec.node_name != node.name() || !pod.meta.controlled_by("DaemonSet", ds.meta)) continue;
      current = current || (pod.meta.label("pod-template-generation") == generation && pod.is_ready());
    }
    if (!current) return false;
    any = true;
  }
  return any;
}

bool daemonset_rolled_out(const Snapshot& snapshot, const model::DaemonSet& ds) {
  const model::DaemonSetStatus& s = ds.status;
  if (s.observed_generation < ds.meta.generation) return false;
  const bool all_pods = s.desired_number_scheduled > 0 && s.updated_number_scheduled >= s.desired_number_scheduled &&
                        s.number_available >= s.desired_number_scheduled;
  return all_pods || gpu_node_pods_current(snapshot, ds);
}

} // namespace

std::string RolloutStatus::line(int replicas) const {
  const std::string gfd = gfd_nodes == 0 ? std::string()
                                         : fmt::format("GFD labels × {}: {}/{}, ", replicas, gfd_labelled, gfd_nodes);
  return fmt::format("plugin rollout {}/{}, GPU nodes advertising × {}: {}/{}, {}GPU pods Pending: {}",
                     daemonsets_rolled_out, plugin_daemonsets, replicas, nodes_advertising, gpu_nodes, gfd,
                     gpu_pods_pending);
}

RolloutStatus rollout_status(const Snapshot& snapshot, const VerifyOptions& options) {
  RolloutStatus status;
  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    if (model::recognise_gpu_addon(ds) != model::GpuAddon::device_plugin) continue;
    ++status.plugin_daemonsets;
    if (daemonset_rolled_out(snapshot, ds)) {
      ++status.daemonsets_rolled_out;
    } else if (ds.status.observed_generation < ds.meta.generation) {
      status.waiting_for.push_back(fmt::format("daemonset/{}/{}: its controller has not acted on generation {} yet",
                                               ds.meta.ns, ds.meta.name, ds.meta.generation));
    } else {
      status.waiting_for.push_back(fmt::format(
          "daemonset/{}/{} rolling out: {} of {} pod(s) updated, {} available", ds.meta.ns, ds.meta.name,
          ds.status.updated_number_scheduled, ds.status.desired_number_scheduled, ds.status.number_available));
    }
  }
  const VerifyReport report = verify(snapshot, options);
  for (const CheckRow& row : report.rows) {
    const bool failed = row.result == CheckResult::fail;
    if (row.check == k_check_allocatable) {
      ++status.gpu_nodes;
      if (!failed) ++status.nodes_advertising;
    } else if (row.check == k_check_gfd_labels && row.result != CheckResult::skipped) {
      // GFD runs: its labels follow the config once its pods restarted on it.
      ++status.gfd_nodes;
      if (!failed) ++status.gfd_labelled;
    } else if (row.check == k_check_pending_scheduled && failed) {
      ++status.gpu_pods_pending;
    } else if (row.check != k_check_plugin_ready) {
      continue; // labels, taints, the autoscaler template: not what the rollout waits for
    }
    if (!failed) continue;
    std::string line = fmt::format("{} {}: {} (want {})", row.check, row.object, row.actual, row.expected);
    if (row.detail.starts_with("joined after the change")) line += ": " + row.detail; // with its restart command
    status.waiting_for.push_back(std::move(line));
  }
  return status;
}

} // namespace gpuslice::remedy
