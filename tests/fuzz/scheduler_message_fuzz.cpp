// SPDX-License-Identifier: Apache-2.0
// kube-scheduler FailedScheduling parser: never throws, whatever the event text.
#include <gpuslice/diagnose.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)gpuslice::diagnose::parse_scheduler_message(gpuslice_fuzz::as_text(data, size));
  return 0;
}
