// SPDX-License-Identifier: Apache-2.0
// Multi-document YAML to JSON values, with YAML 1.2 core-schema typing of plain scalars.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuslice::collect {

// Every document of `text` as JSON (empty documents are dropped). Quoted and block scalars
// stay strings; plain ones become null, booleans, integers or floats when they look like it.
// Throws UsageError "<origin>: not valid YAML: line L, column C: <problem>".
std::vector<nlohmann::json> parse_yaml_documents(std::string_view text, const std::string& origin);

} // namespace gpuslice::collect
