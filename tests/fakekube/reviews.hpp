// SPDX-License-Identifier: Apache-2.0
// The create-only review kinds: SelfSubjectAccessReview (JSON or kubectl 1.33's protobuf),
// SelfSubjectRulesReview and SelfSubjectReview, answered from the caller's identity and RBAC.
#pragma once

#include <fakekube/api.hpp>

#include "api_state.hpp"

namespace fakekube {

// 201 with the review and its status; 400 for an undecodable body, 406 when a protobuf
// caller accepts no JSON answer.
ApiResponse create_review(const ApiState& state, const ApiRequest& request,
                          const ResourceInfo& info);

} // namespace fakekube
