// SPDX-License-Identifier: Apache-2.0
// Issue 20: a remedy is offered only when the placement check says it places pending pods;
// the reasons are attributed to the nodes that gave them, and MIG slices are their own capacity.
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_scenarios.hpp"
#include "unit/remedy_gate_scenarios.hpp"

using gpuslice::diagnose::analyze;
using gpuslice::diagnose::check_apply_fit;
using gpuslice::diagnose::Diagnosis;
using gpuslice::diagnose::Finding;
using scenarios::finding;
using scenarios::has;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool any_evidence(const Finding& f, const std::string& part) {
  for (const std::string& line : f.evidence) {
    if (contains(line, part)) return true;
  }
  return false;
}

} // namespace

TEST_CASE("remedy gate: idle GPUs behind a taint get the toleration, not time-slicing") {
  const Diagnosis d = analyze(gate::idle_gpus_behind_taint(false));
  CHECK_FALSE(has(d, "GS101"));  // the CPU nodes' "Insufficient" is not a GPU shortage
  CHECK_FALSE(has(d, "GS300"));
  const Finding& taint = finding(d, "GS102");
  CHECK(contains(taint.summary, "dedicated=ml:NoSchedule"));
  CHECK(contains(taint.remedy.text, "With it, 2 of 2 pending pod(s) would fit."));
  CHECK(taint.remedy.command ==
        R"(kubectl -n ml patch deployment trainer --type json -p '[{"op":"add","path":"/spec/template/spec/tolerations/-","value":{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}}]')");
  CHECK(any_evidence(finding(d, "GS100"), "3 of the nodes that say Insufficient nvidia.com/gpu have none of it"));
  const auto fit = check_apply_fit(gate::idle_gpus_behind_taint(false), 4);
  CHECK(fit.pending == 2);
  CHECK(fit.after == fit.before);  // sharing a GPU never gets a pod past a taint

  SUBCASE("twin: the pods tolerate the taint and the GPUs are taken: time-slicing is the fix") {
    const Diagnosis t = analyze(gate::idle_gpus_behind_taint(true));
    CHECK_FALSE(has(t, "GS102"));
    CHECK(finding(t, "GS101").remedy.command == "kubectl gpuslice apply --replicas 4");
    CHECK(contains(finding(t, "GS101").remedy.text, "With --replicas 4, 2 of 2 pending pod(s) would fit."));
    CHECK(finding(t, "GS300").remedy.command == "kubectl gpuslice apply --replicas 4");
  }
}

TEST_CASE("remedy gate: pods asking for whole GPUs on a MIG node get the MIG remedy") {
  const Diagnosis d = analyze(gate::mig_partitioned(false));
  CHECK_FALSE(has(d, "GS101"));
  CHECK_FALSE(has(d, "GS300"));
  const Finding& f = finding(d, "GS105");
  CHECK(f.remedy.command ==
        R"(kubectl -n ml patch deployment trainer --type json -p '[{"op":"remove","path":"/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu"},{"op":"add","path":"/spec/template/spec/containers/0/resources/limits/nvidia.com~1mig-1g.5gb","value":"1"}]')");
  CHECK(contains(f.remedy.text, "request nvidia.com/mig-1g.5gb instead of nvidia.com/gpu (1 of 1 pending pod(s) would fit)"));
  CHECK(contains(f.remedy.text, "nvidia.com/mig.config"));
  CHECK(any_evidence(f, "node a100-1 advertises nvidia.com/mig-1g.5gb: 56 (56 free)"));
  // MIG slices are not GPU slots: the inventory shows them apart.
  REQUIRE(d.nodes.size() == 1);
  CHECK(d.nodes[0].allocatable == 0);
  REQUIRE(d.nodes[0].mig.size() == 1);
  CHECK(d.nodes[0].mig[0] == gpuslice::diagnose::MigSlots{"1g.5gb", 56, 0, 56});
  const auto fit = check_apply_fit(gate::mig_partitioned(false), 4);
  CHECK(fit.after == 0);

  SUBCASE("twin: pods that request the MIG profile fit, and nothing fires about them") {
    const Diagnosis t = analyze(gate::mig_partitioned(true));
    CHECK_FALSE(has(t, "GS105"));
    CHECK_FALSE(has(t, "GS100"));
    CHECK(t.nodes[0].mig[0] == gpuslice::diagnose::MigSlots{"1g.5gb", 56, 1, 55});
  }
}

TEST_CASE("remedy gate: a crash-looping device plugin gets its log, not apply") {
  const Diagnosis d = analyze(gate::crashing_plugin(false));
  const Finding& f = finding(d, "GS104");
  CHECK(f.remedy.command ==
        "kubectl -n nvidia logs nvdp-nvidia-device-plugin-gpu-1 --all-containers --previous");
  CHECK(any_evidence(f, "is crash-looping"));
  CHECK(check_apply_fit(gate::crashing_plugin(false), 4).after == 0);

  SUBCASE("twin: no plugin at all: apply installs one, and the GPUs it brings place the pods") {
    const Diagnosis t = analyze(gate::crashing_plugin(true));
    CHECK(finding(t, "GS104").remedy.command == "kubectl gpuslice apply --replicas 4");
    CHECK(contains(finding(t, "GS104").remedy.text, "2 of 2 pending pod(s) would fit"));
    const auto fit = check_apply_fit(gate::crashing_plugin(true), 4);
    CHECK(fit.before == 0);
    CHECK(fit.after == 2);
  }
}

TEST_CASE("remedy gate: free shares under another resource name are not exhaustion") {
  const Diagnosis d = analyze(gate::shared_slots_under_other_name(false));
  CHECK_FALSE(has(d, "GS301"));
  CHECK(has(d, "GS105"));

  SUBCASE("twin: every share of the requested name is taken: GS301, with a fix that places them") {
    const Diagnosis t = analyze(gate::shared_slots_under_other_name(true));
    const Finding& f = finding(t, "GS301");
    // apply writes nvidia.com/gpu; pods asking for nvidia.com/gpu.shared gain nothing from it.
    CHECK(f.remedy.command.empty());
    CHECK(contains(f.remedy.text, "would place none of the 2 pending pod(s)"));
  }
}

TEST_CASE("remedy gate: the scheduler's counts are checked against the snapshot's nodes") {
  gpuslice::Snapshot s = scenarios::healthy();
  // healthy(): 2 tainted GPU nodes (tolerated, one slot free each) and a CPU node; a verdict
  // that counts the GPU nodes as cordoned disagrees with the snapshot.
  s.pods.push_back(scenarios::inference_pod("late").unschedulable(
      "0/3 nodes are available: 2 node(s) were unschedulable, 1 Insufficient nvidia.com/gpu.").build());
  const Diagnosis d = analyze(s);
  CHECK(any_evidence(finding(d, "GS100"),
                     "ml/late: the scheduler counted 2 cordoned, 0 tainted, 0 not selected, 1 Insufficient "
                     "nvidia.com/gpu; the snapshot's nodes give 0 cordoned, 0 tainted, 0 not selected, 1 "
                     "Insufficient nvidia.com/gpu"));
  gpuslice::Snapshot agree = scenarios::healthy();
  agree.pods.push_back(scenarios::inference_pod("late").unschedulable(
      "0/3 nodes are available: 1 Insufficient nvidia.com/gpu.").build());
  // Two GPU nodes fit: the scheduler would not say so either; only the counts it gives are compared.
  CHECK_FALSE(any_evidence(finding(analyze(agree), "GS100"), "the scheduler counted"));
}
