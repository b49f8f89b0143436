// SPDX-License-Identifier: Apache-2.0
#include "store.hpp"

namespace fakekube {
namespace {

// Like the watch cache's capacity: enough for tests and controllers, bounded at scale.
constexpr std::size_t k_history_capacity = 10000;

} // namespace

std::string resource_key(const std::string& group, const std::string& plural) {
  return group + "/" + plural;
}

std::string object_key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

const StoredObject* Store::get(const std::string& key, const std::string& ns,
                               const std::string& name) const {
  auto resource = m_resources.find(key);
  if (resource == m_resources.end()) {
    return nullptr;
  }
  auto it = resource->second.find(object_key(ns, name));
  return it == resource->second.end() ? nullptr : &it->second;
}

void Store::put(const std::string& key, StoredObject object) {
  Objects& objects = m_resources[key];
  const std::string id = object_key(object.ns, object.name);
  auto it = objects.find(id);
  const bool existed = it != objects.end();
  std::shared_ptr<const StoredObject> previous;
  if (existed) {
    previous = std::make_shared<const StoredObject>(std::move(it->second));
    it->second = object;
  } else {
    objects.emplace(id, object);
  }
  record({existed ? "MODIFIED" : "ADDED", key, std::move(object), std::move(previous)});
}

void Store::remove(const std::string& key, StoredObject last_state) {
  auto resource = m_resources.find(key);
  if (resource != m_resources.end()) {
    resource->second.erase(object_key(last_state.ns, last_state.name));
  }
  record({"DELETED", key, std::move(last_state), nullptr});
}

const Store::Objects& Store::objects(const std::string& key) const {
  static const Objects k_empty;
  auto resource = m_resources.find(key);
  return resource == m_resources.end() ? k_empty : resource->second;
}

std::vector<ChangeEvent> Store::events_after(std::uint64_t after) const {
  std::vector<ChangeEvent> result;
  for (auto it = m_history.rbegin(); it != m_history.rend(); ++it) {
    if (it->object.resource_version <= after) {
      break;
    }
    result.push_back(*it);
  }
  return {result.rbegin(), result.rend()};
}

std::uint64_t Store::oldest_watchable() const { return m_history_floor; }

void Store::add_listener(std::function<void(const ChangeEvent&)> listener) {
  m_listeners.push_back(std::move(listener));
}

void Store::record(ChangeEvent event) {
  for (const auto& listener : m_listeners) {
    listener(event);
  }
  m_history.push_back(std::move(event));
  if (m_history.size() > k_history_capacity) {
    m_history_floor = m_history.front().object.resource_version;
    m_history.pop_front();
  }
}

} // namespace fakekube
