// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648 §4, with padding), as Go's encoding/json uses for []byte fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuslice::kube {

// Decodes; '\r' and '\n' are ignored as Go's decoder does. nullopt on any other bad input.
std::optional<std::string> base64_decode(std::string_view text);

std::string base64_encode(std::string_view bytes);

} // namespace gpuslice::kube
