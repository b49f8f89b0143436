// SPDX-License-Identifier: Apache-2.0
#include "plugin_config.hpp"

#include <algorithm>

#include <gpuslice/timeslicing.hpp>

namespace fakekube::sim {
namespace {

using nlohmann::json;

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string first_command(const json& container) {
  for (const char* key : {"command", "args"}) {
    const json list = container.value(key, json::array());
    if (!list.empty() && list[0].is_string()) return base_name(list[0].get<std::string>());
  }
  return "";
}

bool is_plugin_container(const json& container) {
  const std::string command = first_command(container);
  const std::string image = container.value("image", std::string());
  const std::string name = container.value("name", std::string());
  if (command == "nvidia-device-plugin") return true;
  if (command == "gpu-feature-discovery" || command == "config-manager" ||
      command == "mps-control-daemon")
    return false;
  return image.find("k8s-device-plugin") != std::string::npos &&
         (container.value("command", json::array()).empty() || name == "nvidia-device-plugin" ||
          name == "nvidia-device-plugin-ctr");
}

bool is_gfd_container(const json& container) {
  return first_command(container) == "gpu-feature-discovery" ||
         container.value("image", std::string()).find("gpu-feature-discovery") != std::string::npos;
}

std::string env_value(const json& container, const std::string& name) {
  for (const json& env : container.value("env", json::array()))
    if (env.value("name", std::string()) == name) return env.value("value", std::string());
  return "";
}

// --config-file=X or --config-file X in command or args.
std::string config_file_argument(const json& container) {
  std::vector<std::string> words;
  for (const char* key : {"command", "args"})
    for (const json& word : container.value(key, json::array()))
      if (word.is_string()) words.push_back(word.get<std::string>());
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].starts_with("--config-file=")) return words[i].substr(14);
    if (words[i] == "--config-file" && i + 1 < words.size()) return words[i + 1];
  }
  return "";
}

// The volume mounted at the deepest directory holding `path`, and the path inside it.
std::pair<const json*, std::string> volume_for(const json& pod, const json& container,
                                               const std::string& path) {
  const json* best = nullptr;
  std::string rest;
  std::size_t best_length = 0;
  for (const json& mount : container.value("volumeMounts", json::array())) {
    std::string dir = mount.value("mountPath", std::string());
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/' &&
        dir.size() >= best_length) {
      if (!pod["spec"].contains("volumes")) continue;
      for (const json& volume : pod["spec"]["volumes"]) // by reference: `best` points into it
        if (volume.value("name", std::string()) == mount.value("name", std::string())) {
          best = &volume;
          best_length = dir.size();
          rest = path.substr(dir.size() + 1);
        }
    }
  }
  return {best, rest};
}

PluginRuntime failed(const std::string& how, const std::string& message) {
  PluginRuntime runtime;
  runtime.ok = false;
  runtime.failure = how;
  runtime.failure_message = message;
  return runtime;
}

PluginRuntime from_text(const std::string& text) {
  const gpuslice::diagnose::ConfigCheck check = gpuslice::diagnose::check_time_slicing_config(text);
  if (!check.usable()) {
    std::string why = "unable to load config";
    for (const gpuslice::diagnose::ConfigProblem& problem : check.problems)
      if (problem.fatal) {
        why = "error starting plugins: unable to load config: " + problem.message;
        break;
      }
    return failed("CrashLoopBackOff", why);
  }
  PluginRuntime runtime;
  runtime.mps = check.config.strategy == "mps";
  if (std::optional<int> replicas = check.replicas_for("nvidia.com/gpu")) {
    runtime.replicas = *replicas;
    if (check.config.rename_by_default) runtime.resource = "nvidia.com/gpu.shared";
  }
  return runtime;
}

// The config-manager's pick among the ConfigMap's keys (cmd/config-manager updateConfigName).
PluginRuntime from_config_manager(const StoreAccess& store, const json& pod, const json& node,
                                  const std::string& config_path, bool& found) {
  const std::string ns = pod["metadata"].value("namespace", std::string());
  for (const char* list : {"initContainers", "containers"}) {
    for (const json& container : pod["spec"].value(list, json::array())) {
      if (first_command(container) != "config-manager") continue;
      const std::string dst = env_value(container, "CONFIG_FILE_DST");
      if (!dst.empty() && dst != config_path) continue;
      found = true;
      const std::string how = std::string(list) == "initContainers" ? "Init:CrashLoopBackOff"
                                                                    : "CrashLoopBackOff";
      const std::string srcdir = env_value(container, "CONFIG_FILE_SRCDIR");
      auto [volume, rest] = volume_for(pod, container, srcdir + "/x");
      if (volume == nullptr || !volume->contains("configMap"))
        return failed(how, "no configuration files available");
      const std::string cm_name = (*volume)["configMap"].value("name", std::string());
      std::optional<json> cm = store.get(k_configmaps, ns, cm_name);
      if (!cm) return failed("ContainerCreating", "MountVolume.SetUp failed for volume \"" +
                                                      (*volume).value("name", std::string()) +
                                                      "\" : configmap \"" + cm_name + "\" not found");
      std::vector<std::string> keys;
      // A named copy: items() of the temporary value() returns would dangle in the loop.
      const json data = cm->value("data", json::object());
      for (const auto& [key, value] : data.items())
        if (!key.starts_with("..")) keys.push_back(key);
      auto text_of = [&](const std::string& key) { return (*cm)["data"][key].get<std::string>(); };
      auto has = [&](const std::string& key) {
        return std::find(keys.begin(), keys.end(), key) != keys.end();
      };
      std::string label_key = env_value(container, "NODE_LABEL");
      if (label_key.empty()) label_key = "nvidia.com/device-plugin.config";
      const std::string label =
          node["metadata"].value("labels", json::object()).value(label_key, std::string());
      if (!label.empty())
        return has(label) ? from_text(text_of(label))
                          : failed(how, "specified config " + label + " does not exist");
      const std::string fallback_default = env_value(container, "DEFAULT_CONFIG");
      if (!fallback_default.empty())
        return has(fallback_default) ? from_text(text_of(fallback_default))
                                     : failed(how, "specified config  does not exist");
      std::string strategies = env_value(container, "FALLBACK_STRATEGIES");
      if (strategies.empty()) strategies = "named,single";
      if (keys.empty()) return failed(how, "no configuration files available");
      std::size_t start = 0;
      while (start <= strategies.size()) {
        std::size_t comma = strategies.find(',', start);
        const std::string strategy = strategies.substr(start, comma - start);
        if (strategy == "named" && has("default")) return from_text(text_of("default"));
        if (strategy == "single" && keys.size() == 1) return from_text(text_of(keys.front()));
        if (strategy == "empty") return PluginRuntime{};
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return failed(how, "no config was set, no default was provided, and all fallbacks failed");
    }
  }
  return PluginRuntime{};
}

} // namespace

GpuPodRole gpu_pod_role(const json& pod) {
  for (const json& container : pod.value("spec", json::object()).value("containers", json::array())) {
    if (is_plugin_container(container)) return GpuPodRole::device_plugin;
    if (is_gfd_container(container)) return GpuPodRole::feature_discovery;
  }
  return GpuPodRole::none;
}

bool plugin_fails_on_init_error(const json& pod) {
  for (const json& container : pod["spec"].value("containers", json::array())) {
    if (!is_plugin_container(container)) continue;
    if (env_value(container, "FAIL_ON_INIT_ERROR") == "false") return false;
    for (const char* key : {"command", "args"})
      for (const json& word : container.value(key, json::array()))
        if (word == "--fail-on-init-error=false") return false;
  }
  return true;
}

namespace {

// The config the first container of `pod` that `reads` picks would load on `node`.
PluginRuntime resolve_config_of(const StoreAccess& store, const json& pod, const json& node,
                                bool (*reads)(const json& container)) {
  for (const json& container : pod["spec"].value("containers", json::array())) {
    if (!reads(container)) continue;
    std::string path = env_value(container, "CONFIG_FILE");
    if (path.empty()) path = config_file_argument(container);
    if (path.empty()) return PluginRuntime{}; // no config: whole GPUs
    auto [volume, rest] = volume_for(pod, container, path);
    if (volume != nullptr && volume->contains("configMap")) {
      const json& source = (*volume)["configMap"];
      std::string key = rest;
      for (const json& item : source.value("items", json::array()))
        if (item.value("path", std::string()) == rest) key = item.value("key", std::string());
      const std::string cm_name = source.value("name", std::string());
      std::optional<json> cm = store.get(k_configmaps, pod["metadata"].value("namespace", ""), cm_name);
      if (!cm) return failed("ContainerCreating", "MountVolume.SetUp failed for volume \"" +
                                                      (*volume).value("name", std::string()) +
                                                      "\" : configmap \"" + cm_name + "\" not found");
      const json data = cm->value("data", json::object());
      if (!data.contains(key) || !data[key].is_string())
        return failed("CrashLoopBackOff", "unable to load config: unable to read config file " +
                                              path + ": no such file or directory");
      return from_text(data[key].get<std::string>());
    }
    bool found = false;
    PluginRuntime managed = from_config_manager(store, pod, node, path, found);
    if (found) return managed;
    return failed("CrashLoopBackOff", "unable to load config: unable to read config file " + path +
                                          ": no such file or directory");
  }
  return PluginRuntime{};
}

} // namespace

PluginRuntime resolve_plugin_config(const StoreAccess& store, const json& pod, const json& node) {
  return resolve_config_of(store, pod, node, is_plugin_container);
}

bool runs_gfd(const json& pod) {
  const json containers = pod.value("spec", json::object()).value("containers", json::array());
  return std::any_of(containers.begin(), containers.end(), is_gfd_container);
}

PluginRuntime resolve_gfd_config(const StoreAccess& store, const json& pod, const json& node) {
  return resolve_config_of(store, pod, node, is_gfd_container);
}

} // namespace fakekube::sim
