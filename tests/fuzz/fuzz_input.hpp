// SPDX-License-Identifier: Apache-2.0
// What every fuzz target shares: the input as text, and the rule that a parser may reject its
// input only with the error its contract names. Anything else escapes and libFuzzer reports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuslice_fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

} // namespace gpuslice_fuzz
