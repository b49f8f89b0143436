// SPDX-License-Identifier: Apache-2.0
// The taint a user types, checked as Kubernetes validates it (IsQualifiedName for the key,
// IsValidLabelValue for the value, the three effects) so a bad one is refused before any request.
#pragma once

#include <string>
#include <string_view>

#include <gpuslice/model.hpp>

namespace gpuslice::cli {

// What is wrong with each part, as a phrase to follow the quoted input; "" when it is fine.
std::string taint_key_problem(std::string_view key);
std::string taint_value_problem(std::string_view value);
std::string taint_effect_problem(std::string_view effect);

// KEY[=VALUE]:EFFECT, as `kubectl taint` reads it; UsageError naming `flag` and quoting `text`.
model::Taint parse_taint_flag(const std::string& flag, const std::string& text);

} // namespace gpuslice::cli
