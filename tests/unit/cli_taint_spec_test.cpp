// SPDX-License-Identifier: Apache-2.0
// What a taint flag accepts: every spelling kubectl taint accepts, parsed into its parts (the
// refusals are rows of the bad-input table, cli_badinput_test.cpp).
#include <doctest/doctest.h>

#include <gpuslice/error.hpp>

#include "cli/taint_spec.hpp"

using gpuslice::cli::parse_taint_flag;

TEST_CASE("cli::parse_taint_flag") {
  SUBCASE("KEY=VALUE:EFFECT, KEY:EFFECT and an empty value") {
    const gpuslice::model::Taint full = parse_taint_flag("--taint", "nvidia.com/gpu=present:NoSchedule");
    CHECK(full.key == "nvidia.com/gpu");
    CHECK(full.value == "present");
    CHECK(full.effect == "NoSchedule");
    const gpuslice::model::Taint bare = parse_taint_flag("--taint", "dedicated:NoExecute");
    CHECK(bare.key == "dedicated");
    CHECK(bare.value.empty());
    CHECK(bare.effect == "NoExecute");
    CHECK(parse_taint_flag("--taint", "k=:PreferNoSchedule").value.empty());
  }
  SUBCASE("the longest valid parts") {
    const std::string name(63, 'n');
    const std::string prefix = std::string(249, 'p') + ".com";
    const gpuslice::model::Taint taint =
        parse_taint_flag("--taint", prefix + "/" + name + "=" + std::string(63, 'v') + ":NoSchedule");
    CHECK(taint.key == prefix + "/" + name);
    CHECK(taint.value.size() == 63);
  }
  SUBCASE("names with - _ . inside") {
    CHECK(parse_taint_flag("--taint", "a-b.c_d=x.y-z_1:NoSchedule").key == "a-b.c_d");
  }
  SUBCASE("one character too many is refused") {
    CHECK_THROWS_AS(parse_taint_flag("--taint", std::string(64, 'k') + ":NoSchedule"), gpuslice::UsageError);
    CHECK_THROWS_AS(parse_taint_flag("--taint", std::string(250, 'p') + ".com/k:NoSchedule"), gpuslice::UsageError);
  }
}
