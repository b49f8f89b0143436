// SPDX-License-Identifier: Apache-2.0
// Shared by the file source: merge all documents of one input.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Merges every document; throws UsageError naming `origin` when there are none, when one is
// not a Kubernetes object, or when none is of a kind diagnose reads.
void merge_documents(Snapshot& snapshot, const std::vector<nlohmann::json>& documents, const std::string& origin);

} // namespace gpuslice::collect
