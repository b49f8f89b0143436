// SPDX-License-Identifier: Apache-2.0
#include "remedy/manifest_parts.hpp"

#include <fmt/format.h>

namespace gpuslice::remedy::manifest {

std::string image_ref(const PluginInstallOptions& options) {
  return fmt::format("{}:{}", options.image, options.version);
}

nlohmann::json config_manager_container(const PluginInstallOptions& options, std::string_view name, bool sidecar,
                                        std::string_view process) {
  auto env = [](std::string_view key, std::string_view value) {
    return nlohmann::json{{"name", key}, {"value", value}};
  };
  nlohmann::json vars = nlohmann::json::array({
      env("ONESHOT", sidecar ? "false" : "true"),
      env("KUBECONFIG", ""),
      {{"name", "NODE_NAME"}, {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "spec.nodeName"}}}}}},
      env("NODE_LABEL", "nvidia.com/device-plugin.config"),
      env("CONFIG_FILE_SRCDIR", k_available_configs),
      env("CONFIG_FILE_DST", k_config_file),
      env("DEFAULT_CONFIG", options.default_config),
      env("FALLBACK_STRATEGIES", "named,single"),
      env("SEND_SIGNAL", sidecar ? "true" : "false"),
      env("SIGNAL", sidecar ? "1" : ""), // SIGHUP: the plugin reloads its config
      env("PROCESS_TO_SIGNAL", sidecar ? process : ""),
  });
  return {{"name", name},
          {"image", image_ref(options)},
          {"imagePullPolicy", "IfNotPresent"},
          {"command", {"config-manager"}},
          {"env", std::move(vars)},
          {"volumeMounts", config_volume_mounts()}};
}

nlohmann::json config_volumes(const PluginInstallOptions& options) {
  return nlohmann::json::array({{{"name", "available-configs"}, {"configMap", {{"name", options.configmap}}}},
                                {{"name", "config"}, {"emptyDir", nlohmann::json::object()}}});
}

nlohmann::json config_volume_mounts() {
  return nlohmann::json::array({{{"name", "available-configs"}, {"mountPath", k_available_configs}},
                                {{"name", "config"}, {"mountPath", "/config"}}});
}

} // namespace gpuslice::remedy::manifest
