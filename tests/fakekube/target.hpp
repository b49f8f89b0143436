// SPDX-License-Identifier: Apache-2.0
// Resource paths (/api/v1/namespaces/ns/pods/name/status) parsed into a Target.
#pragma once

#include <string>

#include "api_state.hpp"

namespace fakekube {

// Parses a resource path; throws 404 (the real "could not find the requested resource") for
// paths naming no served resource or an unknown subresource.
Target parse_target(const ResourceTable& resources, const std::string& path);

} // namespace fakekube
