// SPDX-License-Identifier: Apache-2.0
// Strategic merge patch for the built-in types: maps merged, `null` deletes, lists with a
// merge key (containers, env, volumes by name; conditions by type) merged per item, other
// lists (taints, tolerations, args) replaced whole; `$patch: replace|delete`, `$retainKeys`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` directives.
#pragma once

#include <nlohmann/json.hpp>

namespace fakekube {

// `original` with `patch` applied; throws std::invalid_argument for a malformed directive.
nlohmann::json strategic_merge(nlohmann::json original, const nlohmann::json& patch);
// Deep-merges an applied configuration into a live object the way server-side apply combines
// them: maps merged, keyed lists merged by key, other values replaced.
void apply_merge(nlohmann::json& live, const nlohmann::json& config);

} // namespace fakekube
