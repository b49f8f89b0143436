// SPDX-License-Identifier: Apache-2.0
#include "remedy/object_delta.hpp"

#include <algorithm>

namespace gpuslice::remedy {

namespace {

bool contains_item(const nlohmann::json& array, const nlohmann::json& item) {
  return array.is_array() && std::find(array.begin(), array.end(), item) != array.end();
}

void collect_deltas(const nlohmann::json& before, const nlohmann::json& after,
                    const nlohmann::json::json_pointer& path, std::vector<FieldDelta>& out) {
  if (before == after) return;
  if (before.is_object() && after.is_object()) {
    for (const auto& [key, value] : before.items()) {
      collect_deltas(value, after.contains(key) ? after[key] : nlohmann::json(), path / key, out);
    }
    for (const auto& [key, value] : after.items()) {
      if (!before.contains(key)) collect_deltas(nlohmann::json(), value, path / key, out);
    }
    return;
  }
  FieldDelta delta;
  delta.path = path;
  if ((before.is_array() || before.is_null()) && (after.is_array() || after.is_null()) &&
      (before.is_array() || after.is_array())) {
    delta.is_array = true;
    delta.had_before = before.is_array();
    delta.has_after = after.is_array();
    if (after.is_array()) {
      for (const nlohmann::json& item : after) {
        if (!contains_item(before, item)) delta.added.push_back(item);
      }
    }
    if (before.is_array()) {
      for (const nlohmann::json& item : before) {
        if (!contains_item(after, item)) delta.removed.push_back(item);
      }
    }
    out.push_back(std::move(delta));
    return;
  }
  delta.had_before = !before.is_null();
  delta.has_after = !after.is_null();
  delta.before = before;
  delta.after = after;
  out.push_back(std::move(delta));
}

const nlohmann::json* delta_value_at(const nlohmann::json& object, const nlohmann::json::json_pointer& path) {
  return object.contains(path) ? &object.at(path) : nullptr;
}

} // namespace

nlohmann::json comparable(const nlohmann::json& object) {
  if (!object.is_object()) return object;
  nlohmann::json out = object;
  out.erase("status");
  if (out.contains("metadata") && out["metadata"].is_object()) {
    nlohmann::json& meta = out["metadata"];
    for (const char* key : {"resourceVersion", "managedFields", "generation", "creationTimestamp", "uid"}) {
      meta.erase(key);
    }
    if (meta.contains("annotations") && meta["annotations"].is_object()) {
      meta["annotations"].erase("deprecated.daemonset.template.generation");
      meta["annotations"].erase("deployment.kubernetes.io/revision");
      if (meta["annotations"].empty()) meta.erase("annotations");
    }
  }
  return out;
}

std::vector<FieldDelta> object_deltas(const nlohmann::json& before, const nlohmann::json& after) {
  std::vector<FieldDelta> out;
  collect_deltas(comparable(before), comparable(after), nlohmann::json::json_pointer(), out);
  return out;
}

bool holds_after(const FieldDelta& delta, const nlohmann::json& current) {
  const nlohmann::json* value = delta_value_at(current, delta.path);
  if (delta.is_array) {
    for (const nlohmann::json& item : delta.added) {
      if (value == nullptr || !contains_item(*value, item)) return false;
    }
    for (const nlohmann::json& item : delta.removed) {
      if (value != nullptr && contains_item(*value, item)) return false;
    }
    return true;
  }
  if (!delta.has_after) return value == nullptr || value->is_null();
  return value != nullptr && *value == delta.after;
}

bool holds_before(const FieldDelta& delta, const nlohmann::json& current) {
  const nlohmann::json* value = delta_value_at(current, delta.path);
  if (delta.is_array) {
    for (const nlohmann::json& item : delta.added) {
      if (value != nullptr && contains_item(*value, item)) return false;
    }
    for (const nlohmann::json& item : delta.removed) {
      if (value == nullptr || !contains_item(*value, item)) return false;
    }
    return true;
  }
  if (!delta.had_before) return value == nullptr || value->is_null();
  return value != nullptr && *value == delta.before;
}

void revert(const FieldDelta& delta, nlohmann::json& current) {
  if (delta.is_array) {
    nlohmann::json list = current.contains(delta.path) ? current.at(delta.path) : nlohmann::json::array();
    if (!list.is_array()) list = nlohmann::json::array();
    nlohmann::json kept = nlohmann::json::array();
    for (const nlohmann::json& item : list) {
      if (!contains_item(nlohmann::json(delta.added), item)) kept.push_back(item);
    }
    for (const nlohmann::json& item : delta.removed) {
      if (!contains_item(kept, item)) kept.push_back(item);
    }
    if (kept.empty() && !delta.had_before) {
      if (current.contains(delta.path)) current.at(delta.path.parent_pointer()).erase(delta.path.back());
    } else {
      current[delta.path] = kept;
    }
    return;
  }
  if (delta.had_before) {
    current[delta.path] = delta.before;
  } else if (current.contains(delta.path)) {
    current.at(delta.path.parent_pointer()).erase(delta.path.back());
  }
}

std::string path_text(const nlohmann::json::json_pointer& path) {
  return path.to_string();
}

} // namespace gpuslice::remedy
