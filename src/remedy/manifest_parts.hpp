// SPDX-License-Identifier: Apache-2.0
// Pieces of the chart's pod templates (reference/nvidia.md §2.3) shared by the native install
// manifests and the reconfigure patch: the config-manager containers and the config volumes.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy::manifest {

inline constexpr std::string_view k_config_file = "/config/config.yaml";
inline constexpr std::string_view k_available_configs = "/available-configs";

// The image reference "<image>:<version>".
std::string image_ref(const PluginInstallOptions& options);

// The config-manager as the chart renders it: the one-shot init container (`sidecar` false)
// or the sidecar that SIGHUPs `process` when the node's config label changes.
nlohmann::json config_manager_container(const PluginInstallOptions& options, std::string_view name,
                                        bool sidecar, std::string_view process);

// The two volumes: the whole ConfigMap at /available-configs and an emptyDir at /config.
nlohmann::json config_volumes(const PluginInstallOptions& options);
// Mounts of both into a container.
nlohmann::json config_volume_mounts();

} // namespace gpuslice::remedy::manifest
