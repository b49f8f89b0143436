// SPDX-License-Identifier: Apache-2.0
// YAML to JSON for scenario files, typing plain scalars the way Kubernetes' YAML reader does
// for the YAML 1.2 core schema (quoted scalars always stay strings).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

// Every document of a (multi-document) YAML text as JSON; empty documents are skipped.
// Throws std::runtime_error with the YAML parser's message and line on bad YAML.
std::vector<nlohmann::json> parse_yaml_documents(const std::string& text);

} // namespace fakekube
