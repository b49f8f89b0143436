// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/report.hpp>

using gpuslice::report::Style;
using gpuslice::report::TextTable;

TEST_CASE("report::TextTable::render") {
  TextTable table({"name", "gpus", "reason"});
  table.add_row({"gpu-node-1", "1", "Insufficient nvidia.com/gpu"});
  table.add_row({"n2", "12"});

  SUBCASE("columns aligned with three spaces, headers upper-case, no trailing blanks") {
    CHECK(table.render(Style{}) ==
          "NAME         GPUS   REASON\n"
          "gpu-node-1   1      Insufficient nvidia.com/gpu\n"
          "n2           12\n");
  }
  SUBCASE("the last column is cut to the terminal width with an ellipsis") {
    Style narrow;
    narrow.width = 30;
    const std::string out = table.render(narrow);
    // 13 + 7 columns before the last leave 10 of the 30 for it.
    CHECK(out.find("gpu-node-1   1      Insuffici…\n") != std::string::npos);
  }
}

TEST_CASE("report::display_width") {
  CHECK(gpuslice::report::display_width("abc") == 3);
  CHECK(gpuslice::report::display_width("a…b") == 3);
  CHECK(gpuslice::report::display_width("") == 0);
}
