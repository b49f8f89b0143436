// SPDX-License-Identifier: Apache-2.0
#include "capacity.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace gpuslice::diagnose {

namespace {

bool can_take_pods(const GpuNode& n) {
  return n.inventory.ready && n.inventory.schedulable && n.inventory.allocatable > 0;
}

bool insufficient_gpu(const Reason& r) {
  return r.kind == ReasonKind::insufficient_resource && model::is_gpu_resource(r.resource);
}

long long allocatable_of(const model::Node& node, std::string_view resource) {
  return model::quantity_of(node.allocatable, resource).value();
}

long long requested_of(const GpuNode* n, std::string_view resource) {
  if (!n) return 0;
  const auto it = n->requested.find(resource);
  return it == n->requested.end() ? 0 : it->second;
}

bool has_mig_slices(const GpuNode& n) { return !n.inventory.mig.empty(); }

// What apply's time-slicing config advertises on the node for `resource`, after the fix.
long long allocatable_after(const GpuNode& n, std::string_view resource, const Fix& fix) {
  const long long now = allocatable_of(*n.node, resource);
  if (fix.replicas <= 0 || has_host_device_plugin(*n.node)) return now;
  // apply writes nvidia.com/gpu (renameByDefault off): .shared and MIG names keep what they have.
  if (model::gpu_resource_kind(resource) == model::GpuResourceKind::shared) return 0;
  if (resource != model::k_gpu_resource) return now;
  if (n.crashing_plugin_pod && n.inventory.allocatable == 0) return 0;  // the new plugin would crash alike
  // Whole GPUs only: on a MIG node those outside MIG, which is what it advertises per replica now.
  const long long whole = has_mig_slices(n) ? n.inventory.allocatable / std::max(1, n.gpus.replicas) : n.gpus.physical;
  return whole * fix.replicas;
}

bool in_fix(const Fix& fix, const PendingGpuPod& p) {
  return fix.pods.empty() || std::find(fix.pods.begin(), fix.pods.end(), &p) != fix.pods.end();
}

const std::string& requested_resource(const Fix& fix, const PendingGpuPod& p) {
  return !fix.request.empty() && in_fix(fix, p) ? fix.request : p.view.resource;
}

bool node_lifecycle_taint(const model::Taint& t) {
  return is_system_taint(t) && t.key != "node.kubernetes.io/unschedulable";
}

// NodeUnschedulable and TaintToleration for p on node after fix. scheduler_view: judge as the
// scheduler does (a NotReady node is rejected by its taints only), else also refuse NotReady nodes.
NodeVerdict judge_taints(const Context& ctx, const PendingGpuPod& p, const model::Node& node, const Fix& fix,
                         bool scheduler_view) {
  const bool uncordoned = fix.uncordon;
  if (node.unschedulable && !uncordoned) return NodeVerdict::unschedulable;
  const bool pod_fixed = in_fix(fix, p);
  const bool apply_tolerates = fix.replicas > 0 && ctx.owner_workload(*p.pod) != nullptr;
  NodeVerdict verdict = NodeVerdict::fits;
  auto worse = [&](NodeVerdict v) {
    // unschedulable before lifecycle taints before policy taints, as the reasons read.
    if (verdict == NodeVerdict::fits || static_cast<int>(v) < static_cast<int>(verdict)) verdict = v;
  };
  for (const model::Taint& t : blocking_taints(p.pod->spec, node)) {
    if (pod_fixed && !fix.tolerate.empty() && t.key == fix.tolerate) continue;
    if (apply_tolerates && t.key == model::k_gpu_resource) continue;
    if (t.key == "node.kubernetes.io/unschedulable") {
      if (!uncordoned) worse(NodeVerdict::unschedulable);
    } else if (node_lifecycle_taint(t)) {
      worse(NodeVerdict::not_ready);
    } else {
      worse(NodeVerdict::taint);
    }
  }
  if (fix.replicas > 0 && !apply_tolerates && model::is_gpu_node(node) &&
      std::none_of(node.taints.begin(), node.taints.end(), [](const model::Taint& t) { return t.key == model::k_gpu_resource; })) {
    // apply's `nodes taint` step: nvidia.com/gpu=true:NoSchedule, which this pod may not tolerate.
    const std::vector<model::Taint> added = {model::Taint{std::string(model::k_gpu_resource), "true", "NoSchedule", ""}};
    if (!model::untolerated_taints(p.pod->spec.tolerations, added).empty() &&
        !(pod_fixed && fix.tolerate == model::k_gpu_resource)) {
      worse(NodeVerdict::taint);
    }
  }
  if (verdict == NodeVerdict::fits && !scheduler_view && !node.ready().value_or(false)) return NodeVerdict::not_ready;
  return verdict;
}

// Every filter for p on one node; free: units of the resource left on it.
NodeVerdict judge(const Context& ctx, const PendingGpuPod& p, const model::Node& node, const GpuNode* gpu,
                  const Fix& fix, bool scheduler_view) {
  const NodeVerdict taints = judge_taints(ctx, p, node, fix, scheduler_view);
  if (taints != NodeVerdict::fits) return taints;
  if (!selector_admits(p.pod->spec, node)) return NodeVerdict::selector;
  const std::string& resource = requested_resource(fix, p);
  const long long allocatable = gpu ? allocatable_after(*gpu, resource, fix) : allocatable_of(node, resource);
  if (allocatable <= 0) return NodeVerdict::lacks_resource;
  const long long free = allocatable - requested_of(gpu, resource);
  return free < p.view.gpu_request ? NodeVerdict::insufficient : NodeVerdict::fits;
}

// Free units per GPU node and resource as pods are placed one after another.
class FreeUnits {
 public:
  FreeUnits(const Context& ctx, const Fix& fix) : ctx_(ctx), fix_(fix), free_(ctx.gpu_nodes.size()) {}
  long long& at(std::size_t node, const std::string& resource) {
    auto [it, fresh] = free_[node].try_emplace(resource, 0);
    if (fresh) {
      const GpuNode& n = ctx_.gpu_nodes[node];
      it->second = std::max(0LL, allocatable_after(n, resource, fix_) - requested_of(&n, resource));
    }
    return it->second;
  }

 private:
  const Context& ctx_;
  const Fix& fix_;
  std::vector<std::map<std::string, long long, std::less<>>> free_;
};

std::string verdict_text(NodeVerdict v) {
  switch (v) {
  case NodeVerdict::unschedulable: return "are cordoned";
  case NodeVerdict::not_ready: return "are NotReady";
  case NodeVerdict::taint: return "have a taint it does not tolerate";
  case NodeVerdict::selector: return "do not match its nodeSelector/affinity";
  case NodeVerdict::lacks_resource: return "have none of the resource it requests";
  case NodeVerdict::insufficient: return "have too few free";
  case NodeVerdict::fits: break;
  }
  return "have room";
}

} // namespace

int usable_physical_gpus(const Context& ctx) {
  int total = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (can_take_pods(n)) total += n.gpus.physical;
  }
  return total;
}

int recommended_replicas(const Context& ctx) {
  if (ctx.options.replicas > 0) return ctx.options.replicas;
  const int physical = usable_physical_gpus(ctx);
  if (physical == 0) return k_min_recommended_replicas;
  long long demand = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (can_take_pods(n)) demand += n.inventory.requested;
  }
  for (const PendingGpuPod& p : ctx.pending) demand += p.view.gpu_request;
  const long long needed = (demand + physical - 1) / physical;
  return static_cast<int>(std::clamp<long long>(needed, k_min_recommended_replicas, k_max_recommended_replicas));
}

int pods_that_fit(const Context& ctx, const Fix& fix) {
  FreeUnits free(ctx, fix);
  const bool changes_taints = fix.replicas > 0 || !fix.tolerate.empty() || fix.uncordon;
  int placed = 0;
  for (const PendingGpuPod& p : ctx.pending) {
    const std::string& resource = requested_resource(fix, p);
    // First fit in name order over the nodes the pod's selector admits and whose taints it tolerates.
    const Placement& placement = ctx.placement(p);
    for (std::size_t k = 0; k < placement.admitted.size(); ++k) {
      const GpuNode& n = *placement.admitted[k];
      if (changes_taints || placement.tainted[k] || !n.inventory.ready || !n.inventory.schedulable) {
        if (judge_taints(ctx, p, *n.node, fix, false) != NodeVerdict::fits) continue;
      }
      long long& units = free.at(static_cast<std::size_t>(&n - ctx.gpu_nodes.data()), resource);
      if (units < p.view.gpu_request) continue;
      units -= p.view.gpu_request;
      ++placed;
      break;
    }
  }
  return placed;
}

namespace {

// A node the autoscaler would add from n's group: no lifecycle taint, not cordoned, another name.
model::Node new_node_like(const model::Node& n) {
  model::Node out = n;
  out.unschedulable = false;
  std::erase_if(out.taints, is_system_taint);
  out.meta.labels.erase("kubernetes.io/hostname");
  return out;
}

} // namespace

ScaleUp new_nodes_place(const Context& ctx, const std::vector<const GpuNode*>& templates) {
  std::vector<model::Node> fresh;
  fresh.reserve(templates.size());
  for (const GpuNode* t : templates) fresh.push_back(new_node_like(*t->node));
  struct Opened {
    std::size_t like;
    std::map<std::string, long long, std::less<>> used;
  };
  std::vector<Opened> opened;
  ScaleUp out;
  // Every pending pod: its verdict says no existing node had room, which is what new nodes add.
  for (const PendingGpuPod& p : ctx.pending) {
    auto fits_empty = [&](std::size_t k) { return judge(ctx, p, fresh[k], nullptr, {}, true) == NodeVerdict::fits; };
    auto room = [&](Opened& o) {
      return allocatable_of(fresh[o.like], p.view.resource) - o.used[p.view.resource] >= p.view.gpu_request;
    };
    auto it = std::find_if(opened.begin(), opened.end(), [&](Opened& o) { return fits_empty(o.like) && room(o); });
    if (it == opened.end()) {
      std::size_t k = 0;
      while (k < fresh.size() && !fits_empty(k)) ++k;
      if (k == fresh.size()) continue;
      opened.push_back({k, {}});
      it = std::prev(opened.end());
      if (!out.like) out.like = templates[k];
    }
    it->used[p.view.resource] += p.view.gpu_request;
    ++out.pods;
  }
  out.nodes = static_cast<int>(opened.size());
  return out;
}

std::string why_new_node_rejects(const Context& ctx, const std::vector<const GpuNode*>& templates) {
  const PendingGpuPod& p = ctx.pending.front();
  const model::Node fresh = new_node_like(*templates.front()->node);
  std::string why;
  switch (judge(ctx, p, fresh, nullptr, {}, true)) {
  case NodeVerdict::taint: {
    std::vector<std::string> names;
    for (const model::Taint& t : blocking_taints(p.pod->spec, fresh)) names.push_back(model::to_string(t));
    why = fmt::format("have a taint {} does not tolerate ({})", qualified(p.pod->meta), name_list(names, 3));
    break;
  }
  case NodeVerdict::selector: why = fmt::format("not match the nodeSelector/affinity of {}", qualified(p.pod->meta)); break;
  case NodeVerdict::lacks_resource: why = fmt::format("have no {}", p.view.resource); break;
  case NodeVerdict::insufficient:
    why = fmt::format("have {} {}, fewer than {} requests", allocatable_of(fresh, p.view.resource), p.view.resource,
                      qualified(p.pod->meta));
    break;
  default: why = fmt::format("not take {}", qualified(p.pod->meta)); break;
  }
  std::string out = fmt::format("a new node like {} would {}", fresh.name(), why);
  if (templates.size() > 1) {
    out += fmt::format(", and one like any of the other {} GPU node(s) would not take it either", templates.size() - 1);
  }
  return out;
}

int pods_the_fix_places(const Context& ctx, const Fix& fix) {
  return pods_that_fit(ctx, fix) - pods_that_fit(ctx);
}

std::vector<const PendingGpuPod*> pods_short_of_gpus(const Context& ctx) {
  std::vector<const PendingGpuPod*> out;
  std::vector<std::optional<bool>> has_candidate(ctx.placements.size());
  for (const PendingGpuPod& p : ctx.pending) {
    const auto& parsed = p.view.scheduler.parsed;
    if (!parsed || std::none_of(parsed->reasons.begin(), parsed->reasons.end(), insufficient_gpu)) continue;
    std::optional<bool>& candidate = has_candidate[p.placement];
    if (!candidate) {
      // A node that passes every other filter and has the resource: the shortage is real there.
      const Placement& placement = ctx.placement(p);
      candidate = false;
      for (const GpuNode* n : placement.admitted) {
        const NodeVerdict v = judge(ctx, p, *n->node, n, {}, false);
        if (v == NodeVerdict::fits || v == NodeVerdict::insufficient) {
          candidate = true;
          break;
        }
      }
    }
    if (*candidate) out.push_back(&p);
  }
  return out;
}

std::string why_pod_does_not_fit(const Context& ctx, const PendingGpuPod& p, const Fix& fix) {
  std::map<NodeVerdict, std::vector<std::string>> by_verdict;
  std::set<std::string> taints;
  std::set<std::string> other_resources;
  for (const GpuNode& n : ctx.gpu_nodes) {
    const NodeVerdict v = judge(ctx, p, *n.node, &n, fix, false);
    by_verdict[v].push_back(n.node->name());
    if (v == NodeVerdict::taint) {
      for (const model::Taint& t : blocking_taints(p.pod->spec, *n.node)) {
        if (!is_system_taint(t)) taints.insert(model::to_string(t));
      }
    }
    if (v == NodeVerdict::lacks_resource) {
      for (const auto& [resource, quantity] : n.node->allocatable) {
        if (model::is_gpu_resource(resource) && quantity.value() > 0) other_resources.insert(std::string(resource));
      }
    }
  }
  std::vector<std::string> parts;
  for (const auto& [verdict, names] : by_verdict) {
    std::string part = fmt::format("{} {} ({})", names.size(), verdict_text(verdict), name_list(names, 2));
    if (verdict == NodeVerdict::taint && !taints.empty()) part += fmt::format(": {}", name_list({taints.begin(), taints.end()}, 3));
    if (verdict == NodeVerdict::lacks_resource) {
      part = fmt::format("{} have no {} ({}){}", names.size(), requested_resource(fix, p), name_list(names, 2),
                         other_resources.empty() ? std::string{}
                                                 : fmt::format(": they advertise {}",
                                                               name_list({other_resources.begin(), other_resources.end()}, 3)));
    }
    parts.push_back(std::move(part));
  }
  return fmt::format("of {} GPU node(s), {}", ctx.gpu_nodes.size(), fmt::join(parts, "; "));
}

namespace {

// The reason kinds both the scheduler and judge() speak of, as counts.
struct FilterCounts {
  int unschedulable = 0;
  int taint = 0;
  int selector = 0;
  int insufficient = 0;  // including nodes that lack the resource: the scheduler says Insufficient for both
  int lacking = 0;
  bool operator==(const FilterCounts& o) const {
    return unschedulable == o.unschedulable && taint == o.taint && selector == o.selector && insufficient == o.insufficient;
  }
};

FilterCounts derived_counts(const Context& ctx, const PendingGpuPod& p) {
  FilterCounts c;
  for (const model::Node& node : ctx.snapshot.nodes) {
    switch (judge(ctx, p, node, ctx.gpu_node(node.name()), {}, true)) {
    case NodeVerdict::unschedulable: ++c.unschedulable; break;
    case NodeVerdict::not_ready:
    case NodeVerdict::taint: ++c.taint; break;
    case NodeVerdict::selector: ++c.selector; break;
    case NodeVerdict::lacks_resource: ++c.lacking; ++c.insufficient; break;
    case NodeVerdict::insufficient: ++c.insufficient; break;
    case NodeVerdict::fits: break;
    }
  }
  return c;
}

// The scheduler's counts of the same kinds; the reasons of filters we do not model, verbatim.
FilterCounts scheduler_counts(const SchedulerMessage& m, const PendingGpuPod& p, std::vector<std::string>& unmodeled) {
  FilterCounts c;
  for (const Reason& r : m.reasons) {
    switch (r.kind) {
    case ReasonKind::unschedulable: c.unschedulable += r.count; break;
    case ReasonKind::node_not_ready:
    case ReasonKind::untolerated_taint: c.taint += r.count; break;
    case ReasonKind::selector_mismatch: c.selector += r.count; break;
    case ReasonKind::insufficient_resource:
      if (r.resource == p.view.resource) {
        c.insufficient += r.count;
        break;
      }
      [[fallthrough]];
    default: unmodeled.push_back(fmt::format("{} {}", r.count, r.text)); break;
    }
  }
  return c;
}

std::string counts_text(const FilterCounts& c, std::string_view resource) {
  return fmt::format("{} cordoned, {} tainted, {} not selected, {} Insufficient {}", c.unschedulable, c.taint,
                     c.selector, c.insufficient, resource);
}

} // namespace

std::optional<std::string> scheduler_disagreement(const Context& ctx, const PendingGpuPod& p) {
  const auto& parsed = p.view.scheduler.parsed;
  if (!parsed || parsed->nodes_total <= 0 || parsed->reasons.empty() || parsed->truncated) return std::nullopt;
  std::vector<std::string> unmodeled;
  const FilterCounts said = scheduler_counts(*parsed, p, unmodeled);
  const FilterCounts derived = derived_counts(ctx, p);
  const int total = static_cast<int>(ctx.snapshot.nodes.size());
  if (said == derived && parsed->nodes_total == total) return std::nullopt;
  std::string why;
  if (parsed->nodes_total != total) {
    why = fmt::format("the scheduler saw {} node(s) and the snapshot has {}: the snapshot is older or newer than its verdict",
                      parsed->nodes_total, total);
  } else if (!unmodeled.empty()) {
    why = fmt::format("a filter this tool does not model is at work ({})", name_list(unmodeled, 3));
  } else {
    why = "the snapshot is older or newer than the verdict (labels, taints or pods changed since)";
  }
  return fmt::format("{}: the scheduler counted {}; the snapshot's nodes give {}: {}", qualified(p.pod->meta),
                     counts_text(said, p.view.resource), counts_text(derived, p.view.resource), why);
}

int insufficient_nodes_lacking_resource(const Context& ctx, const PendingGpuPod& p) {
  return derived_counts(ctx, p).lacking;
}

Remedy gated_apply_remedy(const Context& ctx, int replicas, std::string text) {
  const std::string command = apply_command(ctx, replicas);
  text += apply_platform_note(ctx);
  if (command.empty()) return {std::move(text), std::string{}};
  if (ctx.pending.empty()) return {std::move(text), command};
  Fix fix;
  fix.replicas = replicas;
  const int gained = pods_the_fix_places(ctx, fix);
  if (gained > 0) {
    return {fmt::format("{} With --replicas {}, {} of {} pending pod(s) would fit.", text, replicas, gained,
                        ctx.pending.size()),
            command};
  }
  return {fmt::format("{} But by the snapshot `{}` would place none of the {} pending pod(s): {}.", text, command,
                      ctx.pending.size(), why_pod_does_not_fit(ctx, ctx.pending.front(), fix)),
          std::string{}};
}

FitCheck check_apply_fit(const Snapshot& snapshot, int replicas) {
  const Context ctx = make_context(snapshot, {});
  Fix fix;
  fix.replicas = replicas;
  return {static_cast<int>(ctx.pending.size()), pods_that_fit(ctx), pods_that_fit(ctx, fix)};
}

} // namespace gpuslice::diagnose
