// SPDX-License-Identifier: Apache-2.0
// cluster-autoscaler event parser and status ConfigMap parser: never throw.
#include <gpuslice/diagnose.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpuslice_fuzz::as_text(data, size);
  (void)gpuslice::diagnose::parse_autoscaler_message(text);
  (void)gpuslice::diagnose::parse_autoscaler_status(text);
  return 0;
}
