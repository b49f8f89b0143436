// SPDX-License-Identifier: Apache-2.0
// GS1xx: why the scheduler does not place pending GPU pods — counted reasons from its
// messages, cross-checked against the nodes (selectors, taints, advertised resources).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "capacity.hpp"

namespace gpuslice::diagnose {

namespace {

ObjectRef pod_ref(const PendingGpuPod& p) { return object_ref("Pod", p.pod->meta); }

// The scheduler's verdict quoted, for grouped_evidence.
std::pair<std::string, std::string> quoted_verdict(const PendingGpuPod& p) {
  return {qualified(p.pod->meta), fmt::format("{} says \"{}\"", p.view.scheduler.scheduler, p.view.scheduler.message)};
}

// Some node (any node) advertises resource in allocatable.
bool advertised_anywhere(const Context& ctx, std::string_view resource) {
  return std::any_of(ctx.snapshot.nodes.begin(), ctx.snapshot.nodes.end(), [&](const model::Node& n) {
    return model::quantity_of(n.allocatable, resource).value() > 0;
  });
}

// GPU resources the nodes do advertise, by name.
std::set<std::string> advertised_gpu_resources(const Context& ctx) {
  std::set<std::string> out;
  for (const model::Node& n : ctx.snapshot.nodes) {
    for (const auto& [resource, quantity] : n.allocatable) {
      if (model::is_gpu_resource(resource) && quantity.value() > 0) out.emplace(resource);
    }
  }
  return out;
}

// nvidia.com/gpu.product pinned by the pod's nodeSelector, if any.
std::string pinned_product(const model::PodSpec& spec) {
  const auto it = spec.node_selector.find(model::k_label_gpu_product);
  return it == spec.node_selector.end() ? std::string{} : std::string(it->second);
}

// GS602 handles pods pinned to a product that nodes label "<product>-SHARED".
bool pinned_to_unshared_name(const Context& ctx, const model::PodSpec& spec) {
  const std::string product = pinned_product(spec);
  if (product.empty()) return false;
  return std::any_of(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(), [&](const GpuNode& n) {
    const std::optional<std::string_view> label = n.node->meta.label(model::k_label_gpu_product);
    return label && *label == product + "-SHARED";
  });
}

void gpu_pods_pending(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.pending.empty()) return;
  Finding f = make_finding(FindingCode::GS100,
                           fmt::format("{} pod(s) requesting a GPU are Pending", ctx.pending.size()));
  std::vector<std::pair<std::string, std::string>> lines;
  f.objects.reserve(ctx.pending.size());
  for (const PendingGpuPod& p : ctx.pending) {
    f.objects.push_back(pod_ref(p));
    const std::string ask = fmt::format("request {} {}", p.view.gpu_request, p.view.resource);
    lines.emplace_back(qualified(p.pod->meta), p.view.scheduler.message.empty()
                                                   ? ask + "; no scheduler message yet"
                                                   : ask + "; " + quoted_verdict(p).second);
  }
  f.evidence = grouped_evidence(lines, 8);
  const PendingGpuPod& first = ctx.pending.front();
  f.remedy = {"Read the findings below for the cause; the pod's events carry the scheduler's reasons.",
              fmt::format("kubectl -n {} describe pod {}", first.view.ns, first.view.name)};
  out.push_back(std::move(f));
}

void insufficient_gpu(const Context& ctx, std::vector<Finding>& out) {
  const std::vector<const PendingGpuPod*> short_pods = pods_short_of_gpus(ctx);
  if (short_pods.empty()) return;
  std::set<std::string> resources;
  for (const PendingGpuPod* p : short_pods) {
    for (const Reason& r : p->view.scheduler.parsed->reasons) {
      if (r.kind == ReasonKind::insufficient_resource && model::is_gpu_resource(r.resource)) resources.insert(r.resource);
    }
  }
  Finding f = make_finding(FindingCode::GS101,
                           fmt::format("the scheduler reports Insufficient {} for {} pending pod(s)",
                                       *resources.begin(), short_pods.size()));
  std::vector<std::pair<std::string, std::string>> lines;
  f.objects.reserve(short_pods.size());
  for (const PendingGpuPod* p : short_pods) {
    f.objects.push_back(pod_ref(*p));
    lines.push_back(quoted_verdict(*p));
  }
  f.evidence = grouped_evidence(lines);
  long long slots = 0;
  long long requested = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    slots += n.inventory.allocatable;
    requested += n.inventory.requested;
  }
  f.evidence.push_back(fmt::format("{} GPU node(s) advertise {} GPU slot(s); {} are requested by running pods",
                                   ctx.gpu_nodes.size(), slots, requested));
  const int replicas = recommended_replicas(ctx);
  if (ctx.time_slicing_on()) {
    f.remedy = {"Every GPU slot is taken: add GPU nodes, or raise the time-slicing replicas.",
                apply_command(replicas)};
  } else {
    f.remedy = {fmt::format("Share each GPU between pods with time-slicing ({} replicas), or add GPU nodes.", replicas),
                apply_command(replicas)};
  }
  out.push_back(std::move(f));
}

// Whether every node that would fit but for taints blocks the placement, and with which taints.
struct TaintVerdict {
  bool blocked = false;
  std::set<std::string> taints;
};

TaintVerdict judge_taints(const Placement& placement, const PendingGpuPod& p, std::string& first_key) {
  // The nodes that would fit but for taints: selector admits, and (if any does) advertising
  // the requested resource.
  std::vector<std::size_t> fitting;
  for (std::size_t i = 0; i < placement.admitted.size(); ++i) {
    if (model::quantity_of(placement.admitted[i]->node->allocatable, p.view.resource).value() > 0) fitting.push_back(i);
  }
  if (fitting.empty()) {
    for (std::size_t i = 0; i < placement.admitted.size(); ++i) fitting.push_back(i);
  }
  TaintVerdict verdict;
  if (fitting.empty()) return verdict;
  bool every_node_blocks = true;
  for (std::size_t i : fitting) {
    bool blocks = false;
    if (!placement.tainted[i]) {
      every_node_blocks = false;
      continue;
    }
    // This pod tolerates what every pod of its placement does.
    for (const model::Taint& t : blocking_taints(p.pod->spec, *placement.admitted[i]->node)) {
      if (is_system_taint(t)) continue;
      blocks = true;
      verdict.taints.insert(model::to_string(t));
      if (first_key.empty()) first_key = t.key;
    }
    every_node_blocks = every_node_blocks && blocks;
  }
  verdict.blocked = every_node_blocks;
  return verdict;
}

void untolerated_gpu_taint(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const PendingGpuPod*> blocked;
  std::set<std::string> taints;
  std::string first_key;
  std::vector<std::optional<TaintVerdict>> verdicts(ctx.placements.size());
  for (const PendingGpuPod& p : ctx.pending) {
    std::optional<TaintVerdict>& verdict = verdicts[p.placement];
    if (!verdict) {
      verdict = judge_taints(ctx.placement(p), p, first_key);
      if (verdict->blocked) taints.insert(verdict->taints.begin(), verdict->taints.end());
    }
    if (verdict->blocked) blocked.push_back(&p);
  }
  if (blocked.empty()) return;
  Finding f = make_finding(FindingCode::GS102,
                           fmt::format("{} pending GPU pod(s) do not tolerate the taint every fitting GPU node carries ({})",
                                       blocked.size(), name_list({taints.begin(), taints.end()}, 3)));
  f.objects.reserve(blocked.size());
  for (const PendingGpuPod* p : blocked) {
    f.objects.push_back(pod_ref(*p));
    if (f.evidence.size() >= 5) continue;
    std::vector<std::string> tolerations;
    for (const model::Toleration& t : p->pod->spec.tolerations) {
      tolerations.push_back(t.key.empty() ? "<all>" : t.key);
    }
    f.evidence.push_back(fmt::format("{} tolerates: {}", qualified(p->pod->meta),
                                     tolerations.empty() ? std::string("nothing") : name_list(tolerations, 8)));
    if (!p->view.scheduler.message.empty()) {
      const auto [who, what] = quoted_verdict(*p);
      f.evidence.push_back(who + ": " + what);
    }
  }
  const model::Workload* owner = ctx.owner_workload(*blocked.front()->pod);
  f.remedy.text = fmt::format("Add a toleration of {} to the workload's pod template.", first_key);
  f.remedy.command = owner ? toleration_patch_command(*owner, first_key)
                           : fmt::format("kubectl -n {} edit pod {}", blocked.front()->view.ns,
                                         blocked.front()->view.name);
  out.push_back(std::move(f));
}

void gpu_selector_mismatch(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.gpu_nodes.empty()) return;
  std::vector<const PendingGpuPod*> unmatched;
  std::set<std::string> keys;
  for (const PendingGpuPod& p : ctx.pending) {
    const bool any = !ctx.placement(p).admitted.empty();
    if (any || pinned_to_unshared_name(ctx, p.pod->spec)) continue;
    unmatched.push_back(&p);
    for (const auto& [key, value] : p.pod->spec.node_selector) keys.emplace(key);
    if (p.pod->spec.required_affinity) {
      for (const auto& term : p.pod->spec.required_affinity->terms) {
        for (const auto& r : term.match_expressions) keys.insert(r.key);
      }
    }
  }
  if (unmatched.empty()) return;
  Finding f = make_finding(FindingCode::GS103,
                           fmt::format("{} pending GPU pod(s) select no GPU node by nodeSelector/affinity",
                                       unmatched.size()));
  f.objects.reserve(unmatched.size());
  for (const PendingGpuPod* p : unmatched) {
    f.objects.push_back(pod_ref(*p));
    if (f.evidence.size() >= 5) continue;
    std::vector<std::string> pairs;
    for (const auto& [key, value] : p->pod->spec.node_selector) pairs.push_back(fmt::format("{}={}", key, value));
    f.evidence.push_back(fmt::format("{} nodeSelector: {}{}", qualified(p->pod->meta),
                                     pairs.empty() ? std::string("(none)") : name_list(pairs, 8),
                                     p->pod->spec.required_affinity ? "; plus required node affinity" : ""));
  }
  std::vector<std::string> gpu_names;
  for (const GpuNode& n : ctx.gpu_nodes) gpu_names.push_back(n.node->name());
  f.evidence.push_back(fmt::format("GPU nodes: {}", name_list(gpu_names)));
  const std::vector<std::string> key_list(keys.begin(), keys.end());
  f.remedy = {"Make the pod's nodeSelector/affinity match the labels the GPU nodes carry (compare them below).",
              key_list.empty() ? std::string("kubectl get nodes --show-labels")
                               : fmt::format("kubectl get nodes -L {}", fmt::join(key_list, ","))};
  out.push_back(std::move(f));
}

// GS104 (no node advertises it, nor any other GPU resource) and GS105 (others are advertised).
void resource_not_advertised(const Context& ctx, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const PendingGpuPod*>> missing;
  for (const PendingGpuPod& p : ctx.pending) {
    if (!advertised_anywhere(ctx, p.view.resource)) missing[p.view.resource].push_back(&p);
  }
  const std::set<std::string> advertised = advertised_gpu_resources(ctx);
  for (const auto& [resource, pods] : missing) {
    const bool other = !advertised.empty();
    Finding f = other
        ? make_finding(FindingCode::GS105,
                       fmt::format("{} pod(s) request {} but the nodes advertise {}", pods.size(), resource,
                                   name_list({advertised.begin(), advertised.end()})))
        : make_finding(FindingCode::GS104,
                       fmt::format("no node advertises {}, which {} pending pod(s) request", resource, pods.size()));
    f.objects.reserve(pods.size());
    for (const PendingGpuPod* p : pods) f.objects.push_back(pod_ref(*p));
    for (const GpuNode& n : ctx.gpu_nodes) {
      if (f.evidence.size() >= 5) break;
      f.evidence.push_back(fmt::format("node {} allocatable {}: {}", n.node->name(), resource,
                                       model::quantity_of(n.node->allocatable, resource).to_string()));
    }
    int replicas = recommended_replicas(ctx);
    for (const GpuNode& n : ctx.gpu_nodes) replicas = n.gpus.replicas > 1 ? n.gpus.replicas : replicas;
    if (other) {
      f.remedy = {fmt::format("Request {} in the workload, or reconfigure the device plugin so it advertises {} "
                              "(renameByDefault decides between nvidia.com/gpu and nvidia.com/gpu.shared).",
                              *advertised.begin(), resource),
                  apply_command(replicas)};
    } else {
      f.remedy = {"Install or repair the NVIDIA device plugin so GPU nodes advertise their GPUs.",
                  apply_command(replicas)};
    }
    out.push_back(std::move(f));
  }
}

} // namespace

void find_scheduling(const Context& ctx, std::vector<Finding>& out) {
  gpu_pods_pending(ctx, out);
  insufficient_gpu(ctx, out);
  untolerated_gpu_taint(ctx, out);
  gpu_selector_mismatch(ctx, out);
  resource_not_advertised(ctx, out);
}

} // namespace gpuslice::diagnose
