// SPDX-License-Identifier: Apache-2.0
// Objects per resource, kept as serialized JSON plus an index of what selectors and paging
// need, so that lists of 150,000 pods never parse an object they do not return.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
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

// One resource's objects by the value of one field-selector field, as the API server's watch
// cache indexes pods by spec.nodeName (pkg/registry/core/pod: NodeNameIndexFunc), so that a list
// pinned to one node touches that node's pods only. Holds pointers into the Store's map, whose
// nodes never move; the Store keeps it in step with every put and remove.
class FieldIndex {
public:
  using Entry = std::pair<const std::string, StoredObject>; // a Store::Objects element
  struct ByKey {
    using is_transparent = void;
    bool operator()(const Entry* a, const Entry* b) const { return a->first < b->first; }
    bool operator()(const Entry* a, const std::string& key) const { return a->first < key; }
    bool operator()(const std::string& key, const Entry* b) const { return key < b->first; }
  };
  using Entries = std::set<const Entry*, ByKey>; // sorted by object key, as paging needs

  explicit FieldIndex(std::string field) : m_field(std::move(field)) {}
  const std::string& field() const { return m_field; }
  // An object without the field is not indexed: an `=` requirement never selects it.
  void add(const Entry& entry);
  void remove(const Entry& entry);
  // The objects whose field has `value` (empty when none).
  const Entries& entries(const std::string& value) const;

private:
  std::string m_field;
  std::unordered_map<std::string, Entries> m_entries;
};

// Not thread-safe; Api serialises access.
class Store {
public:
  using Objects = std::map<std::string, StoredObject>;

  Store();
  // The index points into the objects' map: a copy would point into the original's.
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  Store(Store&&) = default;
  Store& operator=(Store&&) = default;

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
  // The objects of a resource whose `field` is `value`, or null when that field is not indexed.
  const FieldIndex::Entries* indexed(const std::string& key, const std::string& field,
                                     const std::string& value) const;

  // Events with resourceVersion greater than `after`, oldest first.
  std::vector<ChangeEvent> events_after(std::uint64_t after) const;
  // The oldest resourceVersion a watch may still start from.
  std::uint64_t oldest_watchable() const;
  // Called after every write, under the Api lock.
  void add_listener(std::function<void(const ChangeEvent&)> listener);

private:
  void record(ChangeEvent event);
  FieldIndex* index_of(const std::string& key);

  std::map<std::string, Objects> m_resources;
  std::map<std::string, FieldIndex> m_indexes; // by resource key
  std::uint64_t m_resource_version = 0;
  std::deque<ChangeEvent> m_history;
  std::uint64_t m_history_floor = 0; // writes at or before this RV are no longer in history
  std::vector<std::function<void(const ChangeEvent&)>> m_listeners;
};

} // namespace fakekube
