// SPDX-License-Identifier: Apache-2.0
// Reading one {key, operator, values} requirement, shared by label and node selectors.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>

namespace gpuslice::model {

// "In", "NotIn", "Exists", "DoesNotExist", and with `allow_gt_lt` "Gt", "Lt"; else nullopt.
std::optional<SelectorOp> parse_operator(const std::string& name, bool allow_gt_lt);
// The value counts the API validates (In/NotIn need values, Exists/DoesNotExist none, Gt/Lt
// one integer); "" when the requirement is well formed.
std::string check_values(const Requirement& requirement);
// The API spelling of an operator ("In", "NotIn", …).
const char* operator_name(SelectorOp op);
// {key, operator, values} JSON.
nlohmann::json requirement_json(const Requirement& requirement);

} // namespace gpuslice::model
