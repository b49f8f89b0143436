// SPDX-License-Identifier: Apache-2.0
// `nodes label` and `nodes taint`: the GPU nodes' nvidia.com/gpu.present label (the chart's
// DaemonSet schedules only there) and the GPU taint that keeps other pods off them.
#include <gpuslice/remedy/plan.hpp>

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <gpuslice/diagnose/asg_tags.hpp>

#include <gpuslice/error.hpp>
#include <gpuslice/model.hpp>

namespace gpuslice::remedy {

namespace {

// What a diff of a node should show: identity, labels, annotations and spec; status changes
// every few seconds and is never ours to change.
nlohmann::json node_display(const model::Node& node) {
  nlohmann::json out = model::to_json(node);
  out.erase("status");
  out["metadata"].erase("resourceVersion");
  return out;
}

nlohmann::json taint_json(const TaintOptions& taint) {
  nlohmann::json out = {{"key", taint.key}, {"effect", taint.effect}};
  if (!taint.value.empty()) out["value"] = taint.value;
  return out;
}

std::string taint_text(const TaintOptions& taint) {
  return model::to_string(model::Taint{taint.key, taint.value, taint.effect, ""});
}

using PodsByNode = std::unordered_map<std::string_view, std::vector<const model::Pod*>>;

// The snapshot's pods by spec.nodeName, in snapshot order: one pass instead of one per node (at
// scenario L, 500 GPU nodes times ~17,000 kept pods).
PodsByNode pods_by_node(const Snapshot& snapshot) {
  PodsByNode out;
  for (const model::Pod& pod : snapshot.pods) {
    if (!pod.spec.node_name.empty()) out[pod.spec.node_name].push_back(&pod);
  }
  return out;
}

// Non-GPU pods on the node that do not tolerate the taint: NoSchedule leaves them running.
std::vector<std::string> pods_staying(const PodsByNode& pods, const model::Node& node, const model::Taint& taint) {
  std::vector<std::string> names;
  const auto on_node = pods.find(node.name());
  if (on_node == pods.end()) return names;
  for (const model::Pod* pod : on_node->second) {
    if (model::gpu_units(model::effective_gpu_requests(pod->spec)) > 0) continue;
    if (pod->phase == "Succeeded" || pod->phase == "Failed") continue;
    if (model::tolerated(pod->spec.tolerations, taint)) continue;
    names.push_back(pod->meta.ns + "/" + pod->meta.name);
  }
  return names;
}

// The settings that make new nodes of each group come up tainted, by how the group is managed.
std::vector<std::string> node_group_notes(const Snapshot& snapshot, const std::vector<const model::Node*>& nodes,
                                          const TaintOptions& taint) {
  std::set<std::string> managed;
  std::set<std::string> eksctl;
  std::set<std::string> karpenter;
  for (const model::Node* node : nodes) {
    if (auto group = node->meta.label("eks.amazonaws.com/nodegroup")) managed.insert(std::string(*group));
    if (auto group = node->meta.label("alpha.eksctl.io/nodegroup-name")) eksctl.insert(std::string(*group));
    if (auto pool = node->meta.label("karpenter.sh/nodepool")) karpenter.insert(std::string(*pool));
  }
  std::string effect_upper = taint.effect == "NoSchedule"         ? "NO_SCHEDULE"
                             : taint.effect == "NoExecute"        ? "NO_EXECUTE"
                             : taint.effect == "PreferNoSchedule" ? "PREFER_NO_SCHEDULE"
                                                                  : taint.effect;
  std::vector<std::string> notes;
  for (const std::string& group : managed) {
    notes.push_back(fmt::format(
        "EKS managed node group {0}: new nodes come up untainted unless the group has the taint: "
        "aws eks update-nodegroup-config --cluster-name <cluster> --nodegroup-name {0} "
        "--taints 'addOrUpdateTaints=[{{key={1},value={2},effect={3}}}]'",
        group, taint.key, taint.value, effect_upper));
  }
  for (const std::string& group : eksctl) {
    notes.push_back(fmt::format("eksctl node group {0}: add to its ClusterConfig entry "
                                "taints: [{{key: {1}, value: \"{2}\", effect: {3}}}]",
                                group, taint.key, taint.value, taint.effect));
  }
  for (const std::string& pool : karpenter) {
    notes.push_back(fmt::format("Karpenter NodePool {0}: add spec.template.spec.taints "
                                "[{{key: {1}, value: \"{2}\", effect: {3}}}]",
                                pool, taint.key, taint.value, taint.effect));
  }
  if (!managed.empty() || !eksctl.empty()) {
    const std::string command = diagnose::asg_tags_command(
        diagnose::aws_node_group_asgs(snapshot, nodes),
        {{"taint/" + taint.key, fmt::format("{}:{}", taint.value, taint.effect)}});
    notes.push_back(command.empty()
                        ? fmt::format("cluster-autoscaler scale-from-zero: tag each GPU node group's Auto Scaling "
                                      "group with {}/taint/{}={}:{}",
                                      diagnose::k_node_template_tag, taint.key, taint.value, taint.effect)
                        : "cluster-autoscaler scale-from-zero builds new nodes from the Auto Scaling group's tags: " +
                              command);
  }
  return notes;
}

} // namespace

std::vector<const model::Node*> select_nodes(const Snapshot& snapshot, const NodeSelection& selection) {
  std::optional<model::LabelSelector> selector;
  if (!selection.selector.empty()) {
    model::Parsed<model::LabelSelector> parsed = model::parse_selector_string(selection.selector);
    if (!parsed) throw UsageError(fmt::format("--selector \"{}\": {}", selection.selector, parsed.error));
    selector = *parsed.value;
  }
  for (const std::string& name : selection.nodes) {
    const bool known = std::any_of(snapshot.nodes.begin(), snapshot.nodes.end(),
                                   [&](const model::Node& node) { return node.name() == name; });
    if (!known) throw UsageError(fmt::format("--node {}: no such node", name));
  }
  std::vector<const model::Node*> out;
  for (const model::Node& node : snapshot.nodes) {
    bool wanted = false;
    if (!selection.nodes.empty()) {
      wanted = std::find(selection.nodes.begin(), selection.nodes.end(), node.name()) != selection.nodes.end();
    } else if (selector) {
      wanted = model::selector_matches(*selector, node.meta.labels);
    } else {
      wanted = model::is_gpu_node(node);
    }
    if (wanted) out.push_back(&node);
  }
  return out;
}

Step plan_nodes_label(const Snapshot& snapshot, const NodeSelection& selection) {
  const std::vector<const model::Node*> nodes = select_nodes(snapshot, selection);
  Step step;
  step.name = "nodes label";
  step.summary = fmt::format("{}=true on {} node(s)", model::k_label_gpu_present, nodes.size());
  const Edit edit{EditKind::merge, {{"metadata", {{"labels", {{std::string(model::k_label_gpu_present), "true"}}}}}}};
  for (const model::Node* node : nodes) {
    Change change;
    change.action = Action::patch;
    change.target = target_for("Node", "", node->name());
    change.before = node_display(*node);
    change.after = apply_edit(edit, change.before);
    change.changed = change.after != change.before;
    change.edit = edit;
    step.changes.push_back(std::move(change));
  }
  if (nodes.empty()) step.notes.push_back("no GPU node matched: nothing to label");
  if (!snapshot.cluster_policies.empty()) {
    step.notes.push_back("the GPU Operator manages nvidia.com/gpu.present from NFD's PCI labels and may "
                         "set it back to false on nodes without them");
  }
  return step;
}

Step plan_nodes_taint(const Snapshot& snapshot, const NodeSelection& selection, const TaintOptions& taint) {
  if (!model::parse_taint(taint_text(taint))) {
    throw UsageError(fmt::format("taint \"{}\": the key must not be empty and the effect must be NoSchedule, "
                                 "PreferNoSchedule or NoExecute",
                                 taint_text(taint)));
  }
  const std::vector<const model::Node*> nodes = select_nodes(snapshot, selection);
  Step step;
  step.name = "nodes taint";
  step.summary = fmt::format("taint {} on {} node(s)", taint_text(taint), nodes.size());
  const Edit edit{EditKind::add_taint, taint_json(taint)};
  const model::Taint wanted{taint.key, taint.value, taint.effect, ""};
  const PodsByNode pods = pods_by_node(snapshot);
  for (const model::Node* node : nodes) {
    Change change;
    change.action = Action::patch;
    change.target = target_for("Node", "", node->name());
    change.before = node_display(*node);
    change.after = apply_edit(edit, change.before);
    change.changed = change.after != change.before;
    change.edit = edit;
    for (const model::Taint& existing : node->taints) {
      if (existing.key == taint.key && existing.effect == taint.effect && existing.value != taint.value) {
        step.notes.push_back(fmt::format("node {} already has taint {}: left as it is", node->name(),
                                         model::to_string(existing)));
      }
    }
    const std::vector<std::string> staying = pods_staying(pods, *node, wanted);
    if (!staying.empty()) {
      std::string list;
      for (const std::string& pod : staying) list += (list.empty() ? "" : ", ") + pod;
      step.notes.push_back(fmt::format("node {}: {} non-GPU pod(s) stay, as {} does not evict: {}", node->name(),
                                       staying.size(), taint.effect, list));
    }
    step.changes.push_back(std::move(change));
  }
  for (std::string& note : node_group_notes(snapshot, nodes, taint)) step.notes.push_back(std::move(note));
  return step;
}

} // namespace gpuslice::remedy
