// SPDX-License-Identifier: Apache-2.0
// The GPU Operator stand-in: the device-plugin DaemonSet a ClusterPolicy owns is kept as the
// policy's spec.devicePlugin says (config name/default wired through the config-manager, or
// no config; enabled=false deletes it). Direct edits are overwritten and a deleted DaemonSet
// is re-created, as the operator's reconcile does (reference/nvidia.md §5.3).
#include <initializer_list>

#include "memory.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

bool named(const json& item, const char* name) { return item.value("name", std::string()) == name; }

json erase_named(const json& list, std::initializer_list<const char*> names) {
  json out = json::array();
  for (const json& item : list) {
    bool drop = false;
    for (const char* name : names) drop = drop || named(item, name);
    if (!drop) out.push_back(item);
  }
  return out;
}

json config_manager(const char* name, bool oneshot, const std::string& image, const std::string& fallback) {
  return {{"name", name},
          {"image", image},
          {"command", json::array({"config-manager"})},
          {"env", json::array({{{"name", "ONESHOT"}, {"value", oneshot ? "true" : "false"}},
                               {{"name", "NODE_LABEL"}, {"value", "nvidia.com/device-plugin.config"}},
                               {{"name", "CONFIG_FILE_SRCDIR"}, {"value", "/available-configs"}},
                               {{"name", "CONFIG_FILE_DST"}, {"value", "/config/config.yaml"}},
                               {{"name", "DEFAULT_CONFIG"}, {"value", fallback}},
                               {{"name", "FALLBACK_STRATEGIES"}, {"value", "empty"}}})},
          {"volumeMounts", json::array({{{"name", "available-configs"}, {"mountPath", "/available-configs"}},
                                        {{"name", "config"}, {"mountPath", "/config"}}})}};
}

// The pod spec the operator renders for this policy, from the DaemonSet as first seen.
json desired_spec(const json& base, const json& policy) {
  json spec = base;
  json& pod = spec["template"]["spec"];
  pod["initContainers"] = erase_named(pod.value("initContainers", json::array()), {"config-manager-init"});
  pod["containers"] = erase_named(pod.value("containers", json::array()), {"config-manager"});
  pod["volumes"] = erase_named(pod.value("volumes", json::array()), {"available-configs", "config"});
  if (pod["initContainers"].empty()) pod.erase("initContainers");
  if (pod["volumes"].empty()) pod.erase("volumes");
  const json config = policy["spec"].value("devicePlugin", json::object()).value("config", json::object());
  const std::string name = config.value("name", std::string());
  for (json& container : pod["containers"]) {
    container["env"] = erase_named(container.value("env", json::array()), {"CONFIG_FILE"});
    container["volumeMounts"] = erase_named(container.value("volumeMounts", json::array()), {"config"});
    if (container["env"].empty()) container.erase("env");
    if (container["volumeMounts"].empty()) container.erase("volumeMounts");
  }
  if (name.empty() || pod["containers"].empty()) return spec;
  json& plugin = pod["containers"][0];
  const std::string image = plugin.value("image", std::string());
  plugin["env"].push_back({{"name", "CONFIG_FILE"}, {"value", "/config/config.yaml"}});
  plugin["volumeMounts"].push_back({{"name", "config"}, {"mountPath", "/config"}});
  const std::string fallback = config.value("default", std::string());
  pod["initContainers"].push_back(config_manager("config-manager-init", true, image, fallback));
  pod["containers"].push_back(config_manager("config-manager", false, image, fallback));
  pod["volumes"].push_back({{"name", "available-configs"}, {"configMap", {{"name", name}}}});
  pod["volumes"].push_back({{"name", "config"}, {"emptyDir", json::object()}});
  pod["shareProcessNamespace"] = true;
  return spec;
}

} // namespace

void run_gpu_operator(TickContext& context) {
  const std::vector<json> daemonsets = context.store.list(k_daemonsets);
  json& bases = context.memory.operator_base;
  if (!bases.is_object()) bases = json::object();
  for (const json& policy : context.store.list(k_clusterpolicies)) {
    const std::string uid = policy["metadata"].value("uid", std::string());
    const json* owned = nullptr;
    for (const json& ds : daemonsets)
      if (controller_uid(ds) == uid) owned = &ds;
    if (owned != nullptr && !bases.contains(uid)) {
      json base = *owned;
      base.erase("status");
      for (const char* key : {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"})
        base["metadata"].erase(key);
      bases[uid] = base;
    }
    if (!bases.contains(uid)) continue; // nothing of the operator's seen yet
    const bool enabled = policy["spec"].value("devicePlugin", json::object()).value("enabled", true);
    const json& base = bases[uid];
    if (!enabled) {
      if (owned != nullptr)
        context.store.remove(k_daemonsets, (*owned)["metadata"].value("namespace", ""),
                             (*owned)["metadata"].value("name", ""));
      continue;
    }
    const json spec = desired_spec(base["spec"], policy);
    // What the API stored for our last write (with its defaults), to tell edits from defaults.
    json& record = context.memory.operator_written[uid];
    if (!record.is_object()) record = json::object();
    const bool policy_changed = record.value("desired", json()) != spec;
    const bool edited = owned != nullptr && (*owned)["spec"] != record.value("stored", json());
    if (owned != nullptr && !policy_changed && !edited) continue;
    json ds = owned == nullptr ? base : *owned;
    ds["spec"] = spec;
    if (owned == nullptr) context.store.create(k_daemonsets, ds, "gpu-operator");
    else context.store.update(k_daemonsets, ds, "gpu-operator");
    if (std::optional<json> stored = context.store.get(k_daemonsets, ds["metadata"].value("namespace", ""),
                                                       ds["metadata"].value("name", ""))) {
      record["desired"] = spec;
      record["stored"] = (*stored)["spec"];
    }
  }
}

} // namespace fakekube::sim
