// SPDX-License-Identifier: Apache-2.0
// Issue 20: MIG slices are their own kind of capacity in every inventory output (status table
// and JSON, diagnose JSON's nodes and summary, the markdown node table), per profile, and are
// never counted as GPU slots.
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/report.hpp>

#include "unit/remedy_gate_scenarios.hpp"

using namespace gpuslice;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("MIG slices appear apart from GPU slots, per profile, in status and diagnose output") {
  const diagnose::Diagnosis d = diagnose::analyze(gate::mig_partitioned(true)); // one slice taken
  const report::ClusterInfo cluster{"ctx", "https://x"};

  SUBCASE("status -o json: the node's mig list and the summary's migSlots; gpuSlots has no slices") {
    const auto j = report::inventory_to_json(d, cluster);
    CHECK(j["summary"]["gpuSlots"] == 0);
    REQUIRE(j["summary"].contains("migSlots"));
    CHECK(j["summary"]["migSlots"] == nlohmann::ordered_json::parse(
                                          R"([{"profile":"1g.5gb","allocatable":56,"requested":1,"free":55}])"));
    const auto& node = j["nodes"][0];
    CHECK(node["name"] == "a100-1");
    CHECK(node["allocatable"] == 0);
    CHECK(node["mig"] == j["summary"]["migSlots"]);
  }
  SUBCASE("diagnose -o json carries the same figures") {
    const auto j = report::diagnosis_to_json(d, cluster);
    CHECK(j["summary"]["gpuSlots"] == 0);
    CHECK(j["summary"]["migSlots"][0]["free"] == 55);
    CHECK(j["nodes"][0]["mig"][0]["profile"] == "1g.5gb");
  }
  SUBCASE("status table: the summary line names the slices and the node table gains a MIG column") {
    const std::string out = report::render_inventory(d, cluster, report::Format::table, report::Style{});
    CHECK(contains(out, "0 slots: 0 requested, 0 free; 0 GPU pods Pending; MIG slices (not GPU slots): 1g.5gb 55/56 free\n"));
    CHECK(contains(out, "MIG"));
    CHECK(contains(out, "1g.5gb 55/56 free"));
  }
  SUBCASE("markdown: a MIG column") {
    const std::string md = report::render_diagnosis_markdown(d, cluster);
    CHECK(contains(md, "| free | MIG | taints |"));
    CHECK(contains(md, "| 1g.5gb 55/56 free |"));
  }
}

TEST_CASE("clusters without MIG keep their output: no mig members, no MIG column") {
  const diagnose::Diagnosis d = diagnose::analyze(gate::idle_gpus_behind_taint(true));
  REQUIRE_FALSE(d.nodes.empty());
  const auto j = report::diagnosis_to_json(d, {});
  CHECK_FALSE(j["summary"].contains("migSlots"));
  for (const auto& node : j["nodes"]) CHECK_FALSE(node.contains("mig"));
  const std::string out = report::render_inventory(d, {}, report::Format::table, report::Style{});
  CHECK_FALSE(contains(out, "MIG"));
  CHECK_FALSE(contains(report::render_diagnosis_markdown(d, {}), "MIG"));
}
