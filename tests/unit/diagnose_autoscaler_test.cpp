// SPDX-License-Identifier: Apache-2.0
// GS2xx: each code fires on a cluster built to trigger it and stays silent on its twin.
#include <doctest/doctest.h>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

namespace {

gpuslice::Snapshot refused(const std::string& autoscaler_message) {
  gpuslice::Snapshot s = healthy();
  add_pending(s, "p", k_scheduler_message, autoscaler_message);
  return s;
}

} // namespace

TEST_CASE("diagnose::find_autoscaler") {
  SUBCASE("GS200 autoscaler-max-size-reached, naming the group from the status map") {
    gpuslice::Snapshot s = incident();
    s.autoscaler_status = gpuslice::AutoscalerStatus{
        "kube-system",
        "autoscalerStatus: Running\nnodeGroups:\n- name: eks-gpu-a\n  health:\n    status: Healthy\n"
        "    cloudProviderTarget: 3\n    minSize: 0\n    maxSize: 3\n",
        ""};
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS200");
    CHECK(f.evidence.back() == "node group eks-gpu-a: target 3 = maxSize 3");
    CHECK(f.remedy.command == "aws autoscaling update-auto-scaling-group --auto-scaling-group-name eks-gpu-a --max-size 6");
    CHECK_FALSE(has(analyze(refused("pod didn't trigger scale-up: 2 node(s) didn't match Pod's node affinity/selector")), "GS200"));
  }

  SUBCASE("GS200 from Karpenter's NodePool limits") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("k").unschedulable(k_scheduler_message).build());
    s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "k").source("karpenter")
                           .message("Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=gpu)")
                           .build());
    const Diagnosis d = analyze(s);
    CHECK(finding(d, "GS200").remedy.command == "kubectl edit nodepools");
    REQUIRE(d.pending_pods.size() == 1);
    CHECK(d.pending_pods[0].scaler.component == "karpenter");
  }

  SUBCASE("GS201 autoscaler-group-selector-mismatch") {
    const Diagnosis d = analyze(incident());
    CHECK(has(d, "GS201"));
    CHECK_FALSE(has(analyze(refused("pod didn't trigger scale-up: 1 max node group size reached")), "GS201"));
  }

  SUBCASE("GS202 autoscaler-template-lacks-gpu") {
    const Diagnosis d = analyze(refused("pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu"));
    const Finding& f = finding(d, "GS202");
    CHECK(f.remedy.command.find("Key=k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu,Value=2") !=
          std::string::npos);
    CHECK_FALSE(has(analyze(incident()), "GS202"));
  }

  SUBCASE("GS203 autoscaler-backoff, from the verdict and from the status map") {
    CHECK(has(analyze(refused("pod didn't trigger scale-up: 1 in backoff after failed scale-up")), "GS203"));
    gpuslice::Snapshot s = healthy();
    s.autoscaler_status = gpuslice::AutoscalerStatus{
        "tools", "nodeGroups:\n- name: g\n  scaleUp:\n    status: Backoff\n    backoffInfo:\n      errorCode: "
                 "placeholder-cannot-be-fulfilled\n      errorMessage: AWS cannot provision any more instances\n", ""};
    const Diagnosis d = analyze(s);
    const Finding& f = finding(d, "GS203");
    CHECK(f.evidence.front().find("placeholder-cannot-be-fulfilled") != std::string::npos);
    CHECK(f.remedy.command == "kubectl -n tools describe configmap cluster-autoscaler-status");
    CHECK_FALSE(has(analyze(incident()), "GS203"));
  }

  SUBCASE("GS204 autoscaler-blind-to-replicas") {
    gpuslice::Snapshot s = healthy();
    s.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", "autoscalerStatus: Running\n", ""};
    const Diagnosis d = analyze(s);
    CHECK(finding(d, "GS204").remedy.command.find("resources/nvidia.com/gpu,Value=2") != std::string::npos);
    CHECK_FALSE(has(analyze(healthy()), "GS204"));  // no autoscaler
    CHECK_FALSE(has(analyze(incident()), "GS204"));  // autoscaler, no time-slicing
  }
}
