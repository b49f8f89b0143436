// SPDX-License-Identifier: Apache-2.0
// GS5xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

TEST_CASE("diagnose::find_nodes") {
  SUBCASE("GS500 gpu-node-missing-present-label") {
    gpuslice::Snapshot s = healthy();
    s.nodes[1].meta.labels.erase("nvidia.com/gpu.present");
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS500");
    CHECK(f.evidence.front() == "node gpu-2: nvidia.com/gpu.present=(absent)");
    CHECK(f.remedy.command == "kubectl label nodes gpu-2 nvidia.com/gpu.present=true --overwrite");
    CHECK_FALSE(has(analyze(healthy()), "GS500"));
  }

  SUBCASE("GS501 gpu-node-untainted") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0].taints.clear();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS501");
    CHECK(f.remedy.command == "kubectl taint nodes gpu-1 nvidia.com/gpu=present:NoSchedule");
    CHECK_FALSE(has(analyze(healthy()), "GS501"));
  }

  SUBCASE("GS502 gpu-node-not-ready: cordoned nodes get uncordon, NotReady ones describe") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0] = gpu_node("gpu-1", 2).unschedulable().build();
    const Diagnosis cordoned = analyze(s);
    CHECK(finding(cordoned, "GS502").remedy.command == "kubectl uncordon gpu-1");
    REQUIRE(cordoned.nodes.size() == 2);
    CHECK_FALSE(cordoned.nodes[0].schedulable);  // never hidden from the inventory
    s.nodes[1] = gpu_node("gpu-2", 2).not_ready().build();
    const Diagnosis both = analyze(s);
    const Finding& f = finding(both, "GS502");
    CHECK(f.remedy.command == "kubectl describe node gpu-2");
    CHECK(f.evidence[1] == "node gpu-2: Ready=False (KubeletNotReady)");
    CHECK_FALSE(has(analyze(healthy()), "GS502"));
  }

  SUBCASE("GS503 gpu-node-advertises-nothing") {
    gpuslice::Snapshot s = healthy();
    s.nodes.push_back(NodeBuilder("gpu-3").instance_type("g4dn.xlarge").label("nvidia.com/gpu.present", "true")
                          .taint("nvidia.com/gpu", "present", "NoSchedule").build());
    s.pods.push_back(plugin_pod("gpu-3").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS503");
    CHECK(f.evidence.front() == "node gpu-3 (g4dn.xlarge, 1 GPU(s) expected): allocatable has no nvidia.com GPU resource");
    CHECK(f.remedy.command == "kubectl -n nvidia logs nvdp-nvidia-device-plugin-gpu-3 --all-containers");
    CHECK_FALSE(has(analyze(healthy()), "GS503"));
    s.autoscaler_status = gpuslice::AutoscalerStatus{
        "kube-system", "clusterWide:\n  health:\n    nodeCounts:\n      registered:\n        unready:\n          resourceUnready: 1\n", ""};
    const Diagnosis with_ca = analyze(s);
    CHECK(finding(with_ca, "GS503").evidence.back().find("1 node(s) as resourceUnready") != std::string::npos);
  }
}
