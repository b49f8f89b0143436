// SPDX-License-Identifier: Apache-2.0
// GS1xx: why the scheduler does not place pending GPU pods — counted reasons from its
// messages, cross-checked against the nodes (selectors, taints, advertised resources).
#include <algorithm>
#include <cctype>
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
  // The scheduler's counts checked against the same filters over the snapshot, once per
  // placement group (its pods are judged alike), at most a few lines.
  std::vector<char> seen(ctx.placements.size(), 0);
  int checked = 0;
  int extra = 0;
  for (const PendingGpuPod& p : ctx.pending) {
    if (seen[p.placement] || checked >= 20 || extra >= 3) continue;
    seen[p.placement] = 1;
    ++checked;
    if (std::optional<std::string> line = scheduler_disagreement(ctx, p)) {
      f.evidence.push_back(std::move(*line));
      ++extra;
    }
    const int lacking = insufficient_nodes_lacking_resource(ctx, p);
    if (lacking > 0 && p.view.scheduler.parsed) {
      f.evidence.push_back(fmt::format("{}: {} of the nodes that say Insufficient {} have none of it (no GPU of "
                                       "that kind): not a GPU shortage",
                                       qualified(p.pod->meta), lacking, p.view.resource));
      ++extra;
    }
  }
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
  f.remedy = gated_apply_remedy(
      ctx, replicas,
      ctx.time_slicing_on()
          ? std::string("Every GPU slot is taken: add GPU nodes, or raise the time-slicing replicas.")
          : fmt::format("Share each GPU between pods with time-slicing ({} replicas), or add GPU nodes.", replicas));
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
  // Gated: the toleration must let a pod onto a node with room for it.
  Fix fix;
  fix.tolerate = first_key;
  fix.pods = blocked;
  const int gained = pods_the_fix_places(ctx, fix);
  if (gained > 0) {
    f.remedy.text += fmt::format(" With it, {} of {} pending pod(s) would fit.", gained, ctx.pending.size());
    f.remedy.command = owner ? toleration_patch_command(*owner, first_key)
                             : fmt::format("kubectl -n {} edit pod {}", blocked.front()->view.ns,
                                           blocked.front()->view.name);
  } else {
    f.remedy.text += fmt::format(" But by the snapshot the toleration alone places none of them: {}.",
                                 why_pod_does_not_fit(ctx, *blocked.front(), fix));
  }
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

// The MIG resource with the most free slices over the GPU nodes ("" when no node has MIG).
std::string best_mig_resource(const Context& ctx) {
  std::map<std::string, long long> free;
  for (const GpuNode& n : ctx.gpu_nodes) {
    for (const MigSlots& m : n.inventory.mig) free[std::string(model::k_mig_resource_prefix) + m.profile] += m.free;
  }
  std::string best;
  long long most = -1;
  for (const auto& [resource, units] : free) {
    if (units > most) {
      most = units;
      best = resource;
    }
  }
  return best;
}

// "nvidia.com~1gpu": a resource name as a JSON-pointer segment.
std::string pointer_segment(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

// A JSON patch of the workload's pod template moving every container's request of `from` to `to`.
std::string resource_patch_command(const model::Workload& w, std::string_view from, std::string_view to) {
  std::vector<std::string> ops;
  const auto& containers = w.pod_template.spec.containers;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    for (const auto& [field, list] : {std::pair<std::string_view, const model::ResourceList*>{"limits", &containers[i].limits},
                                      {"requests", &containers[i].requests}}) {
      const model::Quantity q = model::quantity_of(*list, from);
      if (q.value() <= 0) continue;
      const std::string base = fmt::format("/spec/template/spec/containers/{}/resources/{}/", i, field);
      ops.push_back(fmt::format(R"({{"op":"remove","path":"{}{}"}})", base, pointer_segment(from)));
      ops.push_back(fmt::format(R"({{"op":"add","path":"{}{}","value":"{}"}})", base, pointer_segment(to), q.value()));
    }
  }
  if (ops.empty()) return {};
  std::string kind = w.kind.empty() ? "deployment" : w.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return fmt::format("kubectl -n {} patch {} {} --type json -p '[{}]'", w.meta.ns, kind, w.meta.name, fmt::join(ops, ","));
}

// Pods asking for whole GPUs where the GPUs are partitioned by MIG: time-slicing does not turn
// slices into GPUs. The fix is to request a slice (checked by placement) or to change the
// node's MIG layout (nvidia.com/mig.config, which the MIG manager applies).
Remedy mig_remedy(const Context& ctx, const std::vector<const PendingGpuPod*>& pods, std::string_view resource,
                  const std::string& mig) {
  Fix fix;
  fix.request = mig;
  fix.pods = pods;
  const int gained = pods_the_fix_places(ctx, fix);
  const std::string alternative = fmt::format(
      "or repartition the node by its nvidia.com/mig.config label (all-disabled gives whole GPUs; the MIG "
      "manager evicts the GPU pods there to do it)");
  const model::Workload* owner = ctx.owner_workload(*pods.front()->pod);
  const std::string patch = owner ? resource_patch_command(*owner, resource, mig) : std::string{};
  if (gained > 0 && !patch.empty()) {
    return {fmt::format("The GPUs are partitioned by MIG: request {} instead of {} ({} of {} pending pod(s) would "
                        "fit), {}.",
                        mig, resource, gained, ctx.pending.size(), alternative),
            patch};
  }
  return {fmt::format("The GPUs are partitioned by MIG, and time-slicing does not make whole GPUs of MIG slices: "
                      "request {} instead of {}{}, {}.",
                      mig, resource,
                      gained > 0 ? std::string{}
                                 : fmt::format(" (by the snapshot that alone places none: {})",
                                               why_pod_does_not_fit(ctx, *pods.front(), fix)),
                      alternative),
          std::string{}};
}

// A crash-looping device plugin pod on some GPU node, if any.
const model::Pod* crashing_plugin_pod(const Context& ctx) {
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.crashing_plugin_pod) return n.crashing_plugin_pod;
  }
  return nullptr;
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
    const std::string mig = best_mig_resource(ctx);
    if (!mig.empty() && model::gpu_resource_kind(resource) != model::GpuResourceKind::mig) {
      for (const GpuNode& n : ctx.gpu_nodes) {
        for (const MigSlots& m : n.inventory.mig) {
          if (f.evidence.size() < 8) {
            f.evidence.push_back(fmt::format("node {} advertises {}{}: {} ({} free)", n.node->name(),
                                             model::k_mig_resource_prefix, m.profile, m.allocatable, m.free));
          }
        }
      }
      f.remedy = mig_remedy(ctx, pods, resource, mig);
    } else if (const model::Pod* crashing = crashing_plugin_pod(ctx)) {
      // A new plugin from apply would crash alike: the cause is in its log, not in its config.
      f.evidence.push_back(fmt::format("device plugin pod {} on {} is crash-looping", qualified(crashing->meta),
                                       crashing->spec.node_name));
      f.remedy = {"The device plugin crash-loops, so its node registers no GPU; reinstalling it would crash alike. "
                  "Read its log (a missing driver or container toolkit, or a bad config) and fix the cause.",
                  fmt::format("kubectl -n {} logs {} --all-containers --previous", crashing->meta.ns, crashing->meta.name)};
    } else if (other) {
      f.remedy = gated_apply_remedy(
          ctx, replicas,
          fmt::format("Request {} in the workload, or reconfigure the device plugin so it advertises {} "
                      "(renameByDefault decides between nvidia.com/gpu and nvidia.com/gpu.shared).",
                      *advertised.begin(), resource));
    } else {
      f.remedy = gated_apply_remedy(ctx, replicas,
                                    "Install or repair the NVIDIA device plugin so GPU nodes advertise their GPUs.");
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
