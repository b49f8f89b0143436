// SPDX-License-Identifier: Apache-2.0
#include "store.hpp"

namespace fakekube {
namespace {

// Like the watch cache's capacity: enough for tests and controllers, bounded at scale.
constexpr std::size_t k_history_capacity = 10000;

} // namespace

void FieldIndex::add(const Entry& entry) {
  auto value = entry.second.fields.find(m_field);
  if (value != entry.second.fields.end()) {
    m_entries[value->second].insert(&entry);
  }
}

void FieldIndex::remove(const Entry& entry) {
  auto value = entry.second.fields.find(m_field);
  if (value == entry.second.fields.end()) {
    return;
  }
  auto bucket = m_entries.find(value->second);
  if (bucket != m_entries.end()) {
    bucket->second.erase(&entry);
    if (bucket->second.empty()) {
      m_entries.erase(bucket);
    }
  }
}

const FieldIndex::Entries& FieldIndex::entries(const std::string& value) const {
  static const Entries k_none;
  auto bucket = m_entries.find(value);
  return bucket == m_entries.end() ? k_none : bucket->second;
}

// The one index the real API server's watch cache keeps for a core resource: kubelets list their
// own pods with fieldSelector=spec.nodeName=<node>.
Store::Store() { m_indexes.emplace("/pods", FieldIndex("spec.nodeName")); }

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
  FieldIndex* index = index_of(key);
  if (existed) {
    if (index != nullptr) {
      index->remove(*it); // before the move: the old field values say where it was indexed
    }
    previous = std::make_shared<const StoredObject>(std::move(it->second));
    it->second = object;
  } else {
    it = objects.emplace(id, object).first;
  }
  if (index != nullptr) {
    index->add(*it);
  }
  record({existed ? "MODIFIED" : "ADDED", key, std::move(object), std::move(previous)});
}

void Store::remove(const std::string& key, StoredObject last_state) {
  auto resource = m_resources.find(key);
  if (resource != m_resources.end()) {
    auto it = resource->second.find(object_key(last_state.ns, last_state.name));
    if (it != resource->second.end()) {
      if (FieldIndex* index = index_of(key)) {
        index->remove(*it);
      }
      resource->second.erase(it);
    }
  }
  record({"DELETED", key, std::move(last_state), nullptr});
}

const Store::Objects& Store::objects(const std::string& key) const {
  static const Objects k_empty;
  auto resource = m_resources.find(key);
  return resource == m_resources.end() ? k_empty : resource->second;
}

const FieldIndex::Entries* Store::indexed(const std::string& key, const std::string& field,
                                          const std::string& value) const {
  auto index = m_indexes.find(key);
  if (index == m_indexes.end() || index->second.field() != field) {
    return nullptr;
  }
  return &index->second.entries(value);
}

FieldIndex* Store::index_of(const std::string& key) {
  auto index = m_indexes.find(key);
  return index == m_indexes.end() ? nullptr : &index->second;
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
