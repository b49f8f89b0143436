// SPDX-License-Identifier: Apache-2.0
// `verify --smoke`: a throw-away Deployment of one-GPU pods that fills every GPU node up to
// physical × replicas slots, to prove the scheduler hands them out and the pods start. The
// pure parts: what to run (plan_smoke, smoke_deployment) and how it went (judge_smoke).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/model/pod.hpp>
#include <gpuslice/model/taints.hpp>
#include <gpuslice/remedy/verify.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

inline constexpr std::string_view k_check_smoke = "smoke";
// Pinned so a smoke test means the same thing tomorrow; its sh runs the driver's nvidia-smi,
// which the NVIDIA container toolkit mounts into GPU containers.
inline constexpr std::string_view k_smoke_default_image = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
// app.kubernetes.io/name of every smoke Deployment, so a leftover is found (and refused) by label.
inline constexpr std::string_view k_smoke_app = "gpuslice-smoke";
inline constexpr std::string_view k_smoke_run_label = "gpuslice.dev/smoke-run";

struct SmokeOptions {
  std::string ns = "default";
  std::string image = std::string(k_smoke_default_image);
  std::string run_id; // names the Deployment gpuslice-smoke-<run_id> and labels its pods
  int replicas = 2;
  std::optional<model::Taint> taint; // tolerated; without it, any nvidia.com/gpu taint
};

// One GPU node: the slots the smoke fills there.
struct SmokeNode {
  std::string name;
  long long slots = 0;  // physical × replicas, or what it advertises when physical is unknown
  long long in_use = 0; // requested by GPU pods already bound to it
  long long pods() const { return slots > in_use ? slots - in_use : 0; }
};

struct SmokePlan {
  std::string resource; // nvidia.com/gpu, or nvidia.com/gpu.shared where nodes advertise that
  std::vector<SmokeNode> nodes; // GPU nodes by name
  std::string ns;
  std::string name;     // gpuslice-smoke-<run_id>
  std::string run_id;
  long long pods() const;
  // "gpuslice.dev/smoke-run=<run_id>": this run's pods only.
  std::string pod_selector() const;
};

// Pure. The resource is the one the GPU nodes advertise (renameByDefault → .shared).
SmokePlan plan_smoke(const Snapshot& snapshot, const SmokeOptions& options);

// The apps/v1 Deployment: plan.pods() replicas of a one-GPU container requesting plan.resource,
// required to run on the plan's nodes (by name), tolerating the GPU taint, restricted-PSS
// compliant, with a 1 s grace period so removal is quick.
nlohmann::json smoke_deployment(const SmokePlan& plan, const SmokeOptions& options);

// How the smoke ended, as the cli saw it.
struct SmokeOutcome {
  std::vector<model::Pod> pods; // the run's pods at the end of the wait
  bool timed_out = false;
  bool interrupted = false;
  bool removed = true;          // the Deployment was deleted (or never created)
  std::string removal_error;    // why not
};

// A smoke pod is done when it Runs on its node with every container ready.
bool smoke_pod_running(const model::Pod& pod);

// Rows: one per GPU node (its smoke pods Running against its share; skipped where every slot
// is taken), then one for the Deployment (totals, the scheduler's reason for Pending pods,
// container trouble, and whether it was removed — a leftover fails).
std::vector<CheckRow> judge_smoke(const SmokePlan& plan, const SmokeOutcome& outcome);

// "smoke 3/5 Running, 2 Pending", for a progress line.
std::string smoke_progress(const SmokePlan& plan, const std::vector<model::Pod>& pods);

} // namespace gpuslice::remedy
