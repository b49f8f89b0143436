// SPDX-License-Identifier: Apache-2.0
// Shared by the file source: merge all documents of one input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Merges every document; throws UsageError naming `origin` when there are none, when one is
// not a Kubernetes object, or when none is of a kind diagnose reads.
void merge_documents(Snapshot& snapshot, const std::vector<nlohmann::json>& documents, const std::string& origin);

// Merges a List (`list_kind` "List" or "<Kind>List") whose metadata and items are raw JSON
// text, parsing one item at a time so that only one item's DOM exists at once. Same errors.
void merge_raw_list(Snapshot& snapshot, const std::string& list_kind, std::string_view metadata,
                    const std::vector<std::string_view>& items, const std::string& origin);

} // namespace gpuslice::collect
