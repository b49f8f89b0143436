// SPDX-License-Identifier: Apache-2.0
#include "collect/simdjson_access.hpp"

#include <cstring>

#include <nlohmann/json.hpp>

namespace gpuslice::model::json_read {
namespace {

using SimdElement = simdjson::dom::element;
using SimdType = simdjson::dom::element_type;

// An empty object and an empty array, parsed once; their parser lives as long as the program.
struct EmptyValues {
  simdjson::dom::parser parser;
  SimdElement object;
  simdjson::dom::array array;
  EmptyValues() {
    SimdElement root = parser.parse(std::string_view(R"({"o":{},"a":[]})"));
    object = root["o"];
    array = root["a"];
  }
};

const EmptyValues& empty_values() {
  static const EmptyValues k_empty;
  return k_empty;
}

} // namespace

std::optional<SimdElement> JsonAccess<SimdElement>::member(const SimdElement& object, std::string_view key) {
  if (!is_object(object)) return std::nullopt;
  std::optional<SimdElement> found;
  // Every key is compared: the last duplicate wins, as nlohmann's parser keeps it. A decoder
  // asks an object for each of its fields in turn, so this runs for most keys of every item:
  // the length and the first and last bytes rule out nearly all before a memcmp.
  const simdjson::dom::object members(object);
  for (auto it = members.begin(), end = members.end(); it != end; ++it) {
    const std::string_view name = it.key();
    if (name.size() != key.size()) continue;
    if (!key.empty() && (name.front() != key.front() || name.back() != key.back())) continue;
    if (std::memcmp(name.data(), key.data(), key.size()) == 0) found = it.value();
  }
  if (found && found->is_null()) return std::nullopt;
  return found;
}

std::string JsonAccess<SimdElement>::text(const SimdElement& value) {
  switch (value.type()) {
  case SimdType::STRING: return std::string(std::string_view(value));
  case SimdType::INT64: return std::to_string(std::int64_t(value));
  case SimdType::UINT64: return std::to_string(std::uint64_t(value));
  case SimdType::BOOL: return bool(value) ? "true" : "false";
  // nlohmann's shortest round-trip form, so a float label reads the same on both paths.
  case SimdType::DOUBLE: return nlohmann::json(double(value)).dump();
  default: return {};
  }
}

std::optional<long long> JsonAccess<SimdElement>::integer(const SimdElement& value) {
  switch (value.type()) {
  case SimdType::INT64: return std::int64_t(value);
  case SimdType::UINT64: return static_cast<long long>(std::uint64_t(value));
  case SimdType::DOUBLE: return static_cast<long long>(double(value));
  case SimdType::STRING: return integer_text(std::string_view(value));
  default: return std::nullopt;
  }
}

std::optional<bool> JsonAccess<SimdElement>::boolean(const SimdElement& value) {
  if (value.type() == SimdType::BOOL) return bool(value);
  if (value.type() != SimdType::STRING) return std::nullopt;
  std::string_view text = value;
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

SimdElement JsonAccess<SimdElement>::object_or_empty(const std::optional<SimdElement>& value) {
  return value && is_object(*value) ? *value : empty_values().object;
}

simdjson::dom::array JsonAccess<SimdElement>::array_or_empty(const std::optional<SimdElement>& value) {
  return value && is_array(*value) ? simdjson::dom::array(*value) : empty_values().array;
}

} // namespace gpuslice::model::json_read
