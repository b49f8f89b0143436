// SPDX-License-Identifier: Apache-2.0
// managedFields' FieldsV1 sets ({"f:spec":{"f:replicas":{}}}) as sets of paths, and the list
// merge keys shared by strategic merge patch and server-side apply.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

// One field: path elements like "f:spec", "k:{\"name\":\"c\"}".
using FieldPath = std::vector<std::string>;
using FieldSet = std::set<FieldPath>;

// The merge key of a list field as the built-in types declare it (containers by name,
// conditions by type, ...); nullopt for atomic lists such as taints and tolerations.
std::optional<std::string> list_merge_key(const std::string& field);

// Every leaf field an object sets, minus what the server owns (name, uid, status when
// `with_status` is false, ...).
FieldSet fields_of(const nlohmann::json& object, bool with_status);
// The fields whose value differs between `before` and `after` (set, changed or removed).
FieldSet changed_fields(const nlohmann::json& before, const nlohmann::json& after,
                        bool with_status);
nlohmann::json to_fields_v1(const FieldSet& set);
FieldSet from_fields_v1(const nlohmann::json& tree);
// ".spec.containers[name=\"c\"].image", as SSA conflict messages print a path.
std::string path_text(const FieldPath& path);
// The value at `path`, or nullptr.
const nlohmann::json* value_at(const nlohmann::json& object, const FieldPath& path);
// Removes the field at `path` if present.
void erase_at(nlohmann::json& object, const FieldPath& path);

} // namespace fakekube
