// SPDX-License-Identifier: Apache-2.0
#include "autoscaler_tags_note.hpp"

#include <fmt/format.h>

#include <gpuslice/diagnose/asg_tags.hpp>
#include <gpuslice/model.hpp>

namespace gpuslice::remedy {

std::vector<std::string> autoscaler_tag_notes(const Snapshot& snapshot, const ApplyOptions& options) {
  std::vector<std::string> notes;
  if (!diagnose::autoscaler_seen(snapshot) || options.config.replicas < 2) return notes;
  const std::vector<const model::Node*> nodes = select_nodes(snapshot, options.nodes);
  const std::string resource =
      options.config.rename_by_default ? options.config.resource + ".shared" : options.config.resource;
  for (const diagnose::AsgName& asg : diagnose::aws_node_group_asgs(snapshot, nodes)) {
    // The group's physical GPUs per node, from its first node (a group is one instance type).
    const int physical = asg.member ? model::describe_node_gpus(*asg.member).physical : 0;
    if (physical <= 0) continue;
    const std::string command = diagnose::asg_tags_command(
        {asg}, {{"resources/" + resource, std::to_string(physical * options.config.replicas)},
                {fmt::format("label/{}", model::k_label_gpu_present), "true"}});
    notes.push_back(fmt::format("cluster-autoscaler builds a new node of group {} from its Auto Scaling group's "
                                "tags, which apply cannot change: until they say {} {} and the label, a scale-up "
                                "from zero plans {} pod(s) per node: {}",
                                asg.group, physical * options.config.replicas, resource, physical, command));
  }
  return notes;
}

} // namespace gpuslice::remedy
