// SPDX-License-Identifier: Apache-2.0
// The scenario's `simulation:` mapping (documented in tests/fixtures/scenarios/README.md).
#include <fakekube/simulation.hpp>

#include <set>
#include <stdexcept>

namespace fakekube {
namespace {

using nlohmann::json;

constexpr std::pair<Controller, const char*> k_names[] = {
    {Controller::gpu_operator, "gpuOperator"}, {Controller::deployments, "deployments"},
    {Controller::replicasets, "replicaSets"},  {Controller::daemonsets, "daemonSets"},
    {Controller::scheduler, "scheduler"},      {Controller::kubelet, "kubelet"},
    {Controller::device_plugin, "devicePlugin"}, {Controller::autoscaler, "autoscaler"},
};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error("simulation" + where + ": " + what);
}

void only_keys(const json& node, const std::set<std::string>& allowed, const std::string& where) {
  if (!node.is_object()) bad(where, "expected a mapping");
  for (const auto& [key, value] : node.items())
    if (!allowed.count(key)) bad(where, "unknown key \"" + key + "\"");
}

template <typename T> T field(const json& node, const char* key, T fallback, const std::string& where) {
  if (!node.contains(key) || node[key].is_null()) return fallback;
  try {
    return node[key].get<T>();
  } catch (const json::exception&) {
    bad(where + "." + key, std::string("wrong type (") + node[key].type_name() + ")");
  }
}

// Quantities and label values may be written as YAML numbers; keep them as text.
std::map<std::string, std::string> string_map(const json& node, const std::string& where) {
  std::map<std::string, std::string> out;
  if (node.is_null()) return out;
  if (!node.is_object()) bad(where, "expected a mapping");
  for (const auto& [key, value] : node.items())
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return out;
}

NodeGroup parse_group(const json& node, const std::string& where) {
  only_keys(node, {"name", "minSize", "maxSize", "size", "instanceType", "labels", "taints", "resources"}, where);
  NodeGroup group;
  group.name = field<std::string>(node, "name", "", where);
  if (group.name.empty()) bad(where, "name is required");
  group.min_size = field<int>(node, "minSize", 0, where);
  group.max_size = field<int>(node, "maxSize", 0, where);
  group.size = field<int>(node, "size", group.min_size, where);
  group.instance_type = field<std::string>(node, "instanceType", "", where);
  group.labels = string_map(node.value("labels", json()), where + ".labels");
  group.taints = node.value("taints", json::array());
  if (!group.taints.is_array()) bad(where + ".taints", "expected a list");
  group.resources = string_map(node.value("resources", json()), where + ".resources");
  if (group.min_size < 0 || group.max_size < group.min_size)
    bad(where, "needs 0 <= minSize <= maxSize");
  return group;
}

} // namespace

std::string controller_name(Controller controller) {
  for (const auto& [value, name] : k_names)
    if (value == controller) return name;
  return "";
}

bool parse_controller_name(const std::string& name, Controller& out) {
  for (const auto& [value, text] : k_names)
    if (name == text) {
      out = value;
      return true;
    }
  return false;
}

SimulationSettings parse_simulation_settings(const json& node) {
  SimulationSettings settings;
  if (node.is_null()) return settings;
  only_keys(node, {"kubernetesVersion", "controllers", "events", "daemonSets", "autoscaler"}, "");
  settings.kubernetes_version = field<std::string>(node, "kubernetesVersion", "", "");
  if (node.contains("controllers")) {
    if (!node["controllers"].is_object()) bad(".controllers", "expected a mapping");
    for (const auto& [key, value] : node["controllers"].items()) {
      Controller controller = Controller::scheduler;
      if (!parse_controller_name(key, controller)) bad(".controllers", "unknown controller \"" + key + "\"");
      if (!value.is_boolean()) bad(".controllers." + key, "expected true or false");
      settings.enabled[controller] = value.get<bool>();
    }
  }
  if (node.contains("events")) {
    const json& events = node["events"];
    only_keys(events, {"schedulerEveryTicks", "autoscalerEveryTicks"}, ".events");
    settings.scheduler_event_every_ticks = field<int>(events, "schedulerEveryTicks", 10, ".events");
    settings.autoscaler_event_every_ticks = field<int>(events, "autoscalerEveryTicks", 30, ".events");
  }
  if (node.contains("daemonSets")) {
    if (!node["daemonSets"].is_array()) bad(".daemonSets", "expected a list");
    for (std::size_t i = 0; i < node["daemonSets"].size(); ++i) {
      const std::string where = ".daemonSets[" + std::to_string(i) + "]";
      const json& entry = node["daemonSets"][i];
      only_keys(entry, {"namespace", "name", "failure"}, where);
      DaemonSetFailure failure{field<std::string>(entry, "namespace", "default", where),
                               field<std::string>(entry, "name", "", where),
                               field<std::string>(entry, "failure", "", where)};
      if (failure.mode != "crashLoop" && failure.mode != "imagePullBackOff")
        bad(where + ".failure", "must be crashLoop or imagePullBackOff");
      settings.daemonset_failures.push_back(failure);
    }
  }
  if (node.contains("autoscaler")) {
    const json& ca = node["autoscaler"];
    only_keys(ca, {"namespace", "statusEveryTicks", "provisionTicks", "addNodes", "nodeGroups"}, ".autoscaler");
    settings.autoscaler_namespace = field<std::string>(ca, "namespace", "kube-system", ".autoscaler");
    settings.autoscaler_status_every_ticks = field<int>(ca, "statusEveryTicks", 10, ".autoscaler");
    settings.node_provision_ticks = field<int>(ca, "provisionTicks", 3, ".autoscaler");
    settings.autoscaler_adds_nodes = field<bool>(ca, "addNodes", true, ".autoscaler");
    const json groups = ca.value("nodeGroups", json::array());
    if (!groups.is_array()) bad(".autoscaler.nodeGroups", "expected a list");
    for (std::size_t i = 0; i < groups.size(); ++i)
      settings.node_groups.push_back(parse_group(groups[i], ".autoscaler.nodeGroups[" + std::to_string(i) + "]"));
  }
  return settings;
}

} // namespace fakekube
