// SPDX-License-Identifier: Apache-2.0
// Reading one {key, operator, values} requirement, shared by label and node selectors.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>

namespace gpuslice::model {

// Parses {key, operator, values}; `allow_gt_lt` for node selectors. Checks the value counts
// the API validates (In/NotIn need values, Exists/DoesNotExist none, Gt/Lt one integer).
Parsed<Requirement> parse_requirement(const nlohmann::json& expression, bool allow_gt_lt);
// The API spelling of an operator ("In", "NotIn", …).
const char* operator_name(SelectorOp op);
// {key, operator, values} JSON.
nlohmann::json requirement_json(const Requirement& requirement);

} // namespace gpuslice::model
