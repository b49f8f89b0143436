// SPDX-License-Identifier: Apache-2.0
// json_fields over nlohmann values: the generic readers of json_read with nlohmann's access.
#include <gpuslice/model/json_fields.hpp>

#include <charconv>

#include "json_read.hpp"

namespace gpuslice::model {
namespace json_read {

std::optional<long long> integer_text(std::string_view text) {
  long long parsed = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error == std::errc{} && end == text.data() + text.size()) return parsed;
  return std::nullopt;
}

const nlohmann::json* JsonAccess<nlohmann::json>::member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string JsonAccess<nlohmann::json>::text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  // YAML input turns unquoted `true` or `4` into typed scalars; labels and data are text.
  if (value.is_number() || value.is_boolean()) return value.dump();
  return {};
}

std::optional<long long> JsonAccess<nlohmann::json>::integer(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_number_float()) return static_cast<long long>(value.get<double>());
  if (value.is_string()) return integer_text(value.get_ref<const std::string&>());
  return std::nullopt;
}

std::optional<bool> JsonAccess<nlohmann::json>::boolean(const nlohmann::json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value == "true") return true;
  if (value == "false") return false;
  return std::nullopt;
}

const nlohmann::json& JsonAccess<nlohmann::json>::object_or_empty(const nlohmann::json* value) {
  static const nlohmann::json k_empty = nlohmann::json::object();
  return value && value->is_object() ? *value : k_empty;
}

const nlohmann::json& JsonAccess<nlohmann::json>::array_or_empty(const nlohmann::json* value) {
  static const nlohmann::json k_empty = nlohmann::json::array();
  return value && value->is_array() ? *value : k_empty;
}

} // namespace json_read

namespace json_fields {

using Access = json_read::JsonAccess<nlohmann::json>;

const nlohmann::json* field(const nlohmann::json& object, std::string_view key) { return json_read::field(object, key); }
std::string scalar_text(const nlohmann::json& value) { return Access::text(value); }
std::string string_at(const nlohmann::json& object, std::string_view key) { return json_read::string_at(object, key); }
long long int_at(const nlohmann::json& object, std::string_view key, long long fallback) {
  return json_read::int_at(object, key, fallback);
}
bool bool_at(const nlohmann::json& object, std::string_view key, bool fallback) {
  return json_read::bool_at(object, key, fallback);
}
StringMap string_map_at(const nlohmann::json& object, std::string_view key) {
  return json_read::string_map_at(object, key);
}
std::vector<std::string> strings_at(const nlohmann::json& object, std::string_view key) {
  return json_read::strings_at(object, key);
}
const nlohmann::json& object_at(const nlohmann::json& object, std::string_view key) {
  return json_read::object_at(object, key);
}
const nlohmann::json& array_at(const nlohmann::json& object, std::string_view key) {
  return json_read::array_at(object, key);
}

void put_string(nlohmann::json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

void put_map(nlohmann::json& object, const char* key, const StringMap& map) {
  if (map.empty()) return;
  nlohmann::json& out = object[key];
  for (const auto& [k, v] : map) out[k] = v;
}

} // namespace json_fields
} // namespace gpuslice::model
