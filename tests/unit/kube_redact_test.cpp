// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "kube/redact.hpp"

using namespace gpuslice::kube;

TEST_CASE("kube::mask_authorization") {
  CHECK(mask_authorization("Bearer abc.def") == "Bearer <masked>");
  CHECK(mask_authorization("bearer abc") == "Bearer <masked>");
  CHECK(mask_authorization("Basic dXNlcjpwYXNz") == "Basic <masked>");
  CHECK(mask_authorization("Negotiate xyz") == "Negotiate <masked>");
  CHECK(mask_authorization("Token secret") == "<masked>");
  CHECK(mask_authorization("secret-without-scheme") == "<masked>");
}

TEST_CASE("kube::redact_header") {
  CHECK(redact_header("Authorization", "Bearer t0k3n") == "Authorization: Bearer <masked>");
  CHECK(redact_header("authorization", "Basic x") == "authorization: Basic <masked>");
  CHECK(redact_header("Proxy-Authorization", "Basic x") == "Proxy-Authorization: Basic <masked>");
  CHECK(redact_header("Accept", "application/json") == "Accept: application/json");
}

TEST_CASE("kube::truncate_body") {
  const std::string body(1500, 'x');
  CHECK(truncate_body(body, 1024) == std::string(1024, 'x') + " [truncated 476 chars]");
  CHECK(truncate_body("short", 1024) == "short");
  CHECK(truncate_body(body, 0) == body);
}
