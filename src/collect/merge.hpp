// SPDX-License-Identifier: Apache-2.0
// Shared by the file source: merge all documents of one input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/snapshot.hpp>

#include "collect/list_window.hpp"

namespace gpuslice::collect {

// Merges every document; throws UsageError naming `origin` when there are none, when one is
// not a Kubernetes object, or when none is of a kind diagnose reads.
void merge_documents(Snapshot& snapshot, const std::vector<nlohmann::json>& documents, const std::string& origin);

// Merges the List (kind List or <Kind>List) that `read` gives, read through a window of
// `window` bytes (list_window.hpp), each item decoded from simdjson straight into the typed
// records, in batches on worker threads (list_batches.hpp) merged in the order read. Returns
// false, having merged nothing, for any other input or anything that would be an error: the
// caller then reads the input whole, which names the problem.
bool merge_list_window(Snapshot& snapshot, const ReadBytes& read, const std::string& origin,
                       std::size_t window = std::size_t{4} << 20);

} // namespace gpuslice::collect
