// SPDX-License-Identifier: Apache-2.0
// The ASG tag command: ASG names from the status map, the EKS lookup without it, eksctl groups
// only when named, one command for every tag; and GS204's command and what CA gets wrong.
#include <doctest/doctest.h>

#include <gpuslice/diagnose/asg_tags.hpp>

#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;
using gpuslice::diagnose::AsgName;
using gpuslice::diagnose::aws_node_group_asgs;
using gpuslice::diagnose::asg_tags_command;

namespace {

constexpr const char* k_status_two_groups =
    "autoscalerStatus: Running\nnodeGroups:\n"
    "- name: eks-gpu-t4-20c6a1b2-9f3e-4d5a-8b7c-1a2b3c4d5e6f\n  health:\n    status: Healthy\n"
    "    cloudProviderTarget: 2\n    minSize: 0\n    maxSize: 5\n"
    "- name: eks-cpu-70c6a1b2-9f3e-4d5a-8b7c-1a2b3c4d5e6f\n  health:\n    status: Healthy\n"
    "    cloudProviderTarget: 1\n    minSize: 1\n    maxSize: 5\n";

std::vector<const gpuslice::model::Node*> all_nodes_of(const gpuslice::Snapshot& s) {
  std::vector<const gpuslice::model::Node*> out;
  for (const auto& n : s.nodes) out.push_back(&n);
  return out;
}

gpuslice::Snapshot eks_groups(const std::string& status_text) {
  gpuslice::Snapshot s = healthy();
  for (auto& n : s.nodes) {
    if (gpuslice::model::is_gpu_node(n)) n.meta.labels.insert_or_assign("eks.amazonaws.com/nodegroup", "gpu-t4");
  }
  if (!status_text.empty()) s.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", status_text, ""};
  return s;
}

} // namespace

TEST_CASE("diagnose::aws_node_group_asgs") {
  SUBCASE("the status map names the managed node group's ASG") {
    const gpuslice::Snapshot s = eks_groups(k_status_two_groups);
    const std::vector<AsgName> asgs = aws_node_group_asgs(s, all_nodes_of(s));
    REQUIRE(asgs.size() == 1); // two nodes, one group; the CPU node has no group label
    CHECK(asgs[0].group == "gpu-t4");
    CHECK(asgs[0].argument == "eks-gpu-t4-20c6a1b2-9f3e-4d5a-8b7c-1a2b3c4d5e6f");
    CHECK(asgs[0].from_status_map);
  }
  SUBCASE("EKS's eks-<group>-<uuid> name wins over a longer group's that contains it") {
    const gpuslice::Snapshot s = eks_groups(
        "autoscalerStatus: Running\nnodeGroups:\n"
        "- name: eks-gpu-t4-spot-01504fd9-0fe4-5a81-bd2b-2bc54361c461\n  health:\n    status: Healthy\n"
        "- name: eks-gpu-t4-d7572246-7cfa-552c-8397-b28956cc475a\n  health:\n    status: Healthy\n");
    const std::vector<AsgName> asgs = aws_node_group_asgs(s, all_nodes_of(s));
    REQUIRE(asgs.size() == 1);
    CHECK(asgs[0].argument == "eks-gpu-t4-d7572246-7cfa-552c-8397-b28956cc475a");
  }
  SUBCASE("without the map a managed group's ASG is looked up by cluster and node group name") {
    gpuslice::Snapshot s = eks_groups("");
    s.nodes[0].meta.labels.insert_or_assign("alpha.eksctl.io/cluster-name", "prod");
    const std::vector<AsgName> asgs = aws_node_group_asgs(s, all_nodes_of(s));
    REQUIRE(asgs.size() == 1);
    CHECK(asgs[0].argument == "$(aws eks describe-nodegroup --cluster-name prod --nodegroup-name gpu-t4 "
                              "--query 'nodegroup.resources.autoScalingGroups[0].name' --output text)");
    CHECK_FALSE(asgs[0].from_status_map);
  }
  SUBCASE("an eksctl (unmanaged) group only when the map names its ASG") {
    gpuslice::Snapshot s = healthy();
    for (auto& n : s.nodes) {
      if (gpuslice::model::is_gpu_node(n)) n.meta.labels.insert_or_assign("alpha.eksctl.io/nodegroup-name", "gpu-t4");
    }
    CHECK(aws_node_group_asgs(s, all_nodes_of(s)).empty());
    s.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", k_status_two_groups, ""};
    REQUIRE(aws_node_group_asgs(s, all_nodes_of(s)).size() == 1);
  }
  SUBCASE("nodes of no AWS group give none (GKE, AKS, bare metal)") {
    const gpuslice::Snapshot s = healthy();
    CHECK(aws_node_group_asgs(s, all_nodes_of(s)).empty());
  }
}

TEST_CASE("diagnose::asg_tags_command") {
  const std::vector<AsgName> asgs = {{"a", "asg-a", true}, {"b", "asg-b", true}};
  CHECK(asg_tags_command(asgs, {{"resources/nvidia.com/gpu", "4"}, {"taint/nvidia.com/gpu", "true:NoSchedule"}}) ==
        "aws autoscaling create-or-update-tags --tags "
        "ResourceId=asg-a,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/resources/"
        "nvidia.com/gpu,Value=4,PropagateAtLaunch=false "
        "ResourceId=asg-a,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/taint/"
        "nvidia.com/gpu,Value=true:NoSchedule,PropagateAtLaunch=false "
        "ResourceId=asg-b,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/resources/"
        "nvidia.com/gpu,Value=4,PropagateAtLaunch=false "
        "ResourceId=asg-b,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/taint/"
        "nvidia.com/gpu,Value=true:NoSchedule,PropagateAtLaunch=false");
  CHECK(asg_tags_command({}, {{"resources/nvidia.com/gpu", "4"}}).empty());
  CHECK(asg_tags_command(asgs, {}).empty());
}

TEST_CASE("GS204 names the ASG, tags the slots, the label and the taint, and says what CA gets wrong") {
  gpuslice::Snapshot s = eks_groups(k_status_two_groups);
  add_pending(s, "p1", k_scheduler_message);
  add_pending(s, "p2", k_scheduler_message);
  add_pending(s, "p3", k_scheduler_message);
  const Finding f = finding_copy(analyze(s), "GS204");
  const std::string asg = "ResourceId=eks-gpu-t4-20c6a1b2-9f3e-4d5a-8b7c-1a2b3c4d5e6f,ResourceType=auto-scaling-group,";
  CHECK(f.remedy.command ==
        "aws autoscaling create-or-update-tags --tags " + asg +
            "Key=k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu,Value=2,PropagateAtLaunch=false " +
            asg + "Key=k8s.io/cluster-autoscaler/node-template/label/nvidia.com/gpu.present,Value=true,"
                  "PropagateAtLaunch=false " +
            asg + "Key=k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu,Value=present:NoSchedule,"
                  "PropagateAtLaunch=false");
  // One T4 × 2 replicas: CA plans 1 pod per new node, so 3 pending pods get 3 nodes, not 2.
  CHECK(std::find(f.evidence.begin(), f.evidence.end(),
                  "until then a scale-up from zero plans 1 pod(s) per new node, not 2: for the 3 pending pod(s) it "
                  "adds 3 node(s) where 2 would do") != f.evidence.end());

  SUBCASE("a group at 0 nodes is named in the text, not guessed into the command") {
    CHECK(f.remedy.text.find("Node groups at 0 nodes (eks-cpu-70c6a1b2-9f3e-4d5a-8b7c-1a2b3c4d5e6f) have no node") !=
          std::string::npos);
    CHECK(f.remedy.command.find("eks-cpu-") == std::string::npos);
  }
  SUBCASE("without any AWS group the ASG is a placeholder") {
    gpuslice::Snapshot plain = healthy();
    plain.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", "autoscalerStatus: Running\n", ""};
    CHECK(finding_copy(analyze(plain), "GS204").remedy.command.starts_with(
        "aws autoscaling create-or-update-tags --tags ResourceId=<gpu-node-group-asg>,"));
  }
}
