// SPDX-License-Identifier: Apache-2.0
// Issue 21: GPUs the NVIDIA DRA driver publishes in ResourceSlices are capacity too, though no
// node's allocatable shows them: every inventory output (status table and JSON, diagnose JSON's
// nodes and summary, the markdown node table) shows them per node, apart from GPU slots.
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/report.hpp>

#include "unit/dra_scenarios.hpp"
#include "unit/remedy_gate_scenarios.hpp"

using namespace gpuslice;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("DRA GPUs appear per node, with what claims hold, apart from GPU slots") {
  const diagnose::Diagnosis d = diagnose::analyze(dra::cluster());  // gpu-1's GPU held by ml/busy
  const report::ClusterInfo cluster{"ctx", "https://x"};
  REQUIRE(d.nodes.size() == 2);
  CHECK(d.nodes[0].dra == diagnose::DraGpus{1, 1, 0});
  CHECK(d.nodes[1].dra == diagnose::DraGpus{1, 0, 1});

  SUBCASE("status -o json: nodes[].dra and summary.draGpus; gpuSlots stays 0") {
    const auto j = report::inventory_to_json(d, cluster);
    CHECK(j["summary"]["gpuSlots"] == 0);
    CHECK(j["summary"]["draGpus"] == nlohmann::ordered_json::parse(R"({"devices":2,"allocated":1,"free":1})"));
    CHECK(j["nodes"][0]["name"] == "gpu-1");
    CHECK(j["nodes"][0]["dra"] == nlohmann::ordered_json::parse(R"({"devices":1,"allocated":1,"free":0})"));
  }
  SUBCASE("diagnose -o json carries the same figures") {
    const auto j = report::diagnosis_to_json(d, cluster);
    CHECK(j["summary"]["draGpus"]["free"] == 1);
    CHECK(j["nodes"][1]["dra"]["free"] == 1);
  }
  SUBCASE("status table: the summary line and a DRA column") {
    const std::string out = report::render_inventory(d, cluster, report::Format::table, report::Style{});
    CHECK(contains(out, "0 GPU pods Pending; DRA GPUs (claimed, not slots): 1/2 free\n"));
    CHECK(contains(out, "DRA"));
    CHECK(contains(out, "0/1 free"));
  }
  SUBCASE("markdown: a DRA column") {
    const std::string md = report::render_diagnosis_markdown(d, cluster);
    CHECK(contains(md, "| free | DRA | taints |"));
    CHECK(contains(md, "| 1/1 free |"));
    CHECK(contains(md, "DRA GPUs (claimed, not slots): 1/2 free"));
  }
}

TEST_CASE("clusters without DRA keep their output: no dra members, no DRA column") {
  const diagnose::Diagnosis d = diagnose::analyze(gate::idle_gpus_behind_taint(true));
  REQUIRE_FALSE(d.nodes.empty());
  const auto j = report::diagnosis_to_json(d, {});
  CHECK_FALSE(j["summary"].contains("draGpus"));
  for (const auto& node : j["nodes"]) CHECK_FALSE(node.contains("dra"));
  CHECK_FALSE(contains(report::render_inventory(d, {}, report::Format::table, report::Style{}), "DRA"));
  CHECK_FALSE(contains(report::render_diagnosis_markdown(d, {}), "DRA"));
}
