// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/node.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

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

Node node_from_json(const nlohmann::json& node) { return decode::node(node); }

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
