// SPDX-License-Identifier: Apache-2.0
// GS3xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

TEST_CASE("diagnose::find_sharing") {
  SUBCASE("GS300 time-slicing-disabled: says how many pending pods would fit, and the memory per share") {
    const Diagnosis d = analyze(incident());
    const Finding& f = finding(d, "GS300");
    CHECK(f.summary == "3 GPU pod(s) are Pending while 3 GPU node(s) advertise only their 3 physical GPU(s); "
                       "with --replicas 4, 3 of 3 pending pod(s) would fit");
    CHECK(f.evidence.back() == "with 4 replicas each share of a 15360 MiB GPU gets about 3840 MiB, without memory "
                               "isolation");
    // The twin is time-sliced already: GS300 is silent (GS301 speaks instead).
    gpuslice::Snapshot twin = healthy();
    add_pending(twin, "p", k_scheduler_message);
    CHECK_FALSE(has(analyze(twin), "GS300"));
  }

  SUBCASE("GS300 counts only pods that could land: a pod no GPU node admits does not fit") {
    gpuslice::Snapshot s = incident();
    s.pods.push_back(inference_pod("pinned").node_selector("pool", "a100").unschedulable(k_scheduler_message).build());
    CHECK(finding_copy(analyze(s), "GS300").summary.find("3 of 4 pending pod(s) would fit") != std::string::npos);
  }

  SUBCASE("GS301 gpu-slots-exhausted") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("extra-1").running_on("gpu-1").build());
    s.pods.push_back(inference_pod("extra-2").running_on("gpu-2").build());
    add_pending(s, "p", k_scheduler_message);
    const Diagnosis f_d = analyze(s);
    const Finding& f = finding(f_d, "GS301");
    CHECK(f.summary == "4 of 4 GPU slot(s) are requested (2 replicas per GPU) and 1 GPU pod(s) wait");
    CHECK(f.remedy.command == "kubectl gpuslice apply --replicas 4");
    CHECK_FALSE(has(analyze(incident()), "GS301"));  // not time-sliced: GS300's case
  }

  SUBCASE("GS302 replicas-not-advertised, with the stale-config evidence") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0] = gpu_node("gpu-1", 1).build();
    // The ConfigMap was created after the plugin pods started.
    s.configmaps[0] = ConfigMapBuilder("nvidia", "nvdp-config").data("any", k_time_slicing_config)
                          .created("2026-01-01T13:00:00Z").build();
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS302");
    CHECK(f.objects.front().name == "gpu-1");
    CHECK(f.remedy.command == "kubectl -n nvidia rollout restart daemonset/nvdp-nvidia-device-plugin");
    REQUIRE(f.evidence.size() == 2);
    CHECK(f.evidence[1].find("after plugin pod nvdp-nvidia-device-plugin-gpu-1 started") != std::string::npos);
    CHECK_FALSE(has(analyze(healthy()), "GS302"));
  }

  SUBCASE("GS302 follows the node's config label to another key") {
    gpuslice::Snapshot s = healthy();
    s.configmaps[0] = ConfigMapBuilder("nvidia", "nvdp-config").data("any", k_time_slicing_config)
                          .data("four", "sharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 4}]\n")
                          .build();
    CHECK_FALSE(has(analyze(s), "GS302"));  // two keys, no default, no label: the plugin picks none
    s.nodes[0] = gpu_node("gpu-1", 2).label("nvidia.com/device-plugin.config", "four").build();
    CHECK(finding_copy(analyze(s), "GS302").evidence.front() == "ConfigMap nvidia/nvdp-config key \"four\": replicas 4 for nvidia.com/gpu");
  }

  SUBCASE("GS303 non-gpu-pods-on-gpu-nodes") {
    gpuslice::Snapshot s = healthy();
    PodBuilder web("shop", "web-1");
    web.owner("ReplicaSet", "web-6f").container("web", "nginx").toleration("", "Exists", "", "").running_on("gpu-1");
    s.pods.push_back(web.build());
    const Diagnosis f_d = analyze(s);
    const Finding& f = finding(f_d, "GS303");
    CHECK(f.evidence.front() == "shop/web-1 on gpu-1");
    CHECK(f.remedy.command == "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-1");
    gpuslice::Snapshot twin = healthy();
    PodBuilder agent("monitoring", "node-exporter-x");
    agent.owner("DaemonSet", "node-exporter").container("exporter", "node-exporter").running_on("gpu-1");
    twin.pods.push_back(agent.build());
    CHECK_FALSE(has(analyze(twin), "GS303"));
  }

  SUBCASE("GS304 vram-oversubscription-risk") {
    gpuslice::Snapshot s = healthy();
    s.nodes[0] = gpu_node("gpu-1", 4).build();
    const Diagnosis f_d = analyze(s);
    const Finding& f = finding(f_d, "GS304");
    CHECK(f.evidence.front() == "node gpu-1: Tesla-T4-SHARED with 15360 MiB / 4 replicas = 3840 MiB per share");
    CHECK(f.remedy.command == "kubectl gpuslice apply --replicas 3");
    CHECK_FALSE(has(analyze(healthy()), "GS304"));  // 2 replicas: 7680 MiB per share
  }
}
