// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/json_fields.hpp>

#include <charconv>

namespace gpuslice::model::json_fields {

const nlohmann::json* field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string scalar_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  // YAML input turns unquoted `true` or `4` into typed scalars; labels and data are text.
  if (value.is_number() || value.is_boolean()) return value.dump();
  return {};
}

std::string string_at(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* value = field(object, key);
  return value ? scalar_text(*value) : std::string{};
}

long long int_at(const nlohmann::json& object, std::string_view key, long long fallback) {
  const nlohmann::json* value = field(object, key);
  if (!value) return fallback;
  if (value->is_number_integer()) return value->get<long long>();
  if (value->is_number_float()) return static_cast<long long>(value->get<double>());
  if (value->is_string()) {
    const std::string& text = value->get_ref<const std::string&>();
    long long parsed = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error == std::errc{} && end == text.data() + text.size()) return parsed;
  }
  return fallback;
}

bool bool_at(const nlohmann::json& object, std::string_view key, bool fallback) {
  const nlohmann::json* value = field(object, key);
  if (!value) return fallback;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_string()) {
    if (*value == "true") return true;
    if (*value == "false") return false;
  }
  return fallback;
}

StringMap string_map_at(const nlohmann::json& object, std::string_view key) {
  StringMap result;
  const nlohmann::json* map = field(object, key);
  if (!map || !map->is_object()) return result;
  for (auto it = map->begin(); it != map->end(); ++it) result.emplace(it.key(), scalar_text(it.value()));
  return result;
}

std::vector<std::string> strings_at(const nlohmann::json& object, std::string_view key) {
  std::vector<std::string> result;
  for (const nlohmann::json& item : array_at(object, key)) result.push_back(scalar_text(item));
  return result;
}

const nlohmann::json& object_at(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json k_empty = nlohmann::json::object();
  const nlohmann::json* value = field(object, key);
  return value && value->is_object() ? *value : k_empty;
}

const nlohmann::json& array_at(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json k_empty = nlohmann::json::array();
  const nlohmann::json* value = field(object, key);
  return value && value->is_array() ? *value : k_empty;
}

void put_string(nlohmann::json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

void put_map(nlohmann::json& object, const char* key, const StringMap& map) {
  if (map.empty()) return;
  nlohmann::json& out = object[key];
  for (const auto& [k, v] : map) out[k] = v;
}

} // namespace gpuslice::model::json_fields
