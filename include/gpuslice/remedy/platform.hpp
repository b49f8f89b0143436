// SPDX-License-Identifier: Apache-2.0
// Platforms whose GPU device plugin is not ours to change: GKE (its own plugin, reconciled by
// the addon manager), EKS Auto Mode (built in, no user data), and any plugin DaemonSet an addon
// manager owns (AKS and others revert edits). `apply` refuses there and prints the provider's
// command that does the job instead. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

struct ManagedPlatform {
  std::string name;                  // "GKE", "EKS Auto Mode", "AKS", "addon manager"
  std::string why;                   // one sentence: why the tool changes nothing here
  std::vector<std::string> commands; // what does the job instead, in order (may hold placeholders in CAPITALS)
  std::vector<std::string> notes;    // how to read the commands
  bool operator==(const ManagedPlatform&) const = default;
};

// The platform that owns the GPU nodes' device plugin, nullopt when the plugin is ours to
// configure. `replicas` is the wanted sharing per GPU.
std::optional<ManagedPlatform> managed_gpu_platform(const Snapshot& snapshot, int replicas);

} // namespace gpuslice::remedy
