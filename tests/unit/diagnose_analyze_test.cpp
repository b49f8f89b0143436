// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;
using gpuslice::diagnose::Severity;

TEST_CASE("diagnose::analyze") {
  SUBCASE("the healthy time-sliced cluster has no finding") {
    const Diagnosis d = analyze(healthy());
    for (const Finding& f : d.findings) FAIL_CHECK(gpuslice::diagnose::to_string(f.code), ": ", f.summary);
    REQUIRE(d.nodes.size() == 2);
    CHECK(d.nodes[0].name == "gpu-1");
    CHECK(d.nodes[0].physical_gpus == 1);
    CHECK(d.nodes[0].replicas == 2);
    CHECK(d.nodes[0].allocatable == 2);
    CHECK(d.nodes[0].requested == 1);
    CHECK(d.nodes[0].free == 1);
    CHECK(d.nodes[0].gpu_product == "Tesla-T4-SHARED");
    CHECK(d.nodes[0].resource == "nvidia.com/gpu");
    CHECK(d.nodes[0].taints == std::vector<std::string>{"nvidia.com/gpu=present:NoSchedule"});
    CHECK(d.pending_pods.empty());
  }

  SUBCASE("the runbook incident: time-slicing off, autoscaler at max size") {
    const Diagnosis d = analyze(incident());
    CHECK(codes(d) == std::set<std::string>{"GS100", "GS101", "GS200", "GS201", "GS300"});
    const Finding& gs300 = finding(d, "GS300");
    CHECK(gs300.remedy.command == "kubectl gpuslice apply --replicas 4");
    CHECK(gs300.summary.find("with --replicas 4, 3 of 3 pending pod(s) would fit") != std::string::npos);
    CHECK(gs300.objects.size() == 3);
    REQUIRE(d.pending_pods.size() == 3);
    const auto& pod = d.pending_pods[0];
    CHECK(pod.resource == "nvidia.com/gpu");
    CHECK(pod.gpu_request == 1);
    CHECK(pod.scheduler.source == "condition");
    REQUIRE(pod.scheduler.parsed);
    CHECK(pod.scheduler.parsed->nodes_total == 9);
    CHECK(pod.scaler.verdict == "NotTriggerScaleUp");
    REQUIRE(pod.scaler.autoscaler);
    CHECK(pod.scaler.autoscaler->reasons.size() == 2);
    REQUIRE(d.nodes.size() == 3);
    CHECK(d.nodes[0].free == 0);
  }

  SUBCASE("findings are ordered worst severity first, then by code") {
    gpuslice::Snapshot s = incident();
    s.nodes[0] = gpu_node("ip-10-0-1-1", 1).label("nvidia.com/gpu.present", "false").build();  // GS500 warning
    const Diagnosis d = analyze(s);
    for (std::size_t i = 1; i < d.findings.size(); ++i) {
      const Finding& a = d.findings[i - 1];
      const Finding& b = d.findings[i];
      CHECK((a.severity < b.severity || (a.severity == b.severity && a.code < b.code)));
    }
    CHECK(d.findings.front().severity == Severity::error);
  }

  SUBCASE("a cluster without GPU nodes says so in a note") {
    gpuslice::Snapshot s;
    s.nodes.push_back(NodeBuilder("cpu-1").build());
    const Diagnosis d = analyze(s);
    CHECK(d.findings.empty());
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].find("no GPU nodes") != std::string::npos);
  }

  SUBCASE("a scheduler message in unknown wording is kept verbatim and noted") {
    gpuslice::Snapshot s = healthy();
    add_pending(s, "p", "no GPU for you today");
    const Diagnosis d = analyze(s);
    REQUIRE(d.pending_pods.size() == 1);
    CHECK(d.pending_pods[0].scheduler.message == "no GPU for you today");
    CHECK_FALSE(d.pending_pods[0].scheduler.parsed);
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].find("ml/p not understood") != std::string::npos);
    CHECK(has(d, "GS100"));
  }

  SUBCASE("the event is the fallback when the pod has no PodScheduled message; the newest wins") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("p").build());  // Pending, no conditions yet
    s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "p").last_timestamp("2026-01-01T12:01:00Z")
                           .message("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.").build());
    s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "p").last_timestamp("2026-01-01T12:09:00Z")
                           .message(k_scheduler_message).events_v1(3).build());
    const Diagnosis d = analyze(s);
    REQUIRE(d.pending_pods.size() == 1);
    CHECK(d.pending_pods[0].scheduler.source == "event");
    CHECK(d.pending_pods[0].scheduler.message == k_scheduler_message);
  }

  SUBCASE("--replicas given by the user is the one recommended") {
    gpuslice::diagnose::AnalyzeOptions options;
    options.replicas = 3;
    const Diagnosis d = analyze(incident(), options);
    CHECK(finding(d, "GS300").remedy.command == "kubectl gpuslice apply --replicas 3");
  }
}
