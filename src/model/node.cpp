// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/node.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "resources.hpp"

namespace gpuslice::model {

using namespace json_fields;

std::optional<bool> Node::ready() const {
  const Condition* c = condition("Ready");
  if (!c || (c->status != "True" && c->status != "False")) return std::nullopt;
  return c->status == "True";
}

std::string_view Node::instance_type() const {
  for (std::string_view key : {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"}) {
    auto it = meta.labels.find(key);
    if (it != meta.labels.end()) return it->second;
  }
  return {};
}

const Condition* Node::condition(std::string_view type) const {
  auto it = std::find_if(conditions.begin(), conditions.end(), [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

Node node_from_json(const nlohmann::json& node) {
  Node n;
  n.meta = meta_from_json(object_at(node, "metadata"));
  const nlohmann::json& spec = object_at(node, "spec");
  for (const nlohmann::json& t : array_at(spec, "taints")) n.taints.push_back(taint_from_json(t));
  n.unschedulable = bool_at(spec, "unschedulable");
  n.provider_id = string_at(spec, "providerID");
  const nlohmann::json& status = object_at(node, "status");
  n.capacity = resource_list_from_json(object_at(status, "capacity"));
  n.allocatable = resource_list_from_json(object_at(status, "allocatable"));
  for (const nlohmann::json& c : array_at(status, "conditions")) n.conditions.push_back(condition_from_json(c));
  const nlohmann::json& info = object_at(status, "nodeInfo");
  n.os_image = string_at(info, "osImage");
  n.kubelet_version = string_at(info, "kubeletVersion");
  return n;
}

nlohmann::json to_json(const Node& n) {
  nlohmann::json spec = nlohmann::json::object();
  for (const Taint& t : n.taints) spec["taints"].push_back(to_json(t));
  if (n.unschedulable) spec["unschedulable"] = true;
  put_string(spec, "providerID", n.provider_id);
  nlohmann::json status = {{"capacity", to_json(n.capacity)}, {"allocatable", to_json(n.allocatable)}};
  for (const Condition& c : n.conditions) status["conditions"].push_back(to_json(c));
  nlohmann::json info = nlohmann::json::object();
  put_string(info, "osImage", n.os_image);
  put_string(info, "kubeletVersion", n.kubelet_version);
  if (!info.empty()) status["nodeInfo"] = info;
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", to_json(n.meta)}, {"spec", spec}, {"status", status}};
}

} // namespace gpuslice::model
