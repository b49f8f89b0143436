// SPDX-License-Identifier: Apache-2.0
// The mutating verbs: create (POST), update (PUT), delete and deletecollection, and the
// shared update path that patches and server-side apply end in.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

#include "api_state.hpp"
#include "fieldset.hpp"

namespace fakekube {

struct WriteOptions {
  std::string manager;              // managedFields manager
  std::string operation = "Update"; // or "Apply"
  bool dry_run = false;
  bool from_load = false; // Api::load: keep uid, timestamps and status as given, and replace
                          // an object that already exists (e.g. a bootstrap namespace)
  bool managed_fields_done = false; // apply.cpp already wrote managedFields
};

// Validates and stores a new object (or only answers, for dry runs); returns it as stored.
// Throws StatusError (AlreadyExists, Invalid, namespace NotFound, 500 for a set RV, ...).
nlohmann::json create_core(ApiState& state, const ResourceInfo& info, const std::string& path_ns,
                           nlohmann::json object, const WriteOptions& options);
// The update rules: resourceVersion precondition, status subresource, generation,
// managedFields, no-op detection, finalizer-completed deletion. Returns the result.
nlohmann::json finish_update(ApiState& state, const Target& target, const StoredObject& old,
                             nlohmann::json desired, const WriteOptions& options);
// Removes an object now (cascading to dependents unless `orphan`), as a DELETED event.
void remove_now(ApiState& state, const ResourceInfo& info, const StoredObject& stored,
                bool orphan);

ApiResponse create_object(ApiState& state, const ApiRequest& request, const Target& target);
ApiResponse update_object(ApiState& state, const ApiRequest& request, const Target& target);
ApiResponse delete_object(ApiState& state, const ApiRequest& request, const Target& target);
ApiResponse delete_collection(ApiState& state, const ApiRequest& request, const Target& target);
// The manager named by the request (?fieldManager or the User-Agent); 422 when too long.
std::string request_manager(const ApiRequest& request);

} // namespace fakekube
