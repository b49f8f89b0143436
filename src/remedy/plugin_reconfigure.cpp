// SPDX-License-Identifier: Apache-2.0
// Re-pointing an existing plugin DaemonSet at the time-slicing ConfigMap, or the helm command
// that does it for a Helm release (reference/nvidia.md §2.4, §2.5).
#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plugin.hpp>

#include "remedy/manifest_parts.hpp"

namespace gpuslice::remedy {

namespace {

// The container that runs the plugin itself (not a config-manager), by name, command or image.
std::string plugin_container_name(const model::DaemonSet& daemonset) {
  const std::vector<model::Container>& containers = daemonset.pod_template.spec.containers;
  auto runs_plugin = [](const model::Container& c) {
    if (c.name.find("sidecar") != std::string::npos) return false;
    return c.name.find("nvidia-device-plugin") != std::string::npos ||
           (!c.command.empty() && c.command.front() == "nvidia-device-plugin") ||
           c.image.find("k8s-device-plugin") != std::string::npos;
  };
  const auto it = std::find_if(containers.begin(), containers.end(), runs_plugin);
  if (it != containers.end()) return it->name;
  return containers.empty() ? "nvidia-device-plugin-ctr" : containers.front().name;
}

// Values for --set: commas and backslashes would split or escape a value.
std::string helm_set_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == ',' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

} // namespace

nlohmann::json reconfigure_patch(const model::DaemonSet& daemonset, const PluginInstallOptions& options) {
  if (options.configmap.empty()) throw UsageError("reconfigure: the ConfigMap name must not be empty");
  const std::string main = plugin_container_name(daemonset);
  PluginInstallOptions with_current_image = options;
  // The config-manager ships in the plugin image: reuse the image the DaemonSet runs now.
  for (const model::Container& c : daemonset.pod_template.spec.containers) {
    if (c.name != main || c.image.empty()) continue;
    const std::size_t colon = c.image.rfind(':');
    const std::size_t slash = c.image.rfind('/');
    if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
      with_current_image.image = c.image.substr(0, colon);
      with_current_image.version = c.image.substr(colon + 1);
    }
  }
  nlohmann::json main_container = {
      {"name", main},
      {"env", nlohmann::json::array({{{"name", "CONFIG_FILE"}, {"value", manifest::k_config_file}}})},
      {"volumeMounts", manifest::config_volume_mounts()}};
  // Strategic merge: containers merge by name, env by name, mounts by mountPath, volumes by name.
  return {{"spec",
           {{"template",
             {{"metadata", {{"annotations", {{std::string(k_config_checksum_annotation),
                                              config_checksum(options.config_text)}}}}},
              {"spec",
               {{"shareProcessNamespace", true},
                {"initContainers", nlohmann::json::array({manifest::config_manager_container(
                                       with_current_image, "nvidia-device-plugin-init", false, "")})},
                {"containers", nlohmann::json::array({main_container,
                                                      manifest::config_manager_container(
                                                          with_current_image, "nvidia-device-plugin-sidecar", true,
                                                          "nvidia-device-plugin")})},
                {"volumes", manifest::config_volumes(options)}}}}}}}};
}

std::string helm_upgrade_command(const model::HelmRelease& release, const PluginInstallOptions& options) {
  if (options.configmap.empty()) throw UsageError("helm upgrade: the ConfigMap name must not be empty");
  const std::string name = release.name.empty() ? options.release : release.name;
  const std::string ns = release.ns.empty() ? options.ns : release.ns;
  // Keep the release's chart version: reconfiguring should not also upgrade the plugin.
  std::string version = release.chart_version;
  if (version.empty()) version = options.version.starts_with('v') ? options.version.substr(1) : options.version;
  std::string sets = fmt::format("config.name={}", helm_set_value(options.configmap));
  if (!options.default_config.empty()) sets += fmt::format(",config.default={}", helm_set_value(options.default_config));
  if (options.gfd_enabled) sets += ",gfd.enabled=true";
  return fmt::format("helm repo add nvidia-device-plugin https://nvidia.github.io/k8s-device-plugin --force-update && "
                     "helm upgrade --install {} nvidia-device-plugin/nvidia-device-plugin --namespace {} "
                     "--version {} --reuse-values --set {}",
                     name, ns, version, sets);
}

} // namespace gpuslice::remedy

namespace gpuslice::remedy {

namespace {

// Replaces the entry of `list` whose `key` equals that of `item`, or appends it.
void upsert_by(nlohmann::json& list, const nlohmann::json& item, const char* key) {
  if (!list.is_array()) list = nlohmann::json::array();
  for (nlohmann::json& entry : list) {
    if (entry.is_object() && entry.value(key, "") == item.value(key, "")) {
      entry = item;
      return;
    }
  }
  list.push_back(item);
}

// Merges a patch container into the live one: env by name, mounts by mountPath, the rest set.
void merge_container(nlohmann::json& live, const nlohmann::json& patch) {
  for (const auto& [field, value] : patch.items()) {
    if (field == "env") {
      for (const nlohmann::json& e : value) upsert_by(live["env"], e, "name");
    } else if (field == "volumeMounts") {
      for (const nlohmann::json& m : value) upsert_by(live["volumeMounts"], m, "mountPath");
    } else {
      live[field] = value;
    }
  }
}

} // namespace

nlohmann::json reconfigure_daemonset(const nlohmann::json& live_daemonset, const PluginInstallOptions& options) {
  const nlohmann::json patch = reconfigure_patch(model::daemonset_from_json(live_daemonset), options);
  nlohmann::json out = live_daemonset;
  nlohmann::json& pod = out["spec"]["template"];
  const nlohmann::json& patch_pod = patch["spec"]["template"];
  for (const auto& [key, value] : patch_pod["metadata"]["annotations"].items()) pod["metadata"]["annotations"][key] = value;
  nlohmann::json& spec = pod["spec"];
  const nlohmann::json& patch_spec = patch_pod["spec"];
  spec["shareProcessNamespace"] = true;
  for (const char* list : {"initContainers", "containers"}) {
    for (const nlohmann::json& c : patch_spec[list]) {
      nlohmann::json& containers = spec[list];
      if (!containers.is_array()) containers = nlohmann::json::array();
      auto it = std::find_if(containers.begin(), containers.end(),
                             [&](const nlohmann::json& live) { return live.value("name", "") == c.value("name", ""); });
      if (it == containers.end()) {
        containers.push_back(c);
      } else {
        merge_container(*it, c);
      }
    }
  }
  for (const nlohmann::json& v : patch_spec["volumes"]) upsert_by(spec["volumes"], v, "name");
  return out;
}

} // namespace gpuslice::remedy
