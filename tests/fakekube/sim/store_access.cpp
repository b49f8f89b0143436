// SPDX-License-Identifier: Apache-2.0
#include "store_access.hpp"

#include <string_view>

#include "../status_errors.hpp"
#include "../writes.hpp"

namespace fakekube::sim {

using nlohmann::json;

const ResourceInfo* StoreAccess::info(const Kind& kind) const {
  return m_state.resources.find(kind.group, kind.version, kind.plural);
}

std::vector<json> StoreAccess::list(const Kind& kind) const {
  std::vector<json> out;
  const ResourceInfo* resource = info(kind);
  if (resource == nullptr) return out;
  const bool is_pod = std::string_view(kind.plural) == "pods";
  for (const auto& [key, stored] : m_state.store.objects(resource_key(kind.group, kind.plural))) {
    json object = stored.parse();
    // A pod without a spec object is one the API would have refused; no controller handles it.
    if (is_pod && !(object.contains("spec") && object["spec"].is_object())) continue;
    out.push_back(std::move(object));
  }
  return out;
}

std::optional<json> StoreAccess::get(const Kind& kind, const std::string& ns,
                                     const std::string& name) const {
  const StoredObject* stored = m_state.store.get(resource_key(kind.group, kind.plural), ns, name);
  if (stored == nullptr) return std::nullopt;
  return stored->parse();
}

std::optional<json> StoreAccess::create(const Kind& kind, json object, const std::string& manager) {
  const ResourceInfo* resource = info(kind);
  if (resource == nullptr) return std::nullopt;
  WriteOptions options;
  options.manager = manager;
  const std::string ns =
      resource->namespaced ? object["metadata"].value("namespace", std::string("default")) : "";
  try {
    return create_core(m_state, *resource, ns, std::move(object), options);
  } catch (const StatusError&) {
    return std::nullopt; // a controller retries on its next tick, as real ones requeue
  }
}

bool StoreAccess::update(const Kind& kind, const json& object, const std::string& manager,
                         bool status) {
  const ResourceInfo* resource = info(kind);
  if (resource == nullptr) return false;
  const json& metadata = object.at("metadata");
  Target target{resource, resource->namespaced ? metadata.value("namespace", std::string()) : "",
                metadata.value("name", std::string()), status ? "status" : ""};
  const StoredObject* old = m_state.store.get(resource_key(kind.group, kind.plural), target.ns,
                                              target.name);
  if (old == nullptr) return false;
  json desired = object;
  desired["metadata"].erase("resourceVersion"); // we hold the lock: last write wins
  WriteOptions options;
  options.manager = manager;
  try {
    finish_update(m_state, target, *old, std::move(desired), options);
    return true;
  } catch (const StatusError&) {
    return false;
  }
}

bool StoreAccess::remove(const Kind& kind, const std::string& ns, const std::string& name) {
  const ResourceInfo* resource = info(kind);
  if (resource == nullptr) return false;
  const StoredObject* stored = m_state.store.get(resource_key(kind.group, kind.plural), ns, name);
  if (stored == nullptr) return false;
  const StoredObject copy = *stored;
  remove_now(m_state, *resource, copy, false);
  return true;
}

} // namespace fakekube::sim
