// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/report.hpp>

using gpuslice::report::decide_style;
using gpuslice::report::paint;

TEST_CASE("report::decide_style") {
  SUBCASE("colour on a TTY by default") { CHECK(decide_style(true, false, nullptr, nullptr, 80).colour); }
  SUBCASE("no colour when piped") { CHECK_FALSE(decide_style(false, false, nullptr, nullptr, 80).colour); }
  SUBCASE("NO_COLOR set and non-empty disables colour") {
    CHECK_FALSE(decide_style(true, false, "1", nullptr, 80).colour);
  }
  SUBCASE("NO_COLOR empty is ignored") { CHECK(decide_style(true, false, "", nullptr, 80).colour); }
  SUBCASE("--no-color disables colour") { CHECK_FALSE(decide_style(true, true, nullptr, nullptr, 80).colour); }
  SUBCASE("CLICOLOR_FORCE forces colour when piped, but not over NO_COLOR") {
    CHECK(decide_style(false, false, nullptr, "1", 0).colour);
    CHECK_FALSE(decide_style(false, false, nullptr, "0", 0).colour);
    CHECK_FALSE(decide_style(false, false, "1", "1", 0).colour);
  }
  SUBCASE("width only applies on a TTY") {
    CHECK(decide_style(true, false, nullptr, nullptr, 120).width == 120);
    CHECK(decide_style(false, false, nullptr, nullptr, 120).width == 0);
  }
}

TEST_CASE("report::paint") {
  gpuslice::report::Style plain;
  gpuslice::report::Style coloured;
  coloured.colour = true;
  CHECK(paint(plain, "red", "x") == "x");
  CHECK(paint(coloured, "red", "x") == "\x1b[31mx\x1b[0m");
  CHECK(paint(coloured, "no-such-colour", "x") == "x");
}
