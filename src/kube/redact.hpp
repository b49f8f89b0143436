// SPDX-License-Identifier: Apache-2.0
// What -v logging may show: credentials masked, bodies cut (client-go round_trippers.go).
#pragma once

#include <string>
#include <string_view>

namespace gpuslice::kube {

// "Bearer <masked>", "Basic <masked>", "Negotiate <masked>"; any other scheme "<masked>".
std::string mask_authorization(std::string_view value);

// A header line safe to log: credential-bearing headers have their value masked.
std::string redact_header(std::string_view name, std::string_view value);

// body, or its first `limit` characters plus " [truncated N chars]"; limit 0 = no limit.
std::string truncate_body(std::string_view body, std::size_t limit);

} // namespace gpuslice::kube
