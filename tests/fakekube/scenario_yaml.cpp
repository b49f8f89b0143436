// SPDX-License-Identifier: Apache-2.0
#include "scenario_yaml.hpp"

#include "yaml_json.hpp"

#include <stdexcept>

#include <yaml-cpp/yaml.h>

namespace fakekube {

std::vector<nlohmann::json> parse_yaml_documents(const std::string& text) {
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(text);
  } catch (const YAML::Exception& error) {
    throw std::runtime_error(error.what());
  }
  std::vector<nlohmann::json> documents;
  for (const YAML::Node& node : nodes) {
    if (node.IsNull()) continue;
    documents.push_back(yaml_node_to_json(node));
  }
  return documents;
}

} // namespace fakekube
