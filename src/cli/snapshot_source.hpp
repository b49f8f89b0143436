// SPDX-License-Identifier: Apache-2.0
// Where diagnose and status get their Snapshot: files given with --from-file, else the cluster.
#pragma once

#include <string>
#include <vector>

#include <gpuslice/collect.hpp>
#include <gpuslice/snapshot.hpp>

#include "cli/app.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

// The namespace scope of a live read: all namespaces unless -n names one and -A is not given.
collect::Scope live_scope(bool all_namespaces, const GlobalFlags& global);

// Reads the files when any are given; otherwise connects with the global flags and collects
// live — all namespaces unless -n names one (and -A is not given). Throws UsageError for bad
// files or flags, kube errors for the cluster.
Snapshot read_snapshot(const std::vector<std::string>& from_files, bool all_namespaces,
                       const GlobalFlags& global, Env& env);

} // namespace gpuslice::cli
