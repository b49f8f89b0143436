// SPDX-License-Identifier: Apache-2.0
// `verify`: after enabling time-slicing, a matrix of checks over a Snapshot — one row per check
// and object (node, workload, pod) — saying whether the cluster is in the intended state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpuslice/model/taints.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

// pass / fail count toward the verdict; unknown means the snapshot cannot tell (said why in
// detail) and skipped means the check does not apply (e.g. no --taint given).
enum class CheckResult { pass, fail, unknown, skipped };
std::string_view to_string(CheckResult result);

// Stable check names (JSON "check" values).
inline constexpr std::string_view k_check_plugin_ready = "plugin-ready";
inline constexpr std::string_view k_check_allocatable = "allocatable";
inline constexpr std::string_view k_check_gfd_labels = "gfd-labels";
inline constexpr std::string_view k_check_present_label = "present-label";
inline constexpr std::string_view k_check_gpu_taint = "gpu-taint";
inline constexpr std::string_view k_check_workload_toleration = "workload-toleration";
inline constexpr std::string_view k_check_pending_scheduled = "pending-scheduled";
inline constexpr std::string_view k_check_autoscaler_template = "autoscaler-template";

struct CheckRow {
  std::string check;    // one of the k_check_* names
  std::string object;   // "node/<name>", "deployment/<ns>/<name>", "pod/<ns>/<name>", "cluster"
  CheckResult result = CheckResult::pass;
  std::string expected; // what the intended state has, e.g. "4"
  std::string actual;   // what the snapshot shows
  std::string detail;   // why, or what to do, in one line
  bool operator==(const CheckRow&) const = default;
};

struct VerifyOptions {
  int replicas = 2;                 // intended time-slicing replicas per GPU (1 = not shared)
  std::optional<model::Taint> taint; // the GPU taint to expect on nodes and tolerate in workloads
  std::vector<std::string> formerly_pending; // "ns/name" of pods that were Pending before the change
  // The resource the plugin advertises the shares as; "" or nvidia.com/gpu: every GPU unit in
  // allocatable counts (whole, shared, MIG), else only this one (e.g. nvidia.com/gpu.shared).
  std::string resource;
  // The nodes the change was for (apply's --node/--node-selector); empty: every GPU node.
  std::vector<std::string> nodes;
  // When the change was made (RFC 3339; "" unknown): GPU nodes created after it are checked too,
  // as nodes that joined after the change (a scale-up the fix never saw).
  std::string changed_at;
};

struct VerifyReport {
  std::vector<CheckRow> rows; // checks in the order above; within a check, by object
  int count(CheckResult result) const;
  // No row failed.
  bool passed() const { return count(CheckResult::fail) == 0; }
};

// Runs every check over the GPU nodes, GPU workloads and GPU pods of the snapshot.
// Pure: never throws on odd cluster data.
VerifyReport verify(const Snapshot& snapshot, const VerifyOptions& options);

// What `verify --watch` says between two rounds, one line per row that is new (a node that
// joined) or whose result changed: "node/gpu-9 allocatable: new, fail (1, want 4): <detail>",
// "node/gpu-9 allocatable: fail -> pass (4)". In `after`'s order; empty when nothing changed.
std::vector<std::string> report_changes(const VerifyReport& before, const VerifyReport& after);

// How far the cluster is from the goal `apply --wait` waits for: every device-plugin DaemonSet
// rolled out (observedGeneration current, every pod updated and available), every GPU node's
// plugin Ready and allocatable = physical × replicas, where GFD runs its replica and sharing
// labels saying so, and no GPU pod Pending.
struct RolloutStatus {
  int plugin_daemonsets = 0;
  int daemonsets_rolled_out = 0;
  int gpu_nodes = 0;
  int nodes_advertising = 0; // allocatable as wanted (or the physical count is unknown)
  int gfd_nodes = 0;         // GPU nodes whose GFD labels are checked (GFD runs)
  int gfd_labelled = 0;      // … that carry the replicas and sharing labels wanted
  int gpu_pods_pending = 0;
  std::vector<std::string> waiting_for; // one line per unmet condition, e.g. "node/n1 advertises 1, not 4"
  bool done() const { return waiting_for.empty(); }
  // "plugin rollout 1/1, GPU nodes advertising × 4: 2/3, [GFD labels × 4: 1/3, ]GPU pods Pending: 3",
  // for a progress line.
  std::string line(int replicas) const;
};
// Pure, like verify().
RolloutStatus rollout_status(const Snapshot& snapshot, const VerifyOptions& options);

} // namespace gpuslice::remedy
