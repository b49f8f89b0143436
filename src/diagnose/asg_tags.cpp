// SPDX-License-Identifier: Apache-2.0
// The ASG tag command for new nodes of GPU node groups (see asg_tags.hpp). ASG names come from
// the cluster-autoscaler status map, whose node groups on AWS are the ASG names; an EKS managed
// node group's ASG is eks-<nodegroup>-<uuid>, so without the map it is looked up by name.
#include <gpuslice/diagnose/asg_tags.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/diagnose.hpp>

namespace gpuslice::diagnose {

namespace {

constexpr std::string_view k_managed_group_label = "eks.amazonaws.com/nodegroup";
constexpr std::string_view k_eksctl_group_label = "alpha.eksctl.io/nodegroup-name";
constexpr std::string_view k_eksctl_cluster_label = "alpha.eksctl.io/cluster-name";

// The node's AWS node group: the EKS managed group, else the eksctl one; "" for neither.
std::string_view aws_group_of(const model::Node& node) {
  if (const std::optional<std::string_view> managed = node.meta.label(k_managed_group_label)) return *managed;
  return node.meta.label(k_eksctl_group_label).value_or(std::string_view{});
}

std::vector<std::string> status_map_groups(const Snapshot& snapshot) {
  std::vector<std::string> names;
  if (!snapshot.autoscaler_status) return names;
  const Parsed<AutoscalerHealth> health = parse_autoscaler_status(snapshot.autoscaler_status->text);
  if (!health) return names;
  for (const NodeGroupStatus& g : health.value->node_groups) {
    if (!g.name.empty()) names.push_back(g.name);
  }
  return names;
}

// EKS names a managed node group's ASG eks-<nodegroup>-<uuid>: exact, where the looser match
// of group_name_names_pool would take gpu-t4's for gpu-t4-spot's.
bool is_eks_asg_of(std::string_view asg, std::string_view group) {
  constexpr std::size_t k_uuid = 36;
  if (asg.size() != 4 + group.size() + 1 + k_uuid || !asg.starts_with("eks-")) return false;
  const std::string_view uuid = asg.substr(asg.size() - k_uuid);
  const bool uuid_shaped = std::all_of(uuid.begin(), uuid.end(), [](char c) {
    return c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  return uuid_shaped && asg.substr(4, group.size()) == group && asg[4 + group.size()] == '-';
}

std::string describe_nodegroup_lookup(const model::Node& node, std::string_view group) {
  const std::optional<std::string_view> cluster = node.meta.label(k_eksctl_cluster_label);
  return fmt::format("$(aws eks describe-nodegroup --cluster-name {} --nodegroup-name {} "
                     "--query 'nodegroup.resources.autoScalingGroups[0].name' --output text)",
                     cluster ? std::string(*cluster) : std::string("<cluster>"), group);
}

} // namespace

bool group_name_names_pool(std::string_view group, std::string_view pool) {
  if (pool.empty()) return false;
  if (group == pool) return true;
  const std::string dashed = fmt::format("-{}-", pool);
  return group.find(dashed) != std::string_view::npos || group.starts_with(dashed.substr(1)) ||
         group.ends_with(dashed.substr(0, dashed.size() - 1));
}

std::vector<AsgName> aws_node_group_asgs(const Snapshot& snapshot, const std::vector<const model::Node*>& nodes) {
  const std::vector<std::string> mapped = status_map_groups(snapshot);
  std::vector<AsgName> out;
  for (const model::Node* node : nodes) {
    const std::string_view group = aws_group_of(*node);
    if (group.empty()) continue;
    if (std::any_of(out.begin(), out.end(), [&](const AsgName& a) { return a.group == group; })) continue;
    auto named = std::find_if(mapped.begin(), mapped.end(), [&](const std::string& g) { return is_eks_asg_of(g, group); });
    if (named == mapped.end()) {
      named = std::find_if(mapped.begin(), mapped.end(), [&](const std::string& g) { return group_name_names_pool(g, group); });
    }
    if (named != mapped.end()) {
      out.push_back({std::string(group), *named, true, node});
    } else if (node->meta.label(k_managed_group_label)) {
      out.push_back({std::string(group), describe_nodegroup_lookup(*node, group), false, node});
    }
  }
  return out;
}

std::vector<std::string> node_groups_without_nodes(const Snapshot& snapshot) {
  std::vector<std::string> empty;
  for (const std::string& g : status_map_groups(snapshot)) {
    const bool has_node = std::any_of(snapshot.nodes.begin(), snapshot.nodes.end(), [&](const model::Node& n) {
      const std::string_view group = aws_group_of(n);
      return !group.empty() && (is_eks_asg_of(g, group) || group_name_names_pool(g, group));
    });
    if (!has_node) empty.push_back(g);
  }
  return empty;
}

std::string asg_tags_command_by_group(const std::vector<AsgName>& asgs,
                                      const std::function<std::vector<TemplateTag>(const AsgName&)>& tags_of) {
  std::string tag_list;
  for (const AsgName& asg : asgs) {
    for (const TemplateTag& tag : tags_of(asg)) {
      tag_list += fmt::format(" ResourceId={},ResourceType=auto-scaling-group,Key={}/{},Value={},PropagateAtLaunch=false",
                              asg.argument, k_node_template_tag, tag.key, tag.value);
    }
  }
  return tag_list.empty() ? "" : "aws autoscaling create-or-update-tags --tags" + tag_list;
}

std::string asg_tags_command(const std::vector<AsgName>& asgs, const std::vector<TemplateTag>& tags) {
  return asg_tags_command_by_group(asgs, [&](const AsgName&) { return tags; });
}

bool autoscaler_seen(const Snapshot& snapshot) {
  return snapshot.autoscaler_status.has_value() ||
         std::any_of(snapshot.events.begin(), snapshot.events.end(),
                     [](const model::Event& e) { return e.component() == "cluster-autoscaler"; });
}

} // namespace gpuslice::diagnose
