// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_corpus.hpp"

using gpuslice::diagnose::parse_karpenter_message;
using gpuslice::diagnose::ReasonKind;

TEST_CASE("diagnose::parse_karpenter_message") {
  SUBCASE("corpus: every message parses to its expected record") {
    for (const auto& entry : corpus::load("karpenter.json")) {
      const std::string message = entry.at("message");
      INFO("message: ", message, "\nsource: ", entry.at("source").get<std::string>());
      const auto parsed = parse_karpenter_message(message);
      REQUIRE(parsed.has_value() == entry.at("parses").get<bool>());
      if (!parsed) continue;
      const auto& expect = entry.at("expect");
      if (expect.contains("nominated")) CHECK(parsed->nominated == expect.at("nominated").get<bool>());
      if (expect.contains("nodeclaim")) CHECK(parsed->nodeclaim == expect.at("nodeclaim").get<std::string>());
      if (expect.contains("node")) CHECK(parsed->node == expect.at("node").get<std::string>());
      if (expect.contains("errors")) {
        const auto& errors = expect.at("errors");
        REQUIRE(parsed->errors.size() == errors.size());
        for (std::size_t i = 0; i < errors.size(); ++i) {
          CHECK(parsed->errors[i].nodepool == errors[i].at("nodepool").get<std::string>());
          corpus::check_reason(parsed->errors[i].reason, errors[i]);
        }
      }
    }
  }

  SUBCASE("the daemonset overhead JSON does not end the error early") {
    const auto m = parse_karpenter_message(
        "Failed to schedule pod, incompatible with nodepool \"gpu\", daemonset "
        "overhead={\"cpu\":\"1\",\"memory\":\"2Gi\"}, did not tolerate nvidia.com/gpu:NoSchedule");
    REQUIRE(m);
    REQUIRE(m->errors.size() == 1);
    CHECK(m->errors[0].reason.kind == ReasonKind::untolerated_taint);
    CHECK(m->errors[0].reason.taint_key == "nvidia.com/gpu");
    CHECK(m->errors[0].reason.taint_value.empty());
    CHECK(m->errors[0].reason.taint_effect == "NoSchedule");
  }

  SUBCASE("scheduler and autoscaler text is not Karpenter's") {
    CHECK_FALSE(parse_karpenter_message("0/1 nodes are available: 1 Insufficient nvidia.com/gpu."));
    CHECK_FALSE(parse_karpenter_message("pod didn't trigger scale-up: "));
  }
}
