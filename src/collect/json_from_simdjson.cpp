// SPDX-License-Identifier: Apache-2.0
#include "collect/json_from_simdjson.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace gpuslice::collect {

nlohmann::json json_of_simdjson(simdjson::dom::element element) {
  switch (element.type()) {
  case simdjson::dom::element_type::OBJECT: {
    nlohmann::json object = nlohmann::json::object();
    for (simdjson::dom::key_value_pair field : simdjson::dom::object(element))
      object[std::string(field.key)] = json_of_simdjson(field.value);
    return object;
  }
  case simdjson::dom::element_type::ARRAY: {
    nlohmann::json array = nlohmann::json::array();
    for (simdjson::dom::element value : simdjson::dom::array(element))
      array.push_back(json_of_simdjson(value));
    return array;
  }
  case simdjson::dom::element_type::STRING:
    return std::string(std::string_view(element));
  case simdjson::dom::element_type::INT64: {
    const std::int64_t number = std::int64_t(element);
    if (number >= 0) return static_cast<std::uint64_t>(number); // nlohmann: non-negative = unsigned
    return number;
  }
  case simdjson::dom::element_type::UINT64:
    return std::uint64_t(element);
  case simdjson::dom::element_type::DOUBLE:
    return double(element);
  case simdjson::dom::element_type::BOOL:
    return bool(element);
  case simdjson::dom::element_type::NULL_VALUE:
    return nullptr;
  }
  return nullptr;
}

std::optional<simdjson::dom::element> SimdjsonDom::parse(std::string_view text) {
  m_padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(m_padded.data(), text.data(), text.size());
  simdjson::dom::element root;
  if (m_parser.parse(m_padded.data(), text.size(), false).get(root) != simdjson::SUCCESS) return std::nullopt;
  return root;
}

std::optional<nlohmann::json> JsonFromSimdjson::parse(std::string_view text) {
  std::optional<simdjson::dom::element> root = m_dom.parse(text);
  if (!root) return std::nullopt;
  return json_of_simdjson(*root);
}

} // namespace gpuslice::collect
