// SPDX-License-Identifier: Apache-2.0
// Objects per resource, kept as serialized JSON plus an index of what selectors and paging
// need, so that lists of 150,000 pods never parse an object they do not return.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

struct StoredObject {
  std::shared_ptr<const std::string> bytes; // the object as JSON, kind and apiVersion included
  std::string ns;
  std::string name;
  std::string uid;
  std::uint64_t resource_version = 0;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> fields; // field-selector values, e.g. spec.nodeName
  std::vector<std::string> owner_uids;

  nlohmann::json parse() const { return nlohmann::json::parse(*bytes); }
};

// One write as a watcher sees it.
struct ChangeEvent {
  std::string type; // ADDED MODIFIED DELETED
  std::string resource_key;
  StoredObject object;
  std::shared_ptr<const StoredObject> previous; // the state before a MODIFIED, else null
};

// The key of a resource's storage, shared by all its versions: "<group>/<plural>".
std::string resource_key(const std::string& group, const std::string& plural);
// The key of an object inside its resource: "<ns>/<name>" or "<name>"; paging sorts by it.
std::string object_key(const std::string& ns, const std::string& name);

// Not thread-safe; Api serialises access.
class Store {
public:
  using Objects = std::map<std::string, StoredObject>;

  // The next value of the global resourceVersion counter (it is consumed).
  std::uint64_t next_resource_version() { return ++m_resource_version; }
  std::uint64_t current_resource_version() const { return m_resource_version; }

  const StoredObject* get(const std::string& key, const std::string& ns,
                          const std::string& name) const;
  // Inserts or replaces; records ADDED or MODIFIED for watchers.
  void put(const std::string& key, StoredObject object);
  // Removes; records DELETED with `last_state` (the object as deleted).
  void remove(const std::string& key, StoredObject last_state);
  // All objects of a resource, sorted by object key (empty when none).
  const Objects& objects(const std::string& key) const;

  // Events with resourceVersion greater than `after`, oldest first.
  std::vector<ChangeEvent> events_after(std::uint64_t after) const;
  // The oldest resourceVersion a watch may still start from.
  std::uint64_t oldest_watchable() const;
  // Called after every write, under the Api lock.
  void add_listener(std::function<void(const ChangeEvent&)> listener);

private:
  void record(ChangeEvent event);

  std::map<std::string, Objects> m_resources;
  std::uint64_t m_resource_version = 0;
  std::deque<ChangeEvent> m_history;
  std::uint64_t m_history_floor = 0; // writes at or before this RV are no longer in history
  std::vector<std::function<void(const ChangeEvent&)>> m_listeners;
};

} // namespace fakekube
