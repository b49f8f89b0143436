// SPDX-License-Identifier: Apache-2.0
// The large-file path: a `kubectl get -o json` List read with simdjson's on-demand parser,
// one item at a time, instead of one DOM of the whole file (~9x its size in nlohmann).
#pragma once

#include <string>

#include <simdjson.h>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Merges `text` if it is a JSON object of kind List or <Kind>List with an items array of
// objects. Returns false, having merged nothing, for any other shape or any malformed JSON:
// the caller then parses the text whole, which also gives the precise error message.
bool merge_json_list_stream(Snapshot& snapshot, const simdjson::padded_string& text, const std::string& origin);

} // namespace gpuslice::collect
