// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "diagnose/text.hpp"

using gpuslice::diagnose::parse_count;
using gpuslice::diagnose::split_counted_list;

TEST_CASE("diagnose::split_counted_list") {
  SUBCASE("entries with embedded commas stay whole") {
    const auto e = split_counted_list(
        "1 node(s) had taint {a: b}, that the pod didn't tolerate, 10 Insufficient cpu");
    REQUIRE(e);
    REQUIRE(e->size() == 2);
    CHECK((*e)[0].first == 1);
    CHECK((*e)[0].second == "node(s) had taint {a: b}, that the pod didn't tolerate");
    CHECK((*e)[1].first == 10);
    CHECK((*e)[1].second == "Insufficient cpu");
  }
  SUBCASE("text without a leading count") {
    CHECK_FALSE(split_counted_list("pod has unbound immediate PersistentVolumeClaims"));
    CHECK_FALSE(split_counted_list("3"));
    CHECK_FALSE(split_counted_list("99999999999999999999 Insufficient cpu"));
  }
  SUBCASE("empty text is an empty list") {
    const auto e = split_counted_list("");
    REQUIRE(e);
    CHECK(e->empty());
  }
}

TEST_CASE("diagnose::parse_count") {
  CHECK(parse_count("42") == 42);
  CHECK_FALSE(parse_count("-1"));
  CHECK_FALSE(parse_count("4x"));
  CHECK_FALSE(parse_count(""));
}
