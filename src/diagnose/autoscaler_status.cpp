// SPDX-License-Identifier: Apache-2.0
// data.status of the cluster-autoscaler-status ConfigMap (reference/scheduling.md §3): the
// legacy text of CA ≤1.29 and the YAML of CA ≥1.30 (struct order until 1.34, alphabetical
// from 1.35; every field optional, unknown keys ignored).
#include <gpuslice/diagnose.hpp>

#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

constexpr std::string_view k_legacy_header = "Cluster-autoscaler status at ";

// ----- legacy text -------------------------------------------------------------------------

// Sets the counters named in "Healthy (ready=2 unready=0 … cloudProviderTarget=8 (minSize=0,
// maxSize=8))"; the 2017 format spells the sizes "(min=5, max=5)".
void read_counters(std::string_view text, NodeGroupStatus& group) {
  std::string spaced(text);
  for (char& c : spaced) {
    if (c == '(' || c == ')' || c == ',') c = ' ';
  }
  std::istringstream words(spaced);
  std::string word;
  while (words >> word) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq);
    const int value = parse_count(std::string_view(word).substr(eq + 1)).value_or(-1);
    if (key == "ready") group.ready = value;
    else if (key == "unready") group.unready = value;
    else if (key == "resourceUnready") group.resource_unready = value;
    else if (key == "notStarted") group.not_started = value;
    else if (key == "registered") group.registered = value;
    else if (key == "longUnregistered") group.long_unregistered = value;
    else if (key == "cloudProviderTarget") group.cloud_provider_target = value;
    else if (key == "minSize" || key == "min") group.min_size = value;
    else if (key == "maxSize" || key == "max") group.max_size = value;
  }
}

// The first word of a condition value: "InProgress (ready=1 …)" → "InProgress".
std::string first_word(std::string_view text) {
  text = trim(text);
  return std::string(text.substr(0, text.find(' ')));
}

AutoscalerHealth parse_legacy(std::string_view text) {
  AutoscalerHealth status;
  status.legacy_text = true;
  NodeGroupStatus* current = &status.cluster_wide;
  bool in_groups = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    std::string_view line = trim(text.substr(start, end == std::string_view::npos ? end : end - start));
    start = end == std::string_view::npos ? text.size() + 1 : end + 1;
    if (strip_prefix(line, k_legacy_header)) {
      strip_suffix(line, ":");
      status.time = std::string(line);
    } else if (line == "NodeGroups:") {
      in_groups = true;
    } else if (strip_prefix(line, "Name:")) {
      if (!in_groups) continue;
      status.node_groups.emplace_back();
      current = &status.node_groups.back();
      current->name = std::string(trim(line));
    } else if (strip_prefix(line, "Health:")) {
      current->health = first_word(line);
      read_counters(line, *current);
    } else if (strip_prefix(line, "ScaleUp:")) {
      current->scale_up = first_word(line);
    } else if (strip_prefix(line, "ScaleDown:")) {
      current->scale_down = first_word(line);
    }
  }
  return status;
}

// ----- YAML --------------------------------------------------------------------------------

// node[key] as an int, -1 when absent or not an integer (all fields are optional).
int int_at(const YAML::Node& node, const char* key) {
  if (!node.IsMap()) return -1;
  const YAML::Node value = node[key];
  if (!value || !value.IsScalar()) return -1;
  return parse_count(value.Scalar()).value_or(-1);
}

std::string string_at(const YAML::Node& node, const char* key) {
  if (!node.IsMap()) return {};
  const YAML::Node value = node[key];
  return value && value.IsScalar() ? value.Scalar() : std::string{};
}

YAML::Node map_at(const YAML::Node& node, const char* key) {
  if (!node.IsMap()) return YAML::Node(YAML::NodeType::Null);
  const YAML::Node value = node[key];
  return value && value.IsMap() ? value : YAML::Node(YAML::NodeType::Null);
}

NodeGroupStatus read_group(const YAML::Node& node) {
  NodeGroupStatus group;
  group.name = string_at(node, "name");
  const YAML::Node health = map_at(node, "health");
  group.health = string_at(health, "status");
  const YAML::Node counts = map_at(health, "nodeCounts");
  const YAML::Node registered = map_at(counts, "registered");
  const YAML::Node unready = map_at(registered, "unready");
  group.registered = int_at(registered, "total");
  group.ready = int_at(registered, "ready");
  group.not_started = int_at(registered, "notStarted");
  group.unready = int_at(unready, "total");
  group.resource_unready = int_at(unready, "resourceUnready");
  group.long_unregistered = int_at(counts, "longUnregistered");
  group.cloud_provider_target = int_at(health, "cloudProviderTarget");
  group.min_size = int_at(health, "minSize");
  group.max_size = int_at(health, "maxSize");
  const YAML::Node scale_up = map_at(node, "scaleUp");
  group.scale_up = string_at(scale_up, "status");
  const YAML::Node backoff = map_at(scale_up, "backoffInfo");
  group.backoff_error_code = string_at(backoff, "errorCode");
  group.backoff_error_message = string_at(backoff, "errorMessage");
  group.scale_down = string_at(map_at(node, "scaleDown"), "status");
  return group;
}

Parsed<AutoscalerHealth> parse_yaml(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return {std::nullopt, fmt::format("cluster-autoscaler status: not the text format and not "
                                      "YAML: {}", e.what())};
  }
  if (!root.IsMap()) {
    return {std::nullopt, "cluster-autoscaler status: expected a YAML mapping with "
                          "autoscalerStatus/clusterWide/nodeGroups"};
  }
  AutoscalerHealth status;
  status.time = string_at(root, "time");
  status.autoscaler_status = string_at(root, "autoscalerStatus");
  status.cluster_wide = read_group(map_at(root, "clusterWide"));
  if (const YAML::Node groups = root["nodeGroups"]; groups && groups.IsSequence()) {
    for (const YAML::Node& group : groups) {
      if (group.IsMap()) status.node_groups.push_back(read_group(group));
    }
  }
  if (status.time.empty() && status.autoscaler_status.empty() && !root["clusterWide"] &&
      !root["nodeGroups"]) {
    return {std::nullopt, "cluster-autoscaler status: none of time, autoscalerStatus, "
                          "clusterWide, nodeGroups is present"};
  }
  return {std::move(status), {}};
}

} // namespace

Parsed<AutoscalerHealth> parse_autoscaler_status(std::string_view text) {
  text = trim(text);
  if (text.empty()) return {std::nullopt, "cluster-autoscaler status: empty"};
  if (text.starts_with(k_legacy_header)) return {parse_legacy(text), {}};
  return parse_yaml(text);
}

} // namespace gpuslice::diagnose
