// SPDX-License-Identifier: Apache-2.0
// PATCH in its four content types: JSON patch (RFC 6902), merge patch (RFC 7386), strategic
// merge patch (built-in kinds only; CRDs answer 415) and server-side apply.
#pragma once

#include <fakekube/api.hpp>

#include "api_state.hpp"

namespace fakekube {

ApiResponse patch_object(ApiState& state, const ApiRequest& request, const Target& target);
// Server-side apply (application/apply-patch+yaml): creates the object when absent, tracks
// ownership per manager, 409 on conflicts unless force.
ApiResponse apply_object(ApiState& state, const ApiRequest& request, const Target& target,
                         const std::string& manager, bool force, bool dry_run);

} // namespace fakekube
