// SPDX-License-Identifier: Apache-2.0
#include "patch_strategic.hpp"

#include <algorithm>
#include <stdexcept>

#include "fieldset.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

// Lists of scalars that SMP merges as sets instead of replacing.
bool primitive_merge_list(const std::string& field) { return field == "finalizers"; }

json strip_directives(json value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (!it.key().empty() && it.key()[0] == '$') {
        it = value.erase(it);
      } else {
        *it = strip_directives(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    json out = json::array();
    for (json& item : value) {
      if (item.is_object() && item.value("$patch", std::string()) == "delete") {
        continue;
      }
      out.push_back(strip_directives(item));
    }
    return out;
  }
  return value;
}

void merge_map(json& target, const json& patch);

void merge_keyed_list(json& target, const json& patch, const std::string& key) {
  for (const json& item : patch) {
    if (!item.is_object()) {
      throw std::invalid_argument("list item without merge key \"" + key + "\"");
    }
    const std::string directive = item.value("$patch", std::string());
    if (directive == "replace") {
      json rest = json::array();
      for (const json& other : patch) {
        if (&other != &item) {
          rest.push_back(strip_directives(other));
        }
      }
      target = rest;
      return;
    }
    if (!item.contains(key)) {
      throw std::invalid_argument("map: " + item.dump() + " does not contain declared merge key: " +
                                  key);
    }
    auto found = std::find_if(target.begin(), target.end(), [&](const json& existing) {
      return existing.is_object() && existing.contains(key) && existing[key] == item[key];
    });
    if (directive == "delete") {
      if (found != target.end()) {
        target.erase(found);
      }
    } else if (found != target.end()) {
      merge_map(*found, item);
    } else {
      target.push_back(strip_directives(item));
    }
  }
}

void merge_map(json& target, const json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) {
    target = json::object();
  }
  const std::string directive = patch.value("$patch", std::string());
  if (directive == "replace") {
    target = strip_directives(patch);
    return;
  }
  if (directive == "delete") {
    target = json::object();
    return;
  }
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      const std::string field = key.substr(std::string("$deleteFromPrimitiveList/").size());
      if (target.contains(field) && target[field].is_array() && it->is_array()) {
        json kept = json::array();
        for (const json& value : target[field]) {
          if (std::find(it->begin(), it->end(), value) == it->end()) {
            kept.push_back(value);
          }
        }
        target[field] = kept;
      }
      continue;
    }
    if (!key.empty() && key[0] == '$') {
      continue; // $setElementOrder, $retainKeys (below), $patch: no content of their own
    }
    if (it->is_null()) {
      target.erase(key);
    } else if (it->is_object() && target.contains(key) && target[key].is_object()) {
      merge_map(target[key], *it);
    } else if (it->is_array() && target.contains(key) && target[key].is_array() &&
               list_merge_key(key)) {
      merge_keyed_list(target[key], *it, *list_merge_key(key));
    } else if (it->is_array() && target.contains(key) && target[key].is_array() &&
               primitive_merge_list(key)) {
      for (const json& value : *it) {
        if (std::find(target[key].begin(), target[key].end(), value) == target[key].end()) {
          target[key].push_back(value);
        }
      }
    } else {
      target[key] = strip_directives(*it);
    }
  }
  if (patch.contains("$retainKeys")) {
    const json& retain = patch["$retainKeys"];
    if (!retain.is_array()) {
      throw std::invalid_argument("$retainKeys must be a list of strings");
    }
    for (auto it = target.begin(); it != target.end();) {
      if (std::find(retain.begin(), retain.end(), it.key()) == retain.end()) {
        it = target.erase(it);
      } else {
        ++it;
      }
    }
  }
}

} // namespace

json strategic_merge(json original, const json& patch) {
  if (!patch.is_object()) {
    throw std::invalid_argument("a strategic merge patch must be a JSON object");
  }
  merge_map(original, patch);
  return original;
}

void apply_merge(json& live, const json& config) {
  if (!config.is_object() || !live.is_object()) {
    live = config;
    return;
  }
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_object() && live.contains(key) && live[key].is_object()) {
      apply_merge(live[key], *it);
    } else if (it->is_array() && live.contains(key) && live[key].is_array() && list_merge_key(key)) {
      const std::string merge_key = *list_merge_key(key);
      for (const json& item : *it) {
        auto found = std::find_if(live[key].begin(), live[key].end(), [&](const json& existing) {
          return item.is_object() && existing.is_object() && item.contains(merge_key) &&
                 existing.contains(merge_key) && existing[merge_key] == item[merge_key];
        });
        if (found != live[key].end()) {
          apply_merge(*found, item);
        } else {
          live[key].push_back(item);
        }
      }
    } else {
      live[key] = *it;
    }
  }
}

} // namespace fakekube
