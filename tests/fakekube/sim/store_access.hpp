// SPDX-License-Identifier: Apache-2.0
// How controllers read and write the store: through the API layer's own write paths
// (create_core, finish_update, remove_now), so resourceVersions, generation, managedFields and
// watch events behave as for a client, while nothing lands in the server's request log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../api_state.hpp"

namespace fakekube::sim {

// A resource the simulation touches, by group/version/plural.
struct Kind {
  const char* group;
  const char* version;
  const char* plural;
};
inline constexpr Kind k_pods{"", "v1", "pods"};
inline constexpr Kind k_nodes{"", "v1", "nodes"};
inline constexpr Kind k_events{"", "v1", "events"};
inline constexpr Kind k_configmaps{"", "v1", "configmaps"};
inline constexpr Kind k_daemonsets{"apps", "v1", "daemonsets"};
inline constexpr Kind k_deployments{"apps", "v1", "deployments"};
inline constexpr Kind k_replicasets{"apps", "v1", "replicasets"};
inline constexpr Kind k_clusterpolicies{"nvidia.com", "v1", "clusterpolicies"};

// The controller writes go through these with `manager` as the field manager.
class StoreAccess {
public:
  StoreAccess(ApiState& state) : m_state(state) {}

  // Every stored object of the kind (all namespaces), parsed; empty when the kind is unknown.
  std::vector<nlohmann::json> list(const Kind& kind) const;
  std::optional<nlohmann::json> get(const Kind& kind, const std::string& ns,
                                    const std::string& name) const;
  // Creates (generateName works); returns the stored object, nullopt when the API refused.
  std::optional<nlohmann::json> create(const Kind& kind, nlohmann::json object,
                                       const std::string& manager);
  // Writes the main resource (status ignored) or, with status=true, only the status.
  // A no-op write changes nothing. Returns false when the API refused (e.g. the object is gone).
  bool update(const Kind& kind, const nlohmann::json& object, const std::string& manager,
              bool status = false);
  // Deletes now (dependents cascade as in the API's delete). False when not found.
  bool remove(const Kind& kind, const std::string& ns, const std::string& name);

private:
  const ResourceInfo* info(const Kind& kind) const;
  ApiState& m_state;
};

} // namespace fakekube::sim
