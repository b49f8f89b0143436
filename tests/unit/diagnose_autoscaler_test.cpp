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

  SUBCASE("GS200's command is offered only when new nodes like the group's would take the pods") {
    // Two EKS node groups: gpu-a's nodes are tainted dedicated=ml, which the pods do not tolerate;
    // gpu-b's one node has 4 free-when-new GPUs. Only a higher max size for gpu-b places them.
    gpuslice::Snapshot s = incident();
    for (gpuslice::model::Node& n : s.nodes) {
      if (!gpuslice::model::is_gpu_node(n)) continue;
      n.meta.labels.insert_or_assign("eks.amazonaws.com/nodegroup", "gpu-a");
      n.taints.push_back({"dedicated", "ml", "NoSchedule", ""});
    }
    s.nodes.push_back(NodeBuilder("ip-10-0-3-1").instance_type("g4dn.12xlarge").gpus(4).gfd("Tesla-T4", 4, 1, 15360)
                          .label("nvidia.com/gpu.present", "true").label("eks.amazonaws.com/nodegroup", "gpu-b")
                          .taint("nvidia.com/gpu", "present", "NoSchedule").build());
    auto at_max = [](const std::string& group) {
      return gpuslice::AutoscalerStatus{"kube-system",
                                        "autoscalerStatus: Running\nnodeGroups:\n- name: " + group +
                                            "\n  health:\n    status: Healthy\n    cloudProviderTarget: 2\n"
                                            "    minSize: 0\n    maxSize: 2\n",
                                        ""};
    };

    s.autoscaler_status = at_max("eks-gpu-a-d7572246-7cfa-552c-8397-b28956cc475a");
    const Finding blocked = finding_copy(analyze(s), "GS200");
    CHECK(blocked.remedy.command.empty());
    CHECK(blocked.remedy.text.find("would place none of the 3 pending pod(s)") != std::string::npos);
    CHECK(blocked.remedy.text.find("dedicated=ml:NoSchedule") != std::string::npos);
    CHECK(blocked.remedy.text.find("a new node like ip-10-0-1-1 ") != std::string::npos);
    CHECK(blocked.evidence.back() == "node group eks-gpu-a-d7572246-7cfa-552c-8397-b28956cc475a: target 2 = maxSize 2");

    s.autoscaler_status = at_max("eks-gpu-b-7fbb6db4-0ca9-513d-a1ad-39c6159962cb");
    const Finding raised = finding_copy(analyze(s), "GS200");
    CHECK(raised.remedy.command == "aws autoscaling update-auto-scaling-group --auto-scaling-group-name "
                                   "eks-gpu-b-7fbb6db4-0ca9-513d-a1ad-39c6159962cb --max-size 3");
    CHECK(raised.remedy.text.find("1 new node(s) like ip-10-0-3-1 would take 3 of 3 pending pod(s)") != std::string::npos);
  }

  SUBCASE("GS200 with no GPU node to model a new one on withholds the command") {
    gpuslice::Snapshot s = incident();
    std::erase_if(s.nodes, [](const gpuslice::model::Node& n) { return gpuslice::model::is_gpu_node(n); });
    s.autoscaler_status = gpuslice::AutoscalerStatus{
        "kube-system", "nodeGroups:\n- name: eks-gpu-a\n  health:\n    cloudProviderTarget: 3\n    maxSize: 3\n", ""};
    const Finding f = finding_copy(analyze(s), "GS200");
    CHECK(f.remedy.command.empty());
    CHECK(f.remedy.text.find("no GPU node of these groups") != std::string::npos);
  }

  SUBCASE("GS200 from Karpenter's NodePool limits") {
    gpuslice::Snapshot s = healthy();
    s.pods.push_back(inference_pod("k").unschedulable(k_scheduler_message).build());
    s.events.push_back(EventBuilder("FailedScheduling", "ml").pod("ml", "k").source("karpenter")
                           .message("Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=gpu)")
                           .build());
    const Diagnosis d = analyze(s);
    CHECK(finding(d, "GS200").remedy.command == "kubectl edit nodepool gpu");
    CHECK(finding(d, "GS200").remedy.text.find("1 new node(s) like gpu-1 would take 1 of 1 pending pod(s)") !=
          std::string::npos);
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
