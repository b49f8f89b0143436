// SPDX-License-Identifier: Apache-2.0
// The lenient field readers of json_fields, written once over any JSON document type, so the
// typed records can be decoded from nlohmann values or straight from simdjson's DOM with the
// same rules. A document type plugs in by specialising JsonAccess (see the nlohmann one below
// and collect/simdjson_access.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/model/labels.hpp>

namespace gpuslice::model::json_read {

// Per document type J:
//   Member member(const J& object, key)  pointer-like; false when not an object, absent or null
//                                        (the last of duplicate keys wins, as in nlohmann)
//   bool is_object(const J&), is_array(const J&)
//   std::string text(const J&)           strings as-is, numbers and booleans as nlohmann writes them, else ""
//   std::optional<long long> integer(const J&), std::optional<bool> boolean(const J&)
//   object_or_empty(Member), array_or_empty(Member)   the member, or an empty one of that type
//   for_each_member(const J& object, f(std::string_view key, const J& value))
template <class J> struct JsonAccess;

template <class J> auto field(const J& object, std::string_view key) { return JsonAccess<J>::member(object, key); }
template <class J> bool is_object(const J& value) { return JsonAccess<J>::is_object(value); }
template <class J> bool is_array(const J& value) { return JsonAccess<J>::is_array(value); }

template <class J> decltype(auto) object_at(const J& object, std::string_view key) {
  return JsonAccess<J>::object_or_empty(field(object, key));
}
template <class J> decltype(auto) array_at(const J& object, std::string_view key) {
  return JsonAccess<J>::array_or_empty(field(object, key));
}

template <class J> std::string string_at(const J& object, std::string_view key) {
  auto value = field(object, key);
  return value ? JsonAccess<J>::text(*value) : std::string{};
}

template <class J> long long int_at(const J& object, std::string_view key, long long fallback = 0) {
  auto value = field(object, key);
  return value ? JsonAccess<J>::integer(*value).value_or(fallback) : fallback;
}

template <class J> bool bool_at(const J& object, std::string_view key, bool fallback = false) {
  auto value = field(object, key);
  return value ? JsonAccess<J>::boolean(*value).value_or(fallback) : fallback;
}

template <class J> StringMap string_map_at(const J& object, std::string_view key) {
  StringMap result;
  auto map = field(object, key);
  if (!map || !is_object(*map)) return result;
  JsonAccess<J>::for_each_member(*map, [&](std::string_view name, const J& value) {
    result.insert_or_assign(name, JsonAccess<J>::text(value));
  });
  result.shrink_to_fit();
  return result;
}

template <class J> std::vector<std::string> strings_at(const J& object, std::string_view key) {
  std::vector<std::string> result;
  const auto& items = array_at(object, key);
  result.reserve(items.size());
  for (const auto& item : items) result.push_back(JsonAccess<J>::text(item));
  return result;
}

// The smallest key of an object (nlohmann keeps keys sorted: its first); "" when empty.
template <class J> std::string smallest_key(const J& object) {
  std::optional<std::string_view> smallest;
  JsonAccess<J>::for_each_member(object, [&](std::string_view name, const J&) {
    if (!smallest || name < *smallest) smallest = name;
  });
  return smallest ? std::string(*smallest) : std::string{};
}

// Whole decimal integer text, as int_at reads strings.
std::optional<long long> integer_text(std::string_view text);

template <> struct JsonAccess<nlohmann::json> {
  using Member = const nlohmann::json*;
  static Member member(const nlohmann::json& object, std::string_view key);
  static bool is_object(const nlohmann::json& value) { return value.is_object(); }
  static bool is_array(const nlohmann::json& value) { return value.is_array(); }
  static std::string text(const nlohmann::json& value);
  static std::optional<long long> integer(const nlohmann::json& value);
  static std::optional<bool> boolean(const nlohmann::json& value);
  static const nlohmann::json& object_or_empty(Member value);
  static const nlohmann::json& array_or_empty(Member value);
  template <class F> static void for_each_member(const nlohmann::json& object, F&& f) {
    for (auto it = object.begin(); it != object.end(); ++it) f(std::string_view(it.key()), it.value());
  }
};

} // namespace gpuslice::model::json_read
