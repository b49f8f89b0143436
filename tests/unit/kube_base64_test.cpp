// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "kube/base64.hpp"

using gpuslice::kube::base64_decode;
using gpuslice::kube::base64_encode;

TEST_CASE("kube::base64_decode") {
  CHECK(base64_decode("aGVsbG8=") == std::optional<std::string>("hello"));
  CHECK(base64_decode("aGVs\r\nbG8=") == std::optional<std::string>("hello")); // Go skips CR/LF
  CHECK(base64_decode("") == std::optional<std::string>(""));
  CHECK(base64_decode("YQ==") == std::optional<std::string>("a"));
  CHECK_FALSE(base64_decode("aGVsbG8").has_value()); // padding required
  CHECK_FALSE(base64_decode("a=GV").has_value());
  CHECK_FALSE(base64_decode("!!!!").has_value());
  CHECK_FALSE(base64_decode("a===").has_value());
}

TEST_CASE("kube::base64_encode") {
  for (const std::string text : {"", "a", "ab", "abc", "hello world", "\x01\xff\x80"}) {
    CHECK(base64_decode(base64_encode(text)) == std::optional<std::string>(text));
  }
  CHECK(base64_encode("hello") == "aGVsbG8=");
}
