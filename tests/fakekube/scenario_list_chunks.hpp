// SPDX-License-Identifier: Apache-2.0
// The benchmarks' large scenarios (a plain kubectl List of up to 1.1 GB) loaded chunk by chunk.
#pragma once

#include <filesystem>

#include <fakekube/api.hpp>

namespace fakekube {

// Whether the file is a JSON `kind: List` scenario with no settings (shape 1) of 64 MB or
// more: load_list_in_chunks reads it; smaller ones keep the ordinary loader.
bool wants_chunked_load(const std::filesystem::path& path);

// Loads the items of such a file into `api`, a few thousand at a time (Api::load each).
// Throws std::runtime_error naming the file, or nlohmann's parse error, on bad input.
void load_list_in_chunks(Api& api, const std::filesystem::path& path);

} // namespace fakekube
