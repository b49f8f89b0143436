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

// Parses one document (an API object's raw text) into simdjson's DOM. Reuse one per thread:
// it keeps simdjson's buffers between documents.
class SimdjsonDom {
public:
  // The root of `text`, valid until the next parse; nullopt when it is not valid JSON.
  std::optional<simdjson::dom::element> parse(std::string_view text);

private:
  simdjson::dom::parser m_parser;
  std::vector<char> m_padded; // text plus simdjson's padding
};

// The nlohmann value of a simdjson element, the one nlohmann::json::parse gives: non-negative
// integers stored as unsigned, the last of duplicate keys kept.
nlohmann::json json_of_simdjson(simdjson::dom::element element);

// Reuse one per thread, as SimdjsonDom.
class JsonFromSimdjson {
public:
  // The JSON value of `text`; nullopt when it is not valid JSON.
  std::optional<nlohmann::json> parse(std::string_view text);

private:
  SimdjsonDom m_dom;
};

} // namespace gpuslice::collect
