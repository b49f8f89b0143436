// SPDX-License-Identifier: Apache-2.0
// Rendering `verify`'s check matrix: a table, or the Verification object as JSON / YAML.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <gpuslice/remedy/verify.hpp>
#include <gpuslice/report.hpp>

namespace gpuslice::report {

// {"apiVersion": "gpuslice/v1alpha1", "kind": "Verification", "cluster", "replicas", "taint"
// (string or null), "passed" (bool), "summary": {pass, fail, unknown, skipped}, "checks": [{check,
// object, result, expected, actual, detail}]}; numbers stay numbers.
nlohmann::ordered_json verify_to_json(const remedy::VerifyReport& report, const remedy::VerifyOptions& options,
                                      const ClusterInfo& cluster);

// A one-line verdict, then one table row per check and object. Ends with a newline.
std::string render_verify(const remedy::VerifyReport& report, const remedy::VerifyOptions& options,
                          const ClusterInfo& cluster, Format format, const Style& style);

} // namespace gpuslice::report
