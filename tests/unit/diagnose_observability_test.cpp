// SPDX-License-Identifier: Apache-2.0
// GS7xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <algorithm>

#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

TEST_CASE("diagnose::find_observability") {
  SUBCASE("GS700 gpu-metrics-missing, only when time-slicing is on") {
    gpuslice::Snapshot s = healthy();
    std::erase_if(s.daemonsets, [](const auto& ds) { return ds.meta.name == "dcgm-exporter"; });
    CHECK(has(analyze(s), "GS700"));
    CHECK_FALSE(has(analyze(healthy()), "GS700"));
    gpuslice::Snapshot unshared = incident();  // no exporter either, but no time-slicing
    CHECK_FALSE(has(analyze(unshared), "GS700"));
  }

  SUBCASE("GS701 mig-capable-gpu") {
    gpuslice::Snapshot s = healthy();
    s.nodes.push_back(NodeBuilder("p4d-1").instance_type("p4d.24xlarge").gpus(8).label("nvidia.com/gpu.present", "true")
                          .taint("nvidia.com/gpu", "present", "NoSchedule").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS701");
    CHECK(f.objects.size() == 1);
    CHECK(f.objects[0].name == "p4d-1");
    CHECK_FALSE(has(analyze(healthy()), "GS701"));  // T4s have no MIG
  }
}
