// SPDX-License-Identifier: Apache-2.0
// Server-side apply, simplified from structured-merge-diff: a manager's Apply entry owns the
// leaf fields of its last applied configuration; a field owned by another manager conflicts
// when the applied value differs from the live one; fields a manager stops applying are
// removed unless someone else owns them.
#include "patch.hpp"

#include <map>

#include "fieldset.hpp"
#include "object_meta.hpp"
#include "patch_strategic.hpp"
#include "status_errors.hpp"
#include "writes.hpp"
#include "yaml_json.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

struct Conflict {
  std::string manager; // as printManager prints it
  FieldPath path;
};

std::string print_manager(const json& entry) {
  std::string text = "\"" + entry.value("manager", std::string()) + "\"";
  if (!entry.value("subresource", std::string()).empty()) {
    text += " with subresource \"" + entry["subresource"].get<std::string>() + "\"";
  }
  if (entry.value("operation", std::string()) == "Update") {
    text += " using " + entry.value("apiVersion", std::string());
  }
  return text;
}

StatusError conflict_error(const std::vector<Conflict>& conflicts) {
  json causes = json::array();
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const Conflict& conflict : conflicts) {
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", "conflict with " + conflict.manager},
                      {"field", path_text(conflict.path)}});
    by_manager[conflict.manager].push_back(path_text(conflict.path));
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " +
              path_text(conflicts[0].path);
  } else {
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
    bool first = true;
    for (const auto& [manager, paths] : by_manager) {
      message += (first ? "" : "\n") + std::string("conflicts with ") + manager + ":";
      for (const std::string& path : paths) {
        message += "\n- " + path;
      }
      first = false;
    }
  }
  return StatusError(409, "Conflict", message, {{"causes", causes}});
}

json parse_config(const ApiRequest& request, const ResourceInfo& info, const Target& target) {
  json config;
  try {
    config = yaml_to_json(request.body);
  } catch (const std::exception& error) {
    throw bad_request(std::string("error decoding YAML: ") + error.what());
  }
  if (!config.is_object()) {
    throw bad_request("the applied configuration must be an object");
  }
  if (config.value("apiVersion", std::string()) != info.api_version() ||
      config.value("kind", std::string()) != info.kind) {
    throw bad_request("the applied configuration's apiVersion and kind (" +
                      config.value("apiVersion", std::string()) + ", " +
                      config.value("kind", std::string()) + ") must be " + info.api_version() +
                      ", " + info.kind);
  }
  const json metadata = config.value("metadata", json::object());
  if (metadata.value("name", target.name) != target.name) {
    throw bad_request("the name of the object (" + metadata.value("name", std::string()) +
                      ") does not match the name on the URL (" + target.name + ")");
  }
  return config;
}

} // namespace

ApiResponse apply_object(ApiState& state, const ApiRequest& request, const Target& target,
                         const std::string& manager, bool force, bool dry_run) {
  const ResourceInfo& info = *target.info;
  json config = parse_config(request, info, target);
  const bool with_status = target.subresource == "status" || !info.has_subresource("status");
  const FieldSet applied = fields_of(config, with_status);
  WriteOptions options;
  options.manager = manager;
  options.operation = "Apply";
  options.dry_run = dry_run;
  options.managed_fields_done = true;
  const StoredObject* existing =
      state.store.get(resource_key(info.group, info.plural), target.ns, target.name);
  if (existing == nullptr) {
    if (!target.subresource.empty()) {
      throw not_found(info.group, info.plural, target.name);
    }
    config["metadata"]["name"] = target.name;
    record_managed_fields(config, manager, "Apply", info.api_version(), "", applied, true);
    const json created = create_core(state, info, target.ns, config, options);
    return json_response(201, created.dump());
  }
  const StoredObject old = *existing;
  const json live = old.parse();
  json merged = live;
  apply_merge(merged, config);
  json entries = live["metadata"].value("managedFields", json::array());
  std::vector<Conflict> conflicts;
  FieldSet previous;
  FieldSet owned_by_others;
  for (json& entry : entries) {
    FieldSet owned = from_fields_v1(entry.value("fieldsV1", json::object()));
    const bool mine = entry.value("manager", std::string()) == manager &&
                      entry.value("operation", std::string()) == "Apply" &&
                      entry.value("subresource", std::string()) == target.subresource;
    if (mine) {
      previous = owned;
      continue;
    }
    FieldSet kept;
    for (const FieldPath& path : owned) {
      const json* now = value_at(live, path);
      const json* wanted = value_at(merged, path);
      const bool contested = applied.count(path) != 0 && now != nullptr && wanted != nullptr &&
                             *now != *wanted;
      if (contested && !force) {
        conflicts.push_back({print_manager(entry), path});
      }
      if (!(contested && force)) {
        kept.insert(path); // force takes the field away from its owner
        owned_by_others.insert(path);
      }
    }
    entry["fieldsV1"] = to_fields_v1(kept);
  }
  if (!conflicts.empty()) {
    throw conflict_error(conflicts);
  }
  for (const FieldPath& path : previous) {
    if (applied.count(path) == 0 && owned_by_others.count(path) == 0) {
      erase_at(merged, path); // no longer applied and nobody else's: removed
    }
  }
  json kept_entries = json::array();
  for (const json& entry : entries) {
    const bool mine = entry.value("manager", std::string()) == manager &&
                      entry.value("operation", std::string()) == "Apply" &&
                      entry.value("subresource", std::string()) == target.subresource;
    if (!mine && !entry["fieldsV1"].empty()) {
      kept_entries.push_back(entry);
    }
  }
  merged["metadata"]["managedFields"] = kept_entries;
  record_managed_fields(merged, manager, "Apply", info.api_version(), target.subresource,
                        applied, true);
  merged["metadata"]["resourceVersion"] =
      config.value("metadata", json::object()).value("resourceVersion", std::string());
  return json_response(200, finish_update(state, target, old, merged, options).dump());
}

} // namespace fakekube
