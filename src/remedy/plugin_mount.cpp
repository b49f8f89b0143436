// SPDX-License-Identifier: Apache-2.0
// Re-pointing an installed plugin DaemonSet at the time-slicing config without the chart's
// config-manager (reference/nvidia.md §2.6 "simplest"): the ConfigMap key mounted as a file,
// CONFIG_FILE naming it, and a pod-template checksum so the pods restart and read it. Needs no
// ServiceAccount or RBAC, unlike the config-manager (which reads node labels from the API).
#include <algorithm>
#include <string_view>
#include <vector>

#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

// Whether `have` holds everything `want` says (objects key by key, arrays item by item), so
// that fields the server defaulted (defaultMode, fieldRef.apiVersion) do not count as a change.
bool mount_holds(const nlohmann::json& have, const nlohmann::json& want) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (const auto& [key, value] : want.items())
      if (!have.contains(key) || !mount_holds(have[key], value)) return false;
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (!mount_holds(have[i], want[i])) return false;
    return true;
  }
  return have == want;
}

// Puts `item` into the list by `key`, unless an entry with that key already holds it.
void mount_upsert(nlohmann::json& list, const nlohmann::json& item, const char* key) {
  if (!list.is_array()) list = nlohmann::json::array();
  for (nlohmann::json& entry : list) {
    if (!entry.is_object() || entry.value(key, "") != item.value(key, "")) continue;
    if (!mount_holds(entry, item)) entry = item;
    return;
  }
  list.push_back(item);
}

// The container that runs `program` (the plugin or GFD, which read CONFIG_FILE), not a
// config-manager sidecar: by its command, else its name, else its image.
bool runs_config_reader(const nlohmann::json& container, std::string_view program, std::string_view image) {
  const std::string name = container.value("name", "");
  if (name.find("sidecar") != std::string::npos || name.find("config-manager") != std::string::npos ||
      name.ends_with("-init"))
    return false;
  const nlohmann::json command = container.value("command", nlohmann::json::array());
  if (!command.empty() && command.front() == program) return true;
  return name.find(program) != std::string::npos || container.value("image", "").find(image) != std::string::npos;
}

} // namespace

nlohmann::json mount_plugin_config(const nlohmann::json& live_daemonset, const nlohmann::json& edit) {
  nlohmann::json out = live_daemonset;
  const std::string configmap = edit.value("configmap", "");
  const std::string key = edit.value("key", "");
  nlohmann::json& pod = out["spec"]["template"];
  if (!pod["metadata"].is_object()) pod["metadata"] = nlohmann::json::object();
  pod["metadata"]["annotations"][std::string(k_config_checksum_annotation)] = edit.value("checksum", "");
  nlohmann::json& spec = pod["spec"];
  mount_upsert(spec["volumes"],
               {{"name", std::string(k_mounted_config_volume)},
                {"configMap", {{"name", configmap}, {"items", {{{"key", key}, {"path", "config.yaml"}}}}}}},
               "name");
  nlohmann::json& containers = spec["containers"];
  if (!containers.is_array() || containers.empty()) return out;
  // The plugin and GFD each read CONFIG_FILE; the chart's older layout runs both in one pod.
  std::vector<nlohmann::json*> readers;
  for (nlohmann::json& container : containers)
    if (runs_config_reader(container, "nvidia-device-plugin", "k8s-device-plugin") ||
        runs_config_reader(container, "gpu-feature-discovery", "gpu-feature-discovery"))
      readers.push_back(&container);
  if (readers.empty()) readers.push_back(&containers.front());
  for (nlohmann::json* reader : readers) {
    mount_upsert((*reader)["env"],
                 {{"name", "CONFIG_FILE"}, {"value", std::string(k_mounted_config_dir) + "/config.yaml"}}, "name");
    mount_upsert((*reader)["volumeMounts"],
                 {{"name", std::string(k_mounted_config_volume)}, {"mountPath", std::string(k_mounted_config_dir)},
                  {"readOnly", true}},
                 "name");
  }
  return out;
}

} // namespace gpuslice::remedy
