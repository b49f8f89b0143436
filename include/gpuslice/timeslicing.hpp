// SPDX-License-Identifier: Apache-2.0
// The NVIDIA device plugin's config file (reference/nvidia.md §1), checked the way the plugin
// reads it, plus the mistakes it silently ignores. Shared by diagnose (GS403) and remedy
// (validating what it is about to apply).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuslice::diagnose {

// One problem, located by the path of the bad key, e.g. "sharing.timeSlicing.resources[0].replicas".
struct ConfigProblem {
  std::string path;     // "" for the whole document
  std::string message;  // what is wrong and what to do
  bool fatal = false;   // the plugin refuses the config (crash-loops); else it ignores the key
};

// A replicated resource as the plugin would run it.
struct SharedResource {
  std::string name;  // with the "nvidia.com/" prefix the plugin adds when missing
  int replicas = 0;
};

// The sharing settings the plugin would act on.
struct SharingConfig {
  std::string strategy = "none";  // "none" | "time-slicing" | "mps" (mps wins when both are set)
  bool rename_by_default = false; // resources advertised as "<name>.shared"
  bool fail_requests_greater_than_one = false;
  std::vector<SharedResource> resources;
  std::string mig_strategy = "none";
};

struct ConfigCheck {
  SharingConfig config;                 // meaningful when usable()
  std::vector<ConfigProblem> problems;  // fatal ones first is not guaranteed: document order
  // The plugin would start with this config (no fatal problem).
  bool usable() const;
  // Replicas configured for resource (e.g. "nvidia.com/gpu"), or nullopt when not shared.
  std::optional<int> replicas_for(std::string_view resource) const;
};

// Checks one config file (YAML or JSON, as stored under a ConfigMap key). Never throws: bad
// YAML is a fatal problem at path "".
ConfigCheck check_time_slicing_config(std::string_view text);

} // namespace gpuslice::diagnose
