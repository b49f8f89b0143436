// SPDX-License-Identifier: Apache-2.0
// Lenient field readers for API JSON: a missing, null or wrong-typed field reads as the
// default, so one odd field never sinks a whole object (unknown fields are simply not read).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/model/labels.hpp>

namespace gpuslice::model::json_fields {

// The member `key` of `object`, or nullptr when `object` is not an object or the member is absent/null.
const nlohmann::json* field(const nlohmann::json& object, std::string_view key);
// Member as text: strings as-is, numbers and booleans as JSON writes them, else "".
std::string string_at(const nlohmann::json& object, std::string_view key);
// Member as an integer: numbers, or strings that are whole decimal integers; else `fallback`.
long long int_at(const nlohmann::json& object, std::string_view key, long long fallback = 0);
// Member as a boolean: true/false, or the strings "true"/"false"; else `fallback`.
bool bool_at(const nlohmann::json& object, std::string_view key, bool fallback = false);
// Member as a string map (labels, annotations, data); non-string values converted to text.
StringMap string_map_at(const nlohmann::json& object, std::string_view key);
// Member as a list of strings (non-string entries converted to text).
std::vector<std::string> strings_at(const nlohmann::json& object, std::string_view key);
// Member if it is an object, else a shared empty object.
const nlohmann::json& object_at(const nlohmann::json& object, std::string_view key);
// Member if it is an array, else a shared empty array.
const nlohmann::json& array_at(const nlohmann::json& object, std::string_view key);
// Scalar as text (the conversion string_at applies).
std::string scalar_text(const nlohmann::json& value);

// Writers that leave defaults out, so to_json output stays as small as the API's.
void put_string(nlohmann::json& object, const char* key, const std::string& value);
void put_map(nlohmann::json& object, const char* key, const StringMap& map);

} // namespace gpuslice::model::json_fields
