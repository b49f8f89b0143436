// SPDX-License-Identifier: Apache-2.0
// nlohmann::json values built from simdjson's DOM parser instead of nlohmann's own lexer,
// which dominates loading large lists (70 % of the instructions of `diagnose --from-file`
// on a 1,500-pod cluster). The value is the one nlohmann::json::parse gives.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace gpuslice::collect {

// Reuse one per thread: it keeps simdjson's buffers between documents.
class JsonFromSimdjson {
public:
  // The JSON value of `text`; nullopt when it is not valid JSON. Like nlohmann's parser, it
  // stores non-negative integers as unsigned and keeps the last of duplicate keys.
  std::optional<nlohmann::json> parse(std::string_view text);

private:
  simdjson::dom::parser m_parser;
  std::vector<char> m_padded; // text plus simdjson's padding
};

} // namespace gpuslice::collect
