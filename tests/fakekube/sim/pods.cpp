// SPDX-License-Identifier: Apache-2.0
#include "pods.hpp"

namespace fakekube::sim {

using nlohmann::json;
namespace model = gpuslice::model;

bool pod_finished(const json& pod) {
  const std::string phase = pod.value("status", json::object()).value("phase", std::string());
  return phase == "Succeeded" || phase == "Failed";
}

const json* find_condition(const json& object, const std::string& type) {
  if (!object.contains("status") || !object["status"].contains("conditions")) return nullptr;
  for (const json& condition : object["status"]["conditions"])
    if (condition.value("type", std::string()) == type) return &condition;
  return nullptr;
}

bool pod_ready(const json& pod) {
  const json* ready = find_condition(pod, "Ready");
  return ready != nullptr && ready->value("status", std::string()) == "True";
}

std::string controller_uid(const json& object) {
  for (const json& owner : object["metadata"].value("ownerReferences", json::array()))
    if (owner.value("controller", false)) return owner.value("uid", std::string());
  return "";
}

void set_condition(json& object, json condition, const std::string& now) {
  json& conditions = object["status"]["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  const std::string type = condition.value("type", std::string());
  for (json& existing : conditions) {
    if (existing.value("type", std::string()) != type) continue;
    const bool same_status = existing.value("status", std::string()) ==
                             condition.value("status", std::string());
    condition["lastTransitionTime"] =
        same_status ? existing.value("lastTransitionTime", json(now)) : json(now);
    existing = std::move(condition);
    return;
  }
  condition["lastTransitionTime"] = now;
  conditions.push_back(std::move(condition));
}

json pod_from_template(const json& pod_template, const json& owner, const std::string& generate_name) {
  const json& owner_meta = owner["metadata"];
  json metadata = pod_template.value("metadata", json::object());
  metadata["generateName"] = generate_name;
  metadata["namespace"] = owner_meta.value("namespace", std::string("default"));
  metadata["ownerReferences"] = json::array({{{"apiVersion", owner.value("apiVersion", std::string())},
                                              {"kind", owner.value("kind", std::string())},
                                              {"name", owner_meta.value("name", std::string())},
                                              {"uid", owner_meta.value("uid", std::string())},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}});
  metadata.erase("name");
  metadata.erase("creationTimestamp");
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata},
          {"spec", pod_template.value("spec", json::object())}};
}

void add_usage(NodeUsage& usage, const model::ResourceList& requests) {
  for (const auto& [resource, quantity] : requests) usage.requested[resource] += quantity;
  ++usage.pods;
}

ClusterUsage cluster_usage(const std::vector<json>& nodes, const std::vector<json>& pods) {
  ClusterUsage usage;
  usage.nodes.reserve(nodes.size());
  for (const json& node : nodes) usage.nodes.push_back(model::node_from_json(node));
  for (const model::Node& node : usage.nodes) usage.by_node[node.name()].node = &node;
  for (const json& pod : pods) {
    const std::string node_name = pod.value("spec", json::object()).value("nodeName", std::string());
    if (node_name.empty() || pod_finished(pod)) continue;
    auto it = usage.by_node.find(node_name);
    if (it == usage.by_node.end()) continue;
    add_usage(it->second, model::effective_requests(model::pod_spec_from_json(pod["spec"])));
  }
  return usage;
}

} // namespace fakekube::sim
