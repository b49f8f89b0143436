// SPDX-License-Identifier: Apache-2.0
// GET of one object (and its status/scale subresources) and LIST with selectors and paging.
#pragma once

#include <fakekube/api.hpp>

#include "api_state.hpp"

namespace fakekube {

ApiResponse get_object(const ApiState& state, const ApiRequest& request, const Target& target);
// Lists with labelSelector, fieldSelector, limit/continue, resourceVersion(Match).
ApiResponse list_objects(const ApiState& state, const ApiRequest& request, const Target& target);
// The autoscaling/v1 Scale view of a workload.
nlohmann::json scale_of(const nlohmann::json& object);

} // namespace fakekube
