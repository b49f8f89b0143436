// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

using gpuslice::kube::parse_request_timeout;
using std::chrono::milliseconds;

TEST_CASE("kube::parse_request_timeout") {
  SUBCASE("0 and empty mean no timeout") {
    CHECK(parse_request_timeout("0") == milliseconds(0));
    CHECK(parse_request_timeout("") == milliseconds(0));
  }
  SUBCASE("a bare integer is seconds") {
    CHECK(parse_request_timeout("30") == milliseconds(30000));
  }
  SUBCASE("Go durations") {
    CHECK(parse_request_timeout("1s") == milliseconds(1000));
    CHECK(parse_request_timeout("2m") == milliseconds(120000));
    CHECK(parse_request_timeout("3h") == milliseconds(3 * 3600 * 1000));
    CHECK(parse_request_timeout("1m30s") == milliseconds(90000));
    CHECK(parse_request_timeout("500ms") == milliseconds(500));
    CHECK(parse_request_timeout("1.5s") == milliseconds(1500));
  }
  SUBCASE("anything else names the value and kubectl's rule") {
    for (const char* bad : {"abc", "1x", "s", "-1s", "1..5s", "10 s", "1e3"}) {
      CAPTURE(bad);
      CHECK_THROWS_WITH_AS(parse_request_timeout(bad),
                           doctest::Contains("Invalid timeout value. Timeout must be a single integer in seconds"),
                           gpuslice::UsageError);
    }
  }
}
