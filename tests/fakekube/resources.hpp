// SPDX-License-Identifier: Apache-2.0
// The resource table behind discovery and routing: built-in kinds plus CRD-registered ones.
#pragma once

#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fakekube {

struct ResourceInfo {
  std::string group; // "" for core
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> subresources; // "status", "scale"
  bool custom = false;                   // CRD-served: SMP answers 415, items keep their type
  bool create_only = false;              // review kinds: only POST, nothing stored

  // "v1" or "apps/v1", as apiVersion says.
  std::string api_version() const;
  // "pods" or "deployments.apps", as Status messages say.
  std::string group_resource() const;
  bool has_subresource(const std::string& name) const;
};

// The set of served resources. Not thread-safe; Api serialises access.
class ResourceTable {
public:
  ResourceTable(); // the built-in kinds

  // The resource served at group/version/plural, if any.
  const ResourceInfo* find(const std::string& group, const std::string& version,
                           const std::string& plural) const;
  // The resource whose apiVersion and kind match, if any.
  const ResourceInfo* find_kind(const std::string& api_version, const std::string& kind) const;
  // Registers the versions a CustomResourceDefinition serves; throws std::invalid_argument
  // naming the CRD when its spec is unusable.
  void register_crd(const nlohmann::json& crd);
  // Removes what register_crd added for the CRD named `name` (plural.group).
  void unregister_crd(const std::string& name);
  // Serves the built-in kinds of `group` or withdraws them from the table (and discovery), as
  // a server whose version or feature gates leave the API off.
  void set_group_served(const std::string& group, bool served);

  const std::list<ResourceInfo>& all() const { return m_resources; }
  // Groups in discovery order with their versions (preferred first).
  std::vector<std::pair<std::string, std::vector<std::string>>> groups() const;

private:
  std::list<ResourceInfo> m_withdrawn; // built-in kinds of groups set_group_served turned off
  std::list<ResourceInfo> m_resources; // a list: Targets keep pointers across CRD registration
};

} // namespace fakekube
