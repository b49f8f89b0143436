// SPDX-License-Identifier: Apache-2.0
// The NVIDIA device plugin as a process: which pods are plugin or GFD pods, and which config
// a plugin pod would load at start — the file CONFIG_FILE / --config-file names, found through
// the pod's mounts (a ConfigMap key, or the config-manager's choice among a ConfigMap's keys by
// node label, DEFAULT_CONFIG and fallbacks), checked as the plugin checks it
// (reference/nvidia.md §1.5, §2.4).
#pragma once

#include <nlohmann/json.hpp>

#include "memory.hpp"

namespace fakekube::sim {

enum class GpuPodRole { none, device_plugin, feature_discovery };

// What a pod runs, from its containers' commands and images.
GpuPodRole gpu_pod_role(const nlohmann::json& pod);

// The config the plugin in `pod` would load on `node` now.
PluginRuntime resolve_plugin_config(const StoreAccess& store, const nlohmann::json& pod,
                                    const nlohmann::json& node);

// Whether a container of `pod` runs gpu-feature-discovery (its own DaemonSet, or beside the
// plugin in one pod).
bool runs_gfd(const nlohmann::json& pod);

// The config GFD in `pod` would load on `node` now: GFD reads CONFIG_FILE / --config-file as the
// plugin does, from its own container, so its replica labels follow only the config it is wired
// to (none: replicas 1).
PluginRuntime resolve_gfd_config(const StoreAccess& store, const nlohmann::json& pod,
                                 const nlohmann::json& node);

// The node's physical GPUs, strongest source first: the sim.fakekube.io/physical-gpus
// annotation, GFD's nvidia.com/gpu.count, the instance-type catalog, the nvidia.com/gpu
// capacity when the simulation first saw the node (device_plugin.cpp).
long long physical_gpus(TickContext& context, const nlohmann::json& node);

// Whether the plugin in `pod` exits when NVML cannot start (no GPU, no driver): its
// failOnInitError, true unless FAIL_ON_INIT_ERROR or --fail-on-init-error say false.
bool plugin_fails_on_init_error(const nlohmann::json& pod);

} // namespace fakekube::sim
