// SPDX-License-Identifier: Apache-2.0
#include "writes.hpp"

#include "defaults.hpp"
#include "object_meta.hpp"
#include "read.hpp"
#include "status_errors.hpp"

namespace fakekube {
namespace {

using nlohmann::json;

// The object without what changes on every write, for no-op detection.
json comparable(json object) {
  object["metadata"].erase("resourceVersion");
  object["metadata"].erase("managedFields");
  return object;
}

} // namespace

json finish_update(ApiState& state, const Target& target, const StoredObject& old, json desired,
                   const WriteOptions& options) {
  const ResourceInfo& info = *target.info;
  if (!desired.is_object()) {
    throw bad_request("the body of the request must be a JSON or YAML object");
  }
  const json before = old.parse();
  if (!desired.contains("metadata") || !desired["metadata"].is_object()) {
    desired["metadata"] = json::object();
  }
  json& metadata = desired["metadata"];
  const std::string rv = metadata.value("resourceVersion", std::string());
  if (!rv.empty() && rv != std::to_string(old.resource_version)) {
    throw conflict(info, target.name);
  }
  const std::string name = metadata.value("name", target.name);
  if (name != target.name) {
    throw bad_request("the name of the object (" + name +
                      ") does not match the name on the URL (" + target.name + ")");
  }
  if (state.faults.conflict_on_first_update && state.updated_once.insert(old.uid).second) {
    throw conflict(info, target.name);
  }
  const std::string api_version = desired.value("apiVersion", info.api_version());
  if (api_version != info.api_version()) {
    throw bad_request("the API version in the data (" + api_version +
                      ") does not match the expected API version (" + info.api_version() + ")");
  }
  json after;
  if (target.subresource == "status") {
    after = before; // a /status write changes status and nothing else
    if (desired.contains("status")) {
      after["status"] = desired["status"];
    } else {
      after.erase("status");
    }
  } else {
    after = std::move(desired);
    for (const char* key : {"uid", "creationTimestamp", "deletionTimestamp", "generation",
                            "deletionGracePeriodSeconds", "managedFields"}) {
      if (options.managed_fields_done && std::string(key) == "managedFields") {
        continue; // server-side apply computed them
      }
      if (before["metadata"].contains(key)) {
        after["metadata"][key] = before["metadata"][key];
      } else {
        after["metadata"].erase(key);
      }
    }
    after["metadata"]["name"] = target.name;
    if (info.namespaced) {
      after["metadata"]["namespace"] = target.ns;
    } else {
      after["metadata"].erase("namespace");
    }
    after["apiVersion"] = info.api_version();
    after["kind"] = info.kind;
    if (info.has_subresource("status")) {
      if (before.contains("status")) {
        after["status"] = before["status"]; // main-resource writes ignore status
      } else {
        after.erase("status");
      }
    }
    update_generation(info, before, after);
  }
  apply_server_status(info, after);
  after["metadata"]["resourceVersion"] = std::to_string(old.resource_version);
  if (comparable(after) == comparable(before)) {
    return before; // a no-op write keeps the resourceVersion and sends no event
  }
  if (!options.managed_fields_done) {
    const bool with_status = target.subresource == "status" || !info.has_subresource("status");
    record_managed_fields(after, options.manager, options.operation, info.api_version(),
                          target.subresource, changed_fields(before, after, with_status), false);
  }
  if (options.dry_run) {
    return after;
  }
  if (after["metadata"].contains("deletionTimestamp") &&
      after["metadata"].value("finalizers", json::array()).empty()) {
    // The last finalizer is gone: the pending deletion completes.
    StoredObject last = old;
    last.bytes = std::make_shared<const std::string>(after.dump());
    remove_now(state, info, last, false);
    return after;
  }
  if (info.plural == "customresourcedefinitions" && !info.custom) {
    state.resources.register_crd(after);
  }
  return commit(state, info, std::move(after));
}

ApiResponse update_object(ApiState& state, const ApiRequest& request, const Target& target) {
  if (target.name.empty()) {
    throw method_not_allowed();
  }
  WriteOptions options;
  options.dry_run = is_dry_run(request);
  options.manager = request_manager(request);
  json desired = parse_body(request);
  const StoredObject& old = find_or_404(state, target);
  if (target.subresource == "scale") {
    // A Scale carries only spec.replicas; it lands on the workload's spec.
    json workload = old.parse();
    const std::string rv =
        desired.value("metadata", json::object()).value("resourceVersion", std::string());
    workload["metadata"]["resourceVersion"] = rv;
    workload["spec"]["replicas"] = desired.value("spec", json::object()).value("replicas", 0);
    Target main = target;
    main.subresource.clear();
    const json result = finish_update(state, main, old, workload, options);
    return json_response(200, scale_of(result).dump());
  }
  const json result = finish_update(state, target, old, std::move(desired), options);
  return json_response(200, result.dump());
}

} // namespace fakekube
