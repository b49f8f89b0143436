// SPDX-License-Identifier: Apache-2.0
// cluster-autoscaler on AWS builds a node of a group at 0 nodes from its Auto Scaling group's
// `k8s.io/cluster-autoscaler/node-template/...` tags, not from the nodes the group had: the
// resources, labels and taints apply gives today's nodes must be tags too, or every scale-up
// from zero plans for the wrong node. The tool cannot change ASG tags; it prints the command.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gpuslice/model/node.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::diagnose {

inline constexpr std::string_view k_node_template_tag = "k8s.io/cluster-autoscaler/node-template";

// One node-template tag: key below k_node_template_tag ("resources/nvidia.com/gpu",
// "label/nvidia.com/gpu.present", "taint/nvidia.com/gpu") and its value ("4", "true",
// "true:NoSchedule").
struct TemplateTag {
  std::string key;
  std::string value;
};

// The Auto Scaling group of one node group, as the CLI argument that names it: the status map's
// name when one of its node groups is this group (exact), else for an EKS managed node group a
// `$(aws eks describe-nodegroup ...)` lookup; `group` is the node group label's value.
struct AsgName {
  std::string group;
  std::string argument;
  bool from_status_map = false;
  const model::Node* member = nullptr; // the group's first node in `nodes` (a group is one instance type)
};

// The AWS node groups (EKS managed: eks.amazonaws.com/nodegroup; eksctl:
// alpha.eksctl.io/nodegroup-name) of `nodes`, in first-seen order, with their ASG names.
// eksctl groups appear only when the status map names their ASG (else their ClusterConfig's
// `tags:` is the place, which the caller says).
std::vector<AsgName> aws_node_group_asgs(const Snapshot& snapshot, const std::vector<const model::Node*>& nodes);

// `aws autoscaling create-or-update-tags --tags ResourceId=<asg>,ResourceType=auto-scaling-group,
// Key=<k8s.io/cluster-autoscaler/node-template/key>,Value=<value>,PropagateAtLaunch=false ...`:
// one command for every tag on every group; "" when there is no group or no tag.
std::string asg_tags_command(const std::vector<AsgName>& asgs, const std::vector<TemplateTag>& tags);
// The same, each group with its own tags (a count that depends on the group's GPUs).
std::string asg_tags_command_by_group(const std::vector<AsgName>& asgs,
                                      const std::function<std::vector<TemplateTag>(const AsgName&)>& tags_of);

// The status map's node groups that no node of the snapshot belongs to (groups at 0 nodes):
// nothing tells whether they are GPU groups, yet they are the ones scale-from-zero builds.
std::vector<std::string> node_groups_without_nodes(const Snapshot& snapshot);

// True when the status map's node group `group` is the node group `pool` by the way providers
// spell group names (EKS ASG eks-<nodegroup>-<id>, GKE MIG gke-<cluster>-<pool>-<id>-grp, AKS
// VMSS aks-<pool>-<id>-vmss, or the name itself).
bool group_name_names_pool(std::string_view group, std::string_view pool);

// cluster-autoscaler runs: its status ConfigMap was read or one of its events is present.
bool autoscaler_seen(const Snapshot& snapshot);

} // namespace gpuslice::diagnose
