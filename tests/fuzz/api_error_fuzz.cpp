// SPDX-License-Identifier: Apache-2.0
// metav1.Status error parser: any body with any code becomes an ApiError, never a crash.
// The first two bytes pick the HTTP code (400..599), the rest is the body.
#include <gpuslice/kube/api_error.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int code = 500;
  if (size >= 2) {
    code = 400 + (data[0] * 256 + data[1]) % 200;
    data += 2;
    size -= 2;
  }
  const std::string body(gpuslice_fuzz::as_text(data, size));
  const gpuslice::kube::ApiError error =
      gpuslice::kube::api_error_from_response(code, body, "get", "/api/v1/nodes");
  (void)error.what();
  return 0;
}
