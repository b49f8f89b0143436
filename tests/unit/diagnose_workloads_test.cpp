// SPDX-License-Identifier: Apache-2.0
// GS6xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

TEST_CASE("diagnose::find_workloads") {
  SUBCASE("GS600 workload-lacks-gpu-toleration: judged on the pods the API returns") {
    gpuslice::Snapshot s = healthy();
    s.deployments.push_back(DeploymentBuilder("ml", "trainer").container("job", "trainer:1").gpus(1).build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS600");
    CHECK(f.summary == "Deployment ml/trainer requests GPUs but does not tolerate nvidia.com/gpu=present:NoSchedule");
    CHECK(f.evidence[1] == "judged on the pod template (no pod of it exists)");
    // EKS: the template has no toleration, but its pod got one from ExtendedResourceToleration.
    PodBuilder admitted("ml", "trainer-7c9-x");
    admitted.label("app", "trainer").container("job", "trainer:1").gpus(1).toleration("nvidia.com/gpu").running_on("gpu-1");
    s.pods.push_back(admitted.build());
    CHECK_FALSE(has(analyze(s), "GS600"));
    CHECK_FALSE(has(analyze(healthy()), "GS600"));
  }

  SUBCASE("GS601 multi-gpu-request-time-sliced") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("big").node_selector("x", "y").gpus(2).running_on("gpu-1").build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS601");
    CHECK(f.remedy.command == "kubectl -n ml set resources deployment/gpu-inference --limits=nvidia.com/gpu=1");
    CHECK_FALSE(has(analyze(healthy()), "GS601"));
  }

  SUBCASE("GS602 selector-on-shared-product-label") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("pinned").node_selector("nvidia.com/gpu.product", "Tesla-T4")
                         .unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
                         .build());
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS602");
    CHECK(f.remedy.command.find(R"("nvidia.com/gpu.product":"Tesla-T4-SHARED")") != std::string::npos);
    CHECK_FALSE(has(d, "GS103"));  // the one cause, said once
    gpuslice::Snapshot twin = healthy();
    twin.pods.push_back(inference_pod("pinned").node_selector("nvidia.com/gpu.product", "Tesla-T4-SHARED")
                            .unschedulable(k_scheduler_message).build());
    CHECK_FALSE(has(analyze(twin), "GS602"));
  }
}
