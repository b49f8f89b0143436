// SPDX-License-Identifier: Apache-2.0
// The snapshot reader (our snapshots, kubectl Lists, multi-document YAML), then the analyzers
// on whatever it accepted. Contract: UsageError naming the file for bad input, else a Diagnosis.
#include <gpuslice/collect.hpp>
#include <gpuslice/diagnose.hpp>
#include <gpuslice/error.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuslice::Snapshot snapshot;
  try {
    gpuslice::collect::merge_text(snapshot, gpuslice_fuzz::as_text(data, size), "fuzz.json");
  } catch (const gpuslice::UsageError&) {
    return 0;
  }
  (void)gpuslice::diagnose::analyze(snapshot);
  return 0;
}
