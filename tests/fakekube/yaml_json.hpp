// SPDX-License-Identifier: Apache-2.0
// YAML request bodies (server-side apply sends YAML) as JSON values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace YAML {
class Node;
}

namespace fakekube {

// One parsed YAML node as JSON, with the typing rules below.
nlohmann::json yaml_node_to_json(const YAML::Node& node);

// Converts one YAML document; plain scalars become numbers, booleans or null as YAML 1.2's
// core schema says, quoted scalars stay strings. Throws std::runtime_error on bad YAML.
nlohmann::json yaml_to_json(const std::string& text);

} // namespace fakekube
