// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_corpus.hpp"

using gpuslice::diagnose::parse_scheduler_message;
using gpuslice::diagnose::ReasonKind;

TEST_CASE("diagnose::parse_scheduler_message") {
  SUBCASE("corpus: every message parses to its expected record") {
    for (const auto& entry : corpus::load("scheduler.json")) {
      const std::string message = entry.at("message");
      INFO("message: ", message, "\nsource: ", entry.at("source").get<std::string>());
      const auto parsed = parse_scheduler_message(message);
      REQUIRE(parsed.has_value() == entry.at("parses").get<bool>());
      if (!parsed || !entry.contains("expect")) continue;
      const auto& expect = entry.at("expect");
      if (expect.contains("nodesTotal")) CHECK(parsed->nodes_total == expect.at("nodesTotal").get<int>());
      if (expect.contains("reasons")) corpus::check_reasons(parsed->reasons, expect.at("reasons"));
      if (expect.contains("preemptionReasons")) {
        corpus::check_reasons(parsed->preemption_reasons, expect.at("preemptionReasons"));
      }
      if (expect.contains("hasPreemption")) CHECK(parsed->has_preemption == expect.at("hasPreemption").get<bool>());
      if (expect.contains("truncated")) CHECK(parsed->truncated == expect.at("truncated").get<bool>());
      if (expect.contains("prefilter")) CHECK(parsed->prefilter == expect.at("prefilter").get<std::string>());
    }
  }

  SUBCASE("the preemption histogram is kept apart from the filter histogram") {
    const auto m = parse_scheduler_message(
        "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's node "
        "affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims found for "
        "incoming pod, 6 Preemption is not helpful for scheduling.");
    REQUIRE(m);
    CHECK(m->nodes_total == 9);
    REQUIRE(m->reasons.size() == 2);
    CHECK(m->reasons[0].kind == ReasonKind::insufficient_resource);
    CHECK(m->reasons[0].resource == "nvidia.com/gpu");
    CHECK(m->reasons[1].text == "node(s) didn't match Pod's node affinity/selector");
    CHECK(m->preemption_reasons.size() == 2);
    CHECK(m->preemption.starts_with("0/9 nodes are available: 3 No preemption"));
  }

  SUBCASE("a PostFilter message that is not a histogram is kept verbatim") {
    const auto m = parse_scheduler_message(
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: not eligible due to a "
        "terminating pod on the nominated node.");
    REQUIRE(m);
    CHECK(m->has_preemption);
    CHECK(m->preemption == "not eligible due to a terminating pod on the nominated node");
    CHECK(m->preemption_reasons.empty());
  }

  SUBCASE("an unknown reason is kept verbatim as other") {
    const auto m = parse_scheduler_message(
        "0/2 nodes are available: 2 node(s) were rejected by the gpu-topology plugin.");
    REQUIRE(m);
    REQUIRE(m->reasons.size() == 1);
    CHECK(m->reasons[0].kind == ReasonKind::other);
    CHECK(m->reasons[0].text == "node(s) were rejected by the gpu-topology plugin");
  }

  SUBCASE("a truncated note drops only its cut entry, and says so") {
    const auto m = parse_scheduler_message(
        "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint "
        "{dedic ...");
    REQUIRE(m);
    CHECK(m->truncated);
    REQUIRE(m->reasons.size() == 1);
    CHECK(m->reasons[0].count == 2);
  }

  SUBCASE("text that is not a FitError") {
    CHECK_FALSE(parse_scheduler_message("Successfully assigned default/p to node-1"));
    CHECK_FALSE(parse_scheduler_message("0/x nodes are available: 1 Insufficient cpu."));
    CHECK_FALSE(parse_scheduler_message("nodes are available:"));
  }
}

TEST_CASE("diagnose::parse_scheduler_message never crashes on cut or foreign input") {
  // Every prefix of every corpus message (what a truncating log or UI produces), replayed
  // through every parser; under ASan/UBSan this is the fuzz corpus run as a test.
  std::size_t parsed = 0;
  for (const std::string& message : corpus::all_messages()) {
    for (std::size_t n = 0; n <= message.size(); ++n) {
      const std::string_view cut(message.data(), n);
      parsed += parse_scheduler_message(cut).has_value();
      parsed += gpuslice::diagnose::parse_autoscaler_message(cut).has_value();
      parsed += gpuslice::diagnose::parse_karpenter_message(cut).has_value();
    }
  }
  CHECK(parsed > 0);
}
