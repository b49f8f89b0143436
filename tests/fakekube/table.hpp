// SPDX-License-Identifier: Apache-2.0
// meta.k8s.io/v1 Table output for kubectl's human-readable `get`: the real printers' columns
// for nodes and pods, and the NAME/AGE columns the server gives kinds without a printer.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

#include "resources.hpp"

namespace fakekube {

// True when the Accept header asks for `as=Table` (kubectl get's first choice).
bool wants_table(const std::string& accept);
// A Table of `objects`; rows carry PartialObjectMetadata, the full object or nothing as
// ?includeObject=Metadata|Object|None says.
nlohmann::json render_table(const ResourceInfo& info, const std::vector<nlohmann::json>& objects,
                            const nlohmann::json& list_meta, const ApiRequest& request);
// kubectl's HumanDuration ("45s", "5m10s", "3h", "12d").
std::string human_duration(long long seconds);

} // namespace fakekube
