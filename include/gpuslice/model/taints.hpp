// SPDX-License-Identifier: Apache-2.0
// Taints and tolerations, matched exactly as the scheduler's TaintToleration plugin does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/word.hpp>

namespace gpuslice::model {

// A node taint; effect is NoSchedule, PreferNoSchedule or NoExecute (kept verbatim).
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::string time_added;
  bool operator==(const Taint&) const = default;
};

// A pod toleration; operator "" means Equal. Words (model/word.hpp): a pod's tolerations are
// nearly always a few well-known ones, and 17,000 pods hold ~50,000 of them.
struct Toleration {
  Word key;
  Word op;
  Word value;
  Word effect;
  std::optional<long long> toleration_seconds;
  bool operator==(const Toleration&) const = default;
};

// "key=value:Effect" (or "key:Effect" without a value), as kubectl prints taints.
std::string to_string(const Taint& taint);
// "key=value:Effect", "key:Effect" or "key=value" / "key" parsed back (the kubectl taint syntax);
// nullopt when the key is empty or the effect is not one of the three.
std::optional<Taint> parse_taint(std::string_view text);

// Kubernetes ToleratesTaint: empty effect matches any effect, empty key (with Exists) any key;
// Equal compares values, Exists ignores them; unknown operators tolerate nothing.
bool tolerates(const Toleration& toleration, const Taint& taint);
// Whether some toleration in the list tolerates the taint.
bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);
// Taints that block scheduling (NoSchedule and NoExecute; PreferNoSchedule never blocks) and
// that no toleration tolerates, in node order.
std::vector<Taint> untolerated_taints(const std::vector<Toleration>& tolerations,
                                      const std::vector<Taint>& taints);

Taint taint_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Taint& taint);
Toleration toleration_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Toleration& toleration);

} // namespace gpuslice::model
