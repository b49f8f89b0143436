// SPDX-License-Identifier: Apache-2.0
// Helm release decoder: data.release of a helm.sh/release.v1 Secret is base64(base64(gzip(JSON))).
// Input starting with '{' is a whole Secret; anything else is the data.release string.
// Contract: a summary or an error text, never an exception.
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(gpuslice_fuzz::as_text(data, size));
  nlohmann::json secret;
  if (!text.empty() && text.front() == '{') {
    secret = nlohmann::json::parse(text, nullptr, false);
    if (secret.is_discarded()) {
      return 0;
    }
  } else {
    secret = {{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"type", "helm.sh/release.v1"},
              {"metadata", {{"name", "sh.helm.release.v1.nvdp.v1"}, {"namespace", "nvidia-device-plugin"}}},
              {"data", {{"release", text}}}};
  }
  (void)gpuslice::collect::helm_release_from_secret(secret);
  return 0;
}
