// SPDX-License-Identifier: Apache-2.0
// What the API layer's handlers share: the resource table, the store, faults, and the parsed
// request target. Every handler runs under Api's lock.
#pragma once

#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

#include "resources.hpp"
#include "store.hpp"

namespace fakekube {

class WatchHub;

struct ApiState {
  ResourceTable resources;
  Store store;
  ApiFaults faults;
  std::string git_version = "v1.30.4";
  std::set<std::string> updated_once; // uids already given their first-update Conflict
  std::shared_ptr<WatchHub> hub;
};

// What a resource path names.
struct Target {
  const ResourceInfo* info = nullptr;
  std::string ns;
  std::string name;
  std::string subresource;
};

// The first value of query parameter `key`, if present.
std::optional<std::string> query_value(const ApiRequest& request, const std::string& key);
// True for ?dryRun=All; throws 400 for any other dryRun value.
bool is_dry_run(const ApiRequest& request);
// The request body as JSON (JSON or YAML by content type); throws 400 naming the problem.
nlohmann::json parse_body(const ApiRequest& request);
// A JSON response with `body`.
ApiResponse json_response(int status, std::string body);
// Stamps the next resourceVersion on `object`, indexes and stores it (ADDED or MODIFIED).
nlohmann::json commit(ApiState& state, const ResourceInfo& info, nlohmann::json object);
// The stored object at target, or throws 404 NotFound.
const StoredObject& find_or_404(const ApiState& state, const Target& target);
// Throws 404 `namespaces "x" not found` when a namespaced target's namespace does not exist.
void require_namespace(const ApiState& state, const Target& target);

} // namespace fakekube
