// SPDX-License-Identifier: Apache-2.0
#include "yaml_json.hpp"

#include <regex>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

namespace fakekube {
namespace {

nlohmann::json plain_scalar(const std::string& text) {
  static const std::regex k_int("[-+]?[0-9]+");
  static const std::regex k_float("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (text == "null" || text == "Null" || text == "NULL" || text == "~" || text.empty()) {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    return false;
  }
  if (std::regex_match(text, k_int)) {
    try {
      return std::stoll(text);
    } catch (const std::out_of_range&) {
      return text;
    }
  }
  if (std::regex_match(text, k_float)) {
    return std::stod(text);
  }
  return text;
}

nlohmann::json convert(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined:
    return nullptr;
  case YAML::NodeType::Scalar: {
    // yaml-cpp tags quoted (non-plain) scalars "!" and plain ones "?"; `!!str` forces a string.
    const std::string& tag = node.Tag();
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
    return plain_scalar(node.Scalar());
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json array = nlohmann::json::array();
    for (const YAML::Node& item : node) {
      array.push_back(convert(item));
    }
    return array;
  }
  case YAML::NodeType::Map: {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& entry : node) {
      object[entry.first.as<std::string>()] = convert(entry.second);
    }
    return object;
  }
  }
  return nullptr;
}

} // namespace

nlohmann::json yaml_node_to_json(const YAML::Node& node) { return convert(node); }

nlohmann::json yaml_to_json(const std::string& text) {
  try {
    return convert(YAML::Load(text));
  } catch (const YAML::Exception& error) {
    throw std::runtime_error(std::string("invalid YAML: ") + error.what());
  }
}

} // namespace fakekube
