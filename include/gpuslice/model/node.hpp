// SPDX-License-Identifier: Apache-2.0
// Node view: labels, taints, schedulability, readiness, capacity.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/pod.hpp>
#include <gpuslice/model/quantity.hpp>
#include <gpuslice/model/taints.hpp>

namespace gpuslice::model {

struct Node {
  ObjectMeta meta;
  std::vector<Taint> taints;
  bool unschedulable = false; // cordoned
  std::string provider_id;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;
  std::string os_image;        // status.nodeInfo.osImage (Bottlerocket detection)
  std::string kubelet_version; // status.nodeInfo.kubeletVersion
  bool operator==(const Node&) const = default;

  const std::string& name() const { return meta.name; }
  // Ready condition: true/false, nullopt when the condition is missing or Unknown.
  std::optional<bool> ready() const;
  // node.kubernetes.io/instance-type, else beta.kubernetes.io/instance-type, else "".
  std::string_view instance_type() const;
  const Condition* condition(std::string_view type) const;
};

Node node_from_json(const nlohmann::json& node);
nlohmann::json to_json(const Node& node);

} // namespace gpuslice::model
