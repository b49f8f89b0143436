// SPDX-License-Identifier: Apache-2.0
// The check groups verify() runs, each appending its rows.
#pragma once

#include <vector>

#include <gpuslice/remedy/verify.hpp>

namespace gpuslice::remedy::verify_checks {

// plugin-ready, allocatable, gfd-labels, present-label, gpu-taint: one row per GPU node each.
void check_gpu_nodes(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows);
// workload-toleration: one row per Deployment/StatefulSet requesting GPUs (with --taint only).
void check_workloads(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows);
// pending-scheduled: the formerly Pending pods, and any GPU pod still Pending.
void check_pending(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows);
// autoscaler-template: the cluster-autoscaler's view of GPU node groups against the replicas.
void check_autoscaler(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows);

} // namespace gpuslice::remedy::verify_checks
