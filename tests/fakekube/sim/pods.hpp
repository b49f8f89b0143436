// SPDX-License-Identifier: Apache-2.0
// Pod facts and builders the controllers share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

#include "node_fit.hpp"

namespace fakekube::sim {

// Succeeded or Failed: holds no resources.
bool pod_finished(const nlohmann::json& pod);
// status.conditions[Ready] is True.
bool pod_ready(const nlohmann::json& pod);
// The uid of the controller owner ("" when none).
std::string controller_uid(const nlohmann::json& object);
// A condition entry of status.conditions, or null.
const nlohmann::json* find_condition(const nlohmann::json& object, const std::string& type);
// Sets (or replaces) a condition; keeps lastTransitionTime when the status did not change.
void set_condition(nlohmann::json& object, nlohmann::json condition, const std::string& now);

// A new pod from a pod template, owned (controller) by `owner`.
nlohmann::json pod_from_template(const nlohmann::json& pod_template, const nlohmann::json& owner,
                                 const std::string& generate_name);

// Nodes (as model views) and what their bound, unfinished pods request.
struct ClusterUsage {
  std::vector<gpuslice::model::Node> nodes;   // store order (by name)
  std::map<std::string, NodeUsage> by_node;   // node name → usage (node pointers into `nodes`)
};
ClusterUsage cluster_usage(const std::vector<nlohmann::json>& nodes,
                           const std::vector<nlohmann::json>& pods);
// Adds a pod's requests to a node's usage.
void add_usage(NodeUsage& usage, const gpuslice::model::ResourceList& requests);

} // namespace fakekube::sim
