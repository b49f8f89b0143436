// SPDX-License-Identifier: Apache-2.0
// kubeconfig loader: parse one file, then resolve its current context as `kubectl` would.
// Contract: UsageError (exit 2) for any bad file, never a crash or another exception.
#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

#include "fuzz_input.hpp"

namespace {

// Certificates, token files and CA files the kubeconfig names do not exist.
class NoFiles final : public gpuslice::kube::FileReader {
public:
  std::optional<std::string> read(const std::string&) override { return std::nullopt; }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(gpuslice_fuzz::as_text(data, size));
  try {
    const gpuslice::kube::Kubeconfig config = gpuslice::kube::parse_kubeconfig(text, "/fuzz/config");
    NoFiles files;
    (void)gpuslice::kube::resolve_endpoint(config, gpuslice::kube::GlobalOptions{}, files);
  } catch (const gpuslice::UsageError&) {
  }
  return 0;
}
