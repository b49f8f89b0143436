// SPDX-License-Identifier: Apache-2.0
// The device plugin config checker: never throws; bad YAML is a fatal problem, not an exception.
#include <gpuslice/timeslicing.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gpuslice::diagnose::ConfigCheck check =
      gpuslice::diagnose::check_time_slicing_config(gpuslice_fuzz::as_text(data, size));
  (void)check.usable();
  (void)check.replicas_for("nvidia.com/gpu");
  return 0;
}
