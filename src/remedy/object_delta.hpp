// SPDX-License-Identifier: Apache-2.0
// What a write changed in an object, as a list of field deltas, so undo can check that those
// fields still hold what the write set and revert only them (a three-way merge).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuslice::remedy {

// One changed field. Objects are compared key by key; arrays as sets of items (added/removed),
// since the lists a step touches (taints, tolerations) are sets in meaning.
struct FieldDelta {
  nlohmann::json::json_pointer path;
  bool is_array = false;
  bool had_before = false;       // scalar/object: the field existed before
  bool has_after = false;        // scalar/object: the field exists after
  nlohmann::json before;         // scalar/object value before
  nlohmann::json after;          // scalar/object value after
  std::vector<nlohmann::json> added;   // array: items the write added
  std::vector<nlohmann::json> removed; // array: items the write removed
};

// The object without what the server changes on its own: resourceVersion, managedFields,
// generation, creationTimestamp, uid, status, and the controllers' revision annotations.
nlohmann::json comparable(const nlohmann::json& object);

// The deltas that turn `before` into `after` (both passed through comparable()).
std::vector<FieldDelta> object_deltas(const nlohmann::json& before, const nlohmann::json& after);

// Whether `current` still holds what the delta wrote (after side) / what it replaced (before side).
bool holds_after(const FieldDelta& delta, const nlohmann::json& current);
bool holds_before(const FieldDelta& delta, const nlohmann::json& current);

// `current` with the delta reverted: the field set back (or removed), added items removed and
// removed items put back.
void revert(const FieldDelta& delta, nlohmann::json& current);

// "metadata.labels.nvidia.com~1gpu.present" style text of a path, for messages.
std::string path_text(const nlohmann::json::json_pointer& path);

} // namespace gpuslice::remedy
