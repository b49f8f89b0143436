// SPDX-License-Identifier: Apache-2.0
#include "writes.hpp"

#include "list_query.hpp"
#include "object_meta.hpp"
#include "status_errors.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

struct DeleteOptions {
  std::string propagation = "Background";
  std::string precondition_uid;
  std::string precondition_rv;
  bool dry_run = false;
};

DeleteOptions parse_delete_options(const ApiRequest& request) {
  DeleteOptions options;
  options.dry_run = is_dry_run(request);
  json body = json::object();
  if (!request.body.empty()) {
    body = parse_body(request);
  }
  for (const json& value : body.value("dryRun", json::array())) {
    if (value != "All") {
      throw StatusError(400, "BadRequest",
                        "Invalid dry run value: " + value.dump() +
                            ": dryRun: Unsupported value: " + value.dump() +
                            ": supported values: \"All\"");
    }
    options.dry_run = true;
  }
  options.propagation = body.value(
      "propagationPolicy", query_value(request, "propagationPolicy").value_or("Background"));
  if (options.propagation != "Background" && options.propagation != "Foreground" &&
      options.propagation != "Orphan") {
    throw bad_request("propagationPolicy: Unsupported value: \"" + options.propagation +
                      "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
  }
  const json preconditions = body.value("preconditions", json::object());
  options.precondition_uid = preconditions.value("uid", std::string());
  options.precondition_rv = preconditions.value("resourceVersion", std::string());
  return options;
}

// Pods and service accounts answer a delete with the object; the rest with a Status.
bool returns_object(const ResourceInfo& info) {
  return info.group.empty() && (info.plural == "pods" || info.plural == "serviceaccounts");
}

json success_status(const ResourceInfo& info, const StoredObject& stored) {
  json details = {{"name", stored.name}, {"kind", info.plural}, {"uid", stored.uid}};
  if (!info.group.empty()) {
    details["group"] = info.group;
  }
  return {{"kind", "Status"},       {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Success"},    {"details", details}};
}

// Deletes one object under the options; returns the response body.
json delete_one(ApiState& state, const ResourceInfo& info, const StoredObject& stored,
                const DeleteOptions& options) {
  if (!options.precondition_uid.empty() && options.precondition_uid != stored.uid) {
    throw StatusError(409, "Conflict",
                      "Operation cannot be fulfilled on " + info.group_resource() + " \"" +
                          stored.name + "\": Precondition failed: UID in precondition: " +
                          options.precondition_uid + ", UID in object meta: " + stored.uid,
                      {{"name", stored.name}, {"group", info.group}, {"kind", info.plural}});
  }
  if (!options.precondition_rv.empty() &&
      options.precondition_rv != std::to_string(stored.resource_version)) {
    throw StatusError(409, "Conflict",
                      "Operation cannot be fulfilled on " + info.group_resource() + " \"" +
                          stored.name + "\": Precondition failed: ResourceVersion in "
                          "precondition: " + options.precondition_rv +
                          ", ResourceVersion in object meta: " +
                          std::to_string(stored.resource_version),
                      {{"name", stored.name}, {"group", info.group}, {"kind", info.plural}});
  }
  json object = stored.parse();
  const bool is_namespace = info.group.empty() && info.plural == "namespaces";
  const bool has_finalizers = !object["metadata"].value("finalizers", json::array()).empty();
  if (has_finalizers || is_namespace) {
    // Deletion is pending: the object stays, marked, until its finalizers are removed.
    // Namespaces are emptied at once, as the namespace controller would do.
    if (!object["metadata"].contains("deletionTimestamp")) {
      object["metadata"]["deletionTimestamp"] = timestamp_now();
      object["metadata"]["deletionGracePeriodSeconds"] = 0;
    }
    if (is_namespace) {
      object["status"]["phase"] = "Terminating";
    }
    if (options.dry_run) {
      return object;
    }
    if (is_namespace) {
      remove_now(state, info, stored, false);
      return object;
    }
    return commit(state, info, std::move(object));
  }
  json answer = returns_object(info) ? object : success_status(info, stored);
  if (!options.dry_run) {
    remove_now(state, info, stored, options.propagation == "Orphan");
  }
  return answer;
}

} // namespace

void remove_now(ApiState& state, const ResourceInfo& info, const StoredObject& stored,
                bool orphan) {
  StoredObject last = stored;
  json object = stored.parse();
  last.resource_version = state.store.next_resource_version();
  object["metadata"]["resourceVersion"] = std::to_string(last.resource_version);
  last.bytes = std::make_shared<const std::string>(object.dump());
  const std::string uid = stored.uid;
  const bool is_namespace = info.group.empty() && info.plural == "namespaces";
  const std::string ns_name = stored.name;
  state.store.remove(resource_key(info.group, info.plural), last);
  if (info.plural == "customresourcedefinitions" && !info.custom) {
    // The CRD's objects go with it, and its resources leave discovery.
    const json spec = object.value("spec", json::object());
    const std::string key = resource_key(spec.value("group", std::string()),
                                         spec.value("names", json::object()).value("plural", std::string()));
    std::vector<StoredObject> doomed;
    for (const auto& [id, candidate] : state.store.objects(key)) {
      doomed.push_back(candidate);
    }
    for (StoredObject& victim : doomed) {
      victim.resource_version = state.store.next_resource_version();
      state.store.remove(key, victim);
    }
    state.resources.unregister_crd(stored.name);
    return;
  }
  if (orphan && !is_namespace) {
    return;
  }
  // The garbage collector and the namespace controller, done synchronously.
  for (const ResourceInfo& other : state.resources.all()) {
    if (other.create_only) {
      continue;
    }
    const Store::Objects& objects = state.store.objects(resource_key(other.group, other.plural));
    std::vector<StoredObject> doomed;
    for (const auto& [key, candidate] : objects) {
      const bool owned = std::find(candidate.owner_uids.begin(), candidate.owner_uids.end(),
                                   uid) != candidate.owner_uids.end();
      const bool contained = is_namespace && other.namespaced && candidate.ns == ns_name;
      if (owned || contained) {
        doomed.push_back(candidate);
      }
    }
    for (const StoredObject& victim : doomed) {
      if (state.store.get(resource_key(other.group, other.plural), victim.ns, victim.name)) {
        remove_now(state, other, victim, false);
      }
    }
  }
}

ApiResponse delete_object(ApiState& state, const ApiRequest& request, const Target& target) {
  if (!target.subresource.empty()) {
    throw method_not_allowed();
  }
  const DeleteOptions options = parse_delete_options(request);
  const StoredObject stored = find_or_404(state, target);
  return json_response(200, delete_one(state, *target.info, stored, options).dump());
}

ApiResponse delete_collection(ApiState& state, const ApiRequest& request, const Target& target) {
  const DeleteOptions options = parse_delete_options(request);
  ListQuery query = parse_list_query(state, request, target);
  query.limit = 0;
  std::vector<StoredObject> matched;
  for (const StoredObject* stored : collect_page(state, target, query).items) {
    matched.push_back(*stored);
  }
  json items = json::array();
  for (const StoredObject& stored : matched) {
    delete_one(state, *target.info, stored, options);
    items.push_back(stored.parse());
  }
  const json list = {{"kind", target.info->kind + "List"},
                     {"apiVersion", target.info->api_version()},
                     {"metadata",
                      {{"resourceVersion", std::to_string(state.store.current_resource_version())}}},
                     {"items", items}};
  return json_response(200, list.dump());
}

} // namespace fakekube
