// SPDX-License-Identifier: Apache-2.0
#include "scenario_yaml.hpp"

#include <regex>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

namespace fakekube {
namespace {

nlohmann::json plain_scalar(const std::string& text) {
  static const std::regex k_int(R"([-+]?[0-9]+)");
  static const std::regex k_float(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (std::regex_match(text, k_int)) {
    try {
      return std::stoll(text);
    } catch (const std::out_of_range&) {
      return text; // too large for int64: keep the digits rather than lose precision
    }
  }
  if (std::regex_match(text, k_float)) return std::stod(text);
  return text;
}

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined:
    return nullptr;
  case YAML::NodeType::Scalar: {
    const std::string& tag = node.Tag();
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
    return plain_scalar(node.Scalar());
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json array = nlohmann::json::array();
    for (const YAML::Node& item : node) array.push_back(to_json(item));
    return array;
  }
  case YAML::NodeType::Map: {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& entry : node) object[entry.first.as<std::string>()] = to_json(entry.second);
    return object;
  }
  }
  return nullptr;
}

} // namespace

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
    documents.push_back(to_json(node));
  }
  return documents;
}

} // namespace fakekube
