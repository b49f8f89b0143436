// SPDX-License-Identifier: Apache-2.0
// /version, /api, /apis and each group version's resource list, as kubectl's discovery needs.
#pragma once

#include <optional>

#include <fakekube/api.hpp>

#include "api_state.hpp"

namespace fakekube {

// The answer for a discovery or other non-resource path, or nullopt when `path` is a resource
// path. Aggregated discovery is answered in the legacy form with content type
// application/json, which client-go takes as "not aggregated" and falls back from.
std::optional<ApiResponse> serve_discovery(const ApiState& state, const std::string& path);

} // namespace fakekube
