// SPDX-License-Identifier: Apache-2.0
// Karpenter pod event parser: never throws.
#include <gpuslice/diagnose.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)gpuslice::diagnose::parse_karpenter_message(gpuslice_fuzz::as_text(data, size));
  return 0;
}
