// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_corpus.hpp"

using gpuslice::diagnose::AutoscalerEventKind;
using gpuslice::diagnose::parse_autoscaler_message;
using gpuslice::diagnose::ReasonKind;

namespace {

std::string kind_name(AutoscalerEventKind kind) {
  switch (kind) {
  case AutoscalerEventKind::not_triggered: return "not-triggered";
  case AutoscalerEventKind::triggered: return "triggered";
  case AutoscalerEventKind::scale_up_set: return "scale-up-set";
  case AutoscalerEventKind::scale_up_failed: return "scale-up-failed";
  case AutoscalerEventKind::scale_up_timed_out: return "scale-up-timed-out";
  }
  return "?";
}

} // namespace

TEST_CASE("diagnose::parse_autoscaler_message") {
  SUBCASE("corpus: every message parses to its expected record") {
    for (const auto& entry : corpus::load("autoscaler.json")) {
      const std::string message = entry.at("message");
      INFO("message: ", message, "\nsource: ", entry.at("source").get<std::string>());
      const auto parsed = parse_autoscaler_message(message);
      REQUIRE(parsed.has_value() == entry.at("parses").get<bool>());
      if (!parsed) continue;
      const auto& expect = entry.at("expect");
      CHECK(kind_name(parsed->kind) == expect.at("kind").get<std::string>());
      if (expect.contains("reasons")) corpus::check_reasons(parsed->reasons, expect.at("reasons"));
      if (expect.contains("wouldntFitPrefix")) {
        CHECK(parsed->wouldnt_fit_prefix == expect.at("wouldntFitPrefix").get<bool>());
      }
      if (expect.contains("error")) CHECK(parsed->error == expect.at("error").get<std::string>());
      if (expect.contains("groups")) {
        const auto& groups = expect.at("groups");
        REQUIRE(parsed->groups.size() == groups.size());
        for (std::size_t i = 0; i < groups.size(); ++i) {
          CHECK(parsed->groups[i].group == groups[i].at("group").get<std::string>());
          CHECK(parsed->groups[i].from == groups[i].at("from").get<int>());
          CHECK(parsed->groups[i].to == groups[i].at("to").get<int>());
          CHECK(parsed->groups[i].max == groups[i].at("max").get<int>());
        }
      }
    }
  }

  SUBCASE("reason order does not matter: two orders give the same multiset") {
    const auto a = parse_autoscaler_message(
        "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) didn't match "
        "Pod's node affinity/selector");
    const auto b = parse_autoscaler_message(
        "pod didn't trigger scale-up: 2 node(s) didn't match Pod's node affinity/selector, 1 max "
        "node group size reached");
    REQUIRE(a);
    REQUIRE(b);
    auto count_of = [](const auto& m, ReasonKind kind) {
      int n = 0;
      for (const auto& r : m->reasons) n += r.kind == kind ? r.count : 0;
      return n;
    };
    CHECK(count_of(a, ReasonKind::max_node_group_size) == count_of(b, ReasonKind::max_node_group_size));
    CHECK(count_of(a, ReasonKind::selector_mismatch) == 2);
    CHECK(count_of(b, ReasonKind::selector_mismatch) == 2);
  }

  SUBCASE("a quota reason keeps its embedded comma") {
    const auto m = parse_autoscaler_message(
        "pod didn't trigger scale-up: 1 max cluster cpu, memory limit reached");
    REQUIRE(m);
    REQUIRE(m->reasons.size() == 1);
    CHECK(m->reasons[0].kind == ReasonKind::resource_limit);
    CHECK(m->reasons[0].resource == "cpu, memory");
  }

  SUBCASE("a TriggeredScaleUp with a malformed entry keeps the good ones") {
    const auto m = parse_autoscaler_message(
        "pod triggered scale-up: [{broken} {eks-gpu 0->1 (max: 3)}]");
    REQUIRE(m);
    REQUIRE(m->groups.size() == 1);
    CHECK(m->groups[0].group == "eks-gpu");
    CHECK(m->groups[0].max == 3);
  }
}
