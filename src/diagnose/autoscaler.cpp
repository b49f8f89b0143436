// SPDX-License-Identifier: Apache-2.0
// GS2xx: why the cluster-autoscaler (or Karpenter) does not add GPU nodes, from its
// NotTriggerScaleUp reasons (counts are node groups), its status ConfigMap and its events.
// The fixes live outside the cluster (node group sizes, ASG template tags).
#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gpuslice/diagnose/asg_tags.hpp>

#include "analyzers.hpp"
#include "capacity.hpp"

namespace gpuslice::diagnose {

namespace {

// One NotTriggerScaleUp (or Karpenter) verdict and the pod it is about.
struct Verdict {
  const PendingGpuPod* pod;
  std::vector<Reason> reasons;
};

std::vector<Verdict> scale_up_refusals(const Context& ctx) {
  std::vector<Verdict> out;
  for (const PendingGpuPod& p : ctx.pending) {
    const ScalerVerdict& s = p.view.scaler;
    if (s.autoscaler && s.autoscaler->kind == AutoscalerEventKind::not_triggered) {
      out.push_back({&p, s.autoscaler->reasons});
    } else if (s.karpenter && !s.karpenter->nominated) {
      Verdict v{&p, {}};
      for (const KarpenterError& e : s.karpenter->errors) v.reasons.push_back(e.reason);
      out.push_back(std::move(v));
    }
  }
  return out;
}

std::optional<AutoscalerHealth> status_map(const Context& ctx) {
  if (!ctx.snapshot.autoscaler_status) return std::nullopt;
  return parse_autoscaler_status(ctx.snapshot.autoscaler_status->text).value;
}

std::string status_namespace(const Context& ctx) {
  return ctx.snapshot.autoscaler_status && !ctx.snapshot.autoscaler_status->ns.empty()
             ? ctx.snapshot.autoscaler_status->ns : std::string("kube-system");
}

std::string describe_status_command(const Context& ctx) {
  return fmt::format("kubectl -n {} describe configmap cluster-autoscaler-status", status_namespace(ctx));
}

// The tag command for the GPU node groups' ASGs (named when the snapshot tells them, else a
// placeholder to fill in: on other clouds there is no ASG to tag); tags_of gets the group's
// GpuNode, or the first GPU node for the placeholder.
std::string tag_command(const Context& ctx, const std::function<std::vector<TemplateTag>(const GpuNode&)>& tags_of) {
  if (ctx.gpu_nodes.empty()) return "";
  std::vector<const model::Node*> nodes;
  for (const GpuNode& n : ctx.gpu_nodes) nodes.push_back(n.node);
  std::vector<AsgName> asgs = aws_node_group_asgs(ctx.snapshot, nodes);
  if (asgs.empty()) asgs.push_back({"", "<gpu-node-group-asg>", false, ctx.gpu_nodes.front().node});
  return asg_tags_command_by_group(asgs, [&](const AsgName& asg) {
    const auto member = std::find_if(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(),
                                     [&](const GpuNode& n) { return n.node == asg.member; });
    return tags_of(member == ctx.gpu_nodes.end() ? ctx.gpu_nodes.front() : *member);
  });
}

// " Groups at 0 nodes (a, b) ..." when the status map has groups no node belongs to.
std::string groups_at_zero_note(const Context& ctx) {
  const std::vector<std::string> empty = node_groups_without_nodes(ctx.snapshot);
  if (empty.empty()) return "";
  std::string names;
  for (std::size_t i = 0; i < empty.size() && i < 5; ++i) names += (i ? ", " : "") + empty[i];
  if (empty.size() > 5) names += fmt::format(" and {} more", empty.size() - 5);
  return fmt::format(" Node groups at 0 nodes ({}) have no node to tell whether they are GPU groups: add those that "
                     "are to the command, with their own GPU count.", names);
}

std::string tag_command(const Context& ctx, const std::vector<TemplateTag>& tags) {
  return tag_command(ctx, [&](const GpuNode&) { return tags; });
}

// Reasons of one kind across the verdicts, as a finding skeleton; nullopt when none.
std::optional<Finding> refusal_finding(const std::vector<Verdict>& verdicts, FindingCode code,
                                       const std::function<bool(const Reason&)>& match, std::string_view what) {
  Finding f = make_finding(code, "");
  std::vector<std::pair<std::string, std::string>> lines;
  int groups = 0;
  for (const Verdict& v : verdicts) {
    if (!std::any_of(v.reasons.begin(), v.reasons.end(), match)) continue;
    f.objects.push_back(object_ref("Pod", v.pod->pod->meta));
    lines.emplace_back(qualified(v.pod->pod->meta),
                       fmt::format("{} says \"{}\"", v.pod->view.scaler.component, v.pod->view.scaler.message));
    for (const Reason& r : v.reasons) groups = std::max(groups, match(r) ? r.count : 0);
  }
  if (f.objects.empty()) return std::nullopt;
  f.evidence = grouped_evidence(lines, 3);
  if (groups > 0 && verdicts.front().pod->view.scaler.component != "karpenter") {
    f.evidence.push_back(fmt::format("the count is of node groups: {} node group(s) gave this reason", groups));
  }
  f.summary = fmt::format("{} for {} pending GPU pod(s)", what, f.objects.size());
  return f;
}

bool is_max_size(const Reason& r) {
  return r.kind == ReasonKind::max_node_group_size || r.kind == ReasonKind::max_total_nodes ||
         r.kind == ReasonKind::resource_limit;
}

// Labels that name a node's group, whose value is part of the group's name as the autoscaler
// spells it: EKS ASG eks-<nodegroup>-<id>, GKE MIG gke-<cluster>-<pool>-<id>-grp, AKS VMSS
// aks-<pool>-<id>-vmss, Karpenter's NodePool itself.
constexpr std::array<std::string_view, 5> k_group_labels = {
    "eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name", "cloud.google.com/gke-nodepool",
    "kubernetes.azure.com/agentpool", "karpenter.sh/nodepool"};

// The GPU nodes of the named groups, to build the new nodes a higher max size would add from;
// every GPU node when no node's group label names one of them (the group is not told apart).
std::vector<const GpuNode*> group_templates(const Context& ctx, const std::vector<std::string>& groups) {
  std::vector<const GpuNode*> all;
  std::vector<const GpuNode*> named;
  for (const GpuNode& n : ctx.gpu_nodes) {
    all.push_back(&n);
    const bool in_group = std::any_of(k_group_labels.begin(), k_group_labels.end(), [&](std::string_view label) {
      const std::optional<std::string_view> pool = n.node->meta.label(label);
      return pool && std::any_of(groups.begin(), groups.end(), [&](const std::string& g) { return group_name_names_pool(g, *pool); });
    });
    if (in_group) named.push_back(&n);
  }
  return named.empty() ? all : named;
}

// What raising the limit would do, by the snapshot; nullopt when it would place no pod (why is set).
std::optional<ScaleUp> checked_scale_up(const Context& ctx, const std::vector<std::string>& groups, std::string& why) {
  const std::vector<const GpuNode*> templates = group_templates(ctx, groups);
  if (templates.empty()) {
    why = "The snapshot has no GPU node of these groups to model a new one on, so it cannot show that a higher "
          "maximum would place the pods: check the group's launch template and GPU resources (GS202) first.";
    return std::nullopt;
  }
  const ScaleUp up = new_nodes_place(ctx, templates);
  if (up.pods > 0) return up;
  why = fmt::format("Raising the maximum would place none of the {} pending pod(s): {}. Fix that first; the nodes "
                    "the autoscaler adds are built like the ones it has.",
                    ctx.pending.size(), why_new_node_rejects(ctx, templates));
  return std::nullopt;
}

std::string scale_up_gain(const Context& ctx, const ScaleUp& up) {
  return fmt::format("By the snapshot {} new node(s) like {} would take {} of {} pending pod(s).", up.nodes,
                     up.like->node->name(), up.pods, ctx.pending.size());
}

// ", or enable time-slicing so the existing GPUs take more pods" when apply would place some.
std::string time_slicing_alternative(const Context& ctx) {
  Fix fix;
  fix.replicas = recommended_replicas(ctx);
  return pods_the_fix_places(ctx, fix) > 0 ? ", or enable time-slicing so the existing GPUs take more pods" : "";
}

void max_size_reached(const Context& ctx, const std::vector<Verdict>& verdicts, std::vector<Finding>& out) {
  std::optional<Finding> f = refusal_finding(verdicts, FindingCode::GS200, is_max_size,
                                             "the autoscaler cannot add nodes: node groups are at their max size");
  if (!f) return;
  std::vector<const NodeGroupStatus*> at_max;
  const std::optional<AutoscalerHealth> status = status_map(ctx);
  if (status) {
    for (const NodeGroupStatus& g : status->node_groups) {
      if (g.max_size > 0 && g.cloud_provider_target >= g.max_size) at_max.push_back(&g);
    }
  }
  std::vector<std::string> groups;
  for (const NodeGroupStatus* g : at_max) {
    f->evidence.push_back(fmt::format("node group {}: target {} = maxSize {}", g->name, g->cloud_provider_target, g->max_size));
    groups.push_back(g->name);
  }
  std::set<std::string> nodepools;
  for (const Verdict& v : verdicts) {
    if (v.pod->view.scaler.component != "karpenter" || !v.pod->view.scaler.karpenter) continue;
    for (const KarpenterError& e : v.pod->view.scaler.karpenter->errors) {
      if (is_max_size(e.reason) && !e.nodepool.empty()) nodepools.insert(e.nodepool);
    }
  }
  groups.insert(groups.end(), nodepools.begin(), nodepools.end());
  const bool karpenter = std::any_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) {
    return v.pod->view.scaler.component == "karpenter";
  });
  std::string why;
  const std::optional<ScaleUp> up = checked_scale_up(ctx, groups, why);
  if (!up) {
    f->remedy = {std::move(why), ""};
  } else if (at_max.size() == 1) {
    f->remedy = {fmt::format("Raise the GPU node group's maximum size{}. {}", time_slicing_alternative(ctx),
                             scale_up_gain(ctx, *up)),
                 fmt::format("aws autoscaling update-auto-scaling-group --auto-scaling-group-name {} --max-size {}",
                             at_max.front()->name, at_max.front()->max_size + up->nodes)};
  } else if (karpenter) {
    f->remedy = {fmt::format("Raise the NodePool's limits (spec.limits, e.g. nvidia.com/gpu). {}", scale_up_gain(ctx, *up)),
                 nodepools.size() == 1 ? fmt::format("kubectl edit nodepool {}", *nodepools.begin())
                                       : std::string("kubectl edit nodepools")};
  } else {
    f->remedy = {fmt::format("Raise the maximum size of the GPU node group (ASG / managed node group){}; the status "
                             "map names the groups. {}",
                             time_slicing_alternative(ctx), scale_up_gain(ctx, *up)),
                 describe_status_command(ctx)};
  }
  out.push_back(std::move(*f));
}

void group_selector_mismatch(const Context& ctx, const std::vector<Verdict>& verdicts, std::vector<Finding>& out) {
  std::optional<Finding> f = refusal_finding(
      verdicts, FindingCode::GS201, [](const Reason& r) { return r.kind == ReasonKind::selector_mismatch; },
      "node group templates don't match the pod's node affinity/selector");
  if (!f) return;
  (void)ctx;
  const PendingGpuPod* first = nullptr;
  for (const Verdict& v : verdicts) {
    if (!v.pod->pod->spec.node_selector.empty()) first = v.pod;
  }
  if (first) {
    const auto& [key, value] = *first->pod->spec.node_selector.begin();
    f->remedy = {fmt::format("If a GPU node group should take these pods, give its template the label {}={} (needed "
                             "to scale from zero).", key, value),
                 tag_command(ctx, {{fmt::format("label/{}", key), std::string(value)}})};
  } else {
    f->remedy = {"Normal for CPU node groups; if a GPU group is among them, tag its template with the labels the "
                 "pod's affinity selects.", describe_status_command(ctx)};
  }
  out.push_back(std::move(*f));
}

void template_lacks_gpu(const Context& ctx, const std::vector<Verdict>& verdicts, std::vector<Finding>& out) {
  std::optional<Finding> f = refusal_finding(
      verdicts, FindingCode::GS202,
      [](const Reason& r) { return r.kind == ReasonKind::insufficient_resource && model::is_gpu_resource(r.resource); },
      "node group templates have no GPU");
  if (!f) return;
  int per_node = 1;
  std::string resource = std::string(model::k_gpu_resource);
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.gpus.physical > 0) per_node = n.gpus.physical * n.gpus.replicas;
    if (!n.inventory.resource.empty()) resource = n.inventory.resource;
  }
  f->evidence.push_back("a group at 0 nodes is simulated from its template; without the resources tag (or after "
                        "caching a node sampled before its device plugin registered) it has no GPU");
  f->remedy = {fmt::format("Tag the GPU node group's template with its {} count, then restart cluster-autoscaler to "
                           "drop its cached template.{}", resource, groups_at_zero_note(ctx)),
               tag_command(ctx, {{"resources/" + resource, std::to_string(per_node)}})};
  out.push_back(std::move(*f));
}

void backoff(const Context& ctx, const std::vector<Verdict>& verdicts, std::vector<Finding>& out) {
  std::optional<Finding> f = refusal_finding(
      verdicts, FindingCode::GS203,
      [](const Reason& r) { return r.kind == ReasonKind::backoff || r.kind == ReasonKind::group_not_ready; },
      "node groups are in backoff or not ready for scale-up");
  if (!f) f = make_finding(FindingCode::GS203, "");
  if (const std::optional<AutoscalerHealth> status = status_map(ctx)) {
    for (const NodeGroupStatus& g : status->node_groups) {
      if (g.scale_up != "Backoff" && g.scale_up != "Unhealthy" && g.health != "Unhealthy") continue;
      f->evidence.push_back(fmt::format("node group {}: health {}, scale-up {}{}", g.name, g.health, g.scale_up,
                                        g.backoff_error_code.empty() ? std::string{}
                                            : fmt::format(" ({}: {})", g.backoff_error_code, g.backoff_error_message)));
    }
  }
  for (const model::Event& e : ctx.snapshot.events) {
    if (e.regarding.kind != "ConfigMap") continue;
    const std::optional<AutoscalerMessage> parsed = parse_autoscaler_message(e.message);
    if (parsed && (parsed->kind == AutoscalerEventKind::scale_up_failed ||
                   parsed->kind == AutoscalerEventKind::scale_up_timed_out)) {
      f->evidence.push_back(fmt::format("{}: \"{}\"", e.reason, e.message));
    }
  }
  if (f->evidence.empty()) return;
  if (f->summary.empty()) f->summary = "cluster-autoscaler reports failed or backed-off scale-ups";
  f->remedy = {"Scale-ups failed (capacity, quota or nodes not registering): fix the cloud-side error, or add "
               "instance types / zones to the GPU node group.", describe_status_command(ctx)};
  out.push_back(std::move(*f));
}

// The tags new nodes of the GPU groups need beside the GPU count: the label and the taint
// today's GPU nodes carry that apply sets (nodes label, nodes taint).
void template_label_and_taint(const GpuNode& node, std::vector<TemplateTag>& tags) {
  if (node.node->meta.label(model::k_label_gpu_present) == std::optional<std::string_view>("true")) {
    tags.push_back({fmt::format("label/{}", model::k_label_gpu_present), "true"});
  }
  for (const model::Taint& t : node.node->taints) {
    if (t.key == model::k_gpu_resource) tags.push_back({"taint/" + t.key, fmt::format("{}:{}", t.value, t.effect)});
  }
}

void blind_to_replicas(const Context& ctx, std::vector<Finding>& out) {
  if (!ctx.autoscaler_present || !ctx.time_slicing_on()) return;
  const GpuNode* shared = nullptr;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.gpus.replicas > 1 && !shared) shared = &n;
  }
  const int physical = std::max(shared->gpus.physical, 1);
  const int slots = physical * shared->gpus.replicas;
  const std::string& resource = shared->inventory.resource;
  Finding f = make_finding(FindingCode::GS204,
                           fmt::format("time-slicing gives {} slots per GPU, but cluster-autoscaler templates count "
                                       "physical GPUs", shared->gpus.replicas));
  f.objects.push_back(object_ref("Node", shared->node->meta));
  f.evidence.push_back(fmt::format("node {}: {} GPU(s) × {} replicas = {} slots", shared->node->name(),
                                   shared->gpus.physical, shared->gpus.replicas, shared->inventory.allocatable));
  f.evidence.push_back("for a group at 0 nodes CA builds the node from the instance table (physical GPUs) unless "
                       "the group carries a resources tag");
  if (resource != model::k_gpu_resource) {
    f.evidence.push_back(fmt::format("the instance table has no {} at all: until the tag says it, pods requesting it "
                                     "never trigger a scale-up from zero (Insufficient {})", resource, resource));
  } else if (const int pending = static_cast<int>(ctx.pending.size()); pending > 0) {
    f.evidence.push_back(fmt::format("until then a scale-up from zero plans {} pod(s) per new node, not {}: for the {} "
                                     "pending pod(s) it adds {} node(s) where {} would do",
                                     physical, slots, pending, (pending + physical - 1) / physical,
                                     (pending + slots - 1) / slots));
  } else {
    f.evidence.push_back(fmt::format("until then a scale-up from zero plans {} pod(s) per new node, not {}, and adds "
                                     "up to {}× the nodes needed", physical, slots, shared->gpus.replicas));
  }
  // Each group's own count: its GPUs × replicas (a node not yet shared counts what apply gives).
  const int replicas = shared->gpus.replicas;
  bool taint_tagged = false;
  const std::string command = tag_command(ctx, [&](const GpuNode& n) {
    std::vector<TemplateTag> tags = {{"resources/" + resource, std::to_string(std::max(n.gpus.physical, 1) * replicas)}};
    template_label_and_taint(n, tags);
    taint_tagged = taint_tagged || tags.back().key.starts_with("taint/");
    return tags;
  });
  if (taint_tagged) {
    f.evidence.push_back("the GPU nodes' taint is a tag too: without it CA builds new nodes untainted, so it may add a "
                         "GPU node for pods that do not tolerate the taint, which then stay Pending");
  }
  f.remedy = {"Tag the GPU node groups with the shared slot count (and the GPU nodes' label and taint) so "
              "scale-from-zero estimates match." + groups_at_zero_note(ctx),
              command};
  out.push_back(std::move(f));
}

} // namespace

void find_autoscaler(const Context& ctx, std::vector<Finding>& out) {
  const std::vector<Verdict> verdicts = scale_up_refusals(ctx);
  max_size_reached(ctx, verdicts, out);
  group_selector_mismatch(ctx, verdicts, out);
  template_lacks_gpu(ctx, verdicts, out);
  backoff(ctx, verdicts, out);
  blind_to_replicas(ctx, out);
}

} // namespace gpuslice::diagnose
