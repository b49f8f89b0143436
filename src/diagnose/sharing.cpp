// SPDX-License-Identifier: Apache-2.0
// GS3xx: GPU sharing — is time-slicing off while pods starve, are the slots used up, did a
// configured replica count reach the nodes, and what each share is worth.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "capacity.hpp"

namespace gpuslice::diagnose {

namespace {

std::string env_value(const model::PodSpec& spec, std::string_view name) {
  for (const auto* list : {&spec.init_containers, &spec.containers}) {
    for (const model::Container& c : *list) {
      for (const model::EnvVar& e : c.env) {
        if (e.name == name) return e.value;
      }
    }
  }
  return {};
}

// The config a device plugin DaemonSet would run on a node: the ConfigMap it mounts (or its
// ClusterPolicy names) and the key the config-manager selects (nvidia.md §2.4): the node label,
// else the default, else the "named" and "single" fallbacks (the GPU Operator uses "empty").
struct AppliedConfig {
  const model::ConfigMap* configmap = nullptr;
  std::string key;
};

std::optional<AppliedConfig> applied_config(const Context& ctx, const Addon& plugin, const model::Node& node) {
  const model::DaemonSet& ds = *plugin.daemonset;
  AppliedConfig applied;
  std::string default_key = env_value(ds.pod_template.spec, "DEFAULT_CONFIG");
  std::string cm_name;
  if (plugin.operator_managed) {
    for (const model::ClusterPolicy& p : ctx.snapshot.cluster_policies) {
      if (!p.config_name.empty()) {
        cm_name = p.config_name;
        default_key = p.config_default;
      }
    }
  } else {
    for (const model::Volume& v : ds.pod_template.spec.volumes) {
      if (!v.config_map.empty()) cm_name = v.config_map;
    }
  }
  if (cm_name.empty()) return std::nullopt;
  for (const model::ConfigMap& cm : ctx.snapshot.configmaps) {
    if (cm.meta.ns == ds.meta.ns && cm.meta.name == cm_name) applied.configmap = &cm;
  }
  if (!applied.configmap) return std::nullopt;
  const model::StringMap& data = applied.configmap->data;
  if (const std::optional<std::string_view> label = node.meta.label(model::k_label_device_plugin_config)) {
    applied.key = std::string(*label);
  } else if (!default_key.empty()) {
    applied.key = default_key;
  } else if (!plugin.operator_managed && data.contains("default")) {
    applied.key = "default";
  } else if (!plugin.operator_managed && data.size() == 1) {
    applied.key = data.begin()->first;
  }
  return applied;
}

const Addon* plugin_for(const Context& ctx, const model::Node& node) {
  for (const Addon* a : ctx.addons_of(AddonKind::device_plugin)) {
    if (selector_admits(a->daemonset->pod_template.spec, node) &&
        blocking_taints(a->daemonset->pod_template.spec, node).empty()) {
      return a;
    }
  }
  return nullptr;
}

void time_slicing_disabled(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.time_slicing_on() || ctx.pending.empty()) return;
  // A sharing config is in place but not advertised: GS302 names the cause, not this.
  if (std::any_of(ctx.sharing_configs.begin(), ctx.sharing_configs.end(), [](const SharingConfigSource& s) {
        return s.used && s.check.usable() && s.check.config.strategy != "none";
      })) {
    return;
  }
  std::vector<const GpuNode*> physical_only;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.inventory.allocatable > 0 && n.gpus.replicas == 1) physical_only.push_back(&n);
  }
  if (physical_only.empty()) return;
  // Pods starve for GPUs: the scheduler says so, or (without a message) no slot is free.
  std::vector<const PendingGpuPod*> starving = pods_short_of_gpus(ctx);
  long long free = 0;
  for (const GpuNode* n : physical_only) free += n->inventory.free;
  for (const PendingGpuPod& p : ctx.pending) {
    if (!p.view.scheduler.parsed && free < p.view.gpu_request &&
        std::find(starving.begin(), starving.end(), &p) == starving.end()) {
      starving.push_back(&p);
    }
  }
  if (starving.empty()) return;
  const int replicas = recommended_replicas(ctx);
  Fix fix;
  fix.replicas = replicas;
  const int fit = pods_that_fit(ctx, fix);
  // Raised only when time-slicing itself would place pods (DESIGN §4.2): a pod never fits a
  // CPU node, a MIG slice or a tainted node by sharing a GPU.
  if (fit - pods_that_fit(ctx) <= 0) return;
  int physical = 0;
  for (const GpuNode* n : physical_only) physical += n->gpus.physical;
  Finding f = make_finding(
      FindingCode::GS300,
      fmt::format("{} GPU pod(s) are Pending while {} GPU node(s) advertise only their {} physical GPU(s); "
                  "with --replicas {}, {} of {} pending pod(s) would fit",
                  starving.size(), physical_only.size(), physical, replicas, fit, ctx.pending.size()));
  for (const GpuNode* n : physical_only) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    if (f.evidence.size() < 8) {
      f.evidence.push_back(fmt::format("node {}: {} × {}, {} slot(s), {} requested", n->node->name(),
                                       n->gpus.physical, n->gpus.product.empty() ? "GPU" : n->gpus.product,
                                       n->inventory.allocatable, n->inventory.requested));
    }
  }
  const int memory = physical_only.front()->gpus.memory_mib;
  if (memory > 0) {
    f.evidence.push_back(fmt::format("with {} replicas each share of a {} MiB GPU gets about {} MiB, without "
                                     "memory isolation", replicas, memory, memory / replicas));
  }
  f.remedy = {fmt::format("Enable NVIDIA time-slicing with {} replicas per GPU so each GPU takes {} pods.{}",
                          replicas, replicas, apply_platform_note(ctx)),
              apply_command(ctx, replicas)};
  out.push_back(std::move(f));
}

void gpu_slots_exhausted(const Context& ctx, std::vector<Finding>& out) {
  if (!ctx.time_slicing_on()) return;
  const std::vector<const PendingGpuPod*> starving = pods_short_of_gpus(ctx);
  long long slots = 0;
  long long requested = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (!n.inventory.ready || !n.inventory.schedulable) continue;
    slots += n.inventory.allocatable;
    requested += n.inventory.requested;
  }
  // Without a verdict to read, the slot count decides; with one, only a real shortage does (free
  // slots under another resource name, or nodes that lack the resource, are not exhaustion).
  const bool unread = std::any_of(ctx.pending.begin(), ctx.pending.end(),
                                  [](const PendingGpuPod& p) { return !p.view.scheduler.parsed; });
  if (starving.empty() && (!unread || requested < slots)) return;
  int current = 1;
  for (const GpuNode& n : ctx.gpu_nodes) current = std::max(current, n.gpus.replicas);
  const int replicas = std::max(recommended_replicas(ctx), current * 2);
  Finding f = make_finding(FindingCode::GS301,
                           fmt::format("{} of {} GPU slot(s) are requested ({} replicas per GPU) and {} GPU pod(s) wait",
                                       requested, slots, current, ctx.pending.size()));
  for (const GpuNode& n : ctx.gpu_nodes) {
    f.objects.push_back(object_ref("Node", n.node->meta));
    if (f.evidence.size() < 8) {
      f.evidence.push_back(fmt::format("node {}: {} slot(s), {} requested, {} free", n.node->name(),
                                       n.inventory.allocatable, n.inventory.requested, n.inventory.free));
    }
  }
  f.remedy = gated_apply_remedy(ctx, replicas, fmt::format("Add GPU nodes, or raise time-slicing to {} replicas.", replicas));
  out.push_back(std::move(f));
}

void replicas_not_advertised(const Context& ctx, std::vector<Finding>& out) {
  for (const GpuNode& n : ctx.gpu_nodes) {
    const Addon* plugin = plugin_for(ctx, *n.node);
    if (!plugin || n.gpus.physical <= 0) continue;
    const std::optional<AppliedConfig> applied = applied_config(ctx, *plugin, *n.node);
    if (!applied || applied->key.empty()) continue;
    const auto value = applied->configmap->data.find(applied->key);
    if (value == applied->configmap->data.end()) continue;  // GS402/GS403 territory
    const ConfigCheck check = check_time_slicing_config(value->second);
    if (!check.usable() || check.config.strategy == "none") continue;
    const std::string resource = check.config.resources.front().name;
    const int configured = check.config.resources.front().replicas;
    const long long slots = model::quantity_of(n.node->allocatable, check.config.rename_by_default
                                                                        ? resource + ".shared"
                                                                        : resource).value();
    if (slots == static_cast<long long>(n.gpus.physical) * configured) continue;
    Finding f = make_finding(FindingCode::GS302,
                             fmt::format("node {} advertises {} slot(s) for {} GPU(s), but its config sets {} replicas",
                                         n.node->name(), slots, n.gpus.physical, configured));
    f.objects = {object_ref("Node", n.node->meta), object_ref("ConfigMap", applied->configmap->meta),
                 object_ref("DaemonSet", plugin->daemonset->meta)};
    f.evidence.push_back(fmt::format("ConfigMap {} key \"{}\": replicas {} for {}", qualified(applied->configmap->meta),
                                     applied->key, configured, resource));
    const std::optional<model::TimePoint> created = model::parse_time(applied->configmap->meta.creation_timestamp);
    for (const model::Pod* pod : plugin->pods) {
      if (pod->spec.node_name != n.node->name()) continue;
      const std::optional<model::TimePoint> started = model::parse_time(pod->start_time);
      if (created && started && *created > *started) {
        f.evidence.push_back(fmt::format("the ConfigMap was created at {}, after plugin pod {} started at {}: the "
                                         "plugin does not watch its config and still runs the old one",
                                         applied->configmap->meta.creation_timestamp, pod->meta.name, pod->start_time));
      }
    }
    const std::string kind = "daemonset";
    f.remedy = {"Restart the device plugin so it reads the config (it reloads only on restart or SIGHUP).",
                fmt::format("kubectl -n {} rollout restart {}/{}", plugin->daemonset->meta.ns, kind,
                            plugin->daemonset->meta.name)};
    out.push_back(std::move(f));
  }
}

void non_gpu_pods_on_gpu_nodes(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const model::Pod*> squatters;
  std::vector<std::string> untainted;
  for (const model::Pod* pod : ctx.bound_pods) {
    if (!ctx.gpu_node(pod->spec.node_name)) continue;
    if (model::gpu_units(model::effective_gpu_requests(pod->spec)) > 0) continue;
    if (!pod->spec.resource_claims.empty()) continue;  // its GPU comes through a DRA claim
    const model::OwnerReference* owner = pod->meta.controller();
    if (owner && (owner->kind == "DaemonSet" || owner->kind == "Node")) continue;  // per-node agents
    squatters.push_back(pod);
  }
  if (squatters.empty()) return;
  Finding f = make_finding(FindingCode::GS303,
                           fmt::format("{} pod(s) that request no GPU run on GPU nodes", squatters.size()));
  f.objects.reserve(squatters.size());
  for (const model::Pod* pod : squatters) {
    f.objects.push_back(object_ref("Pod", pod->meta));
    if (f.evidence.size() < 8) f.evidence.push_back(fmt::format("{} on {}", qualified(pod->meta), pod->spec.node_name));
  }
  for (const GpuNode& n : ctx.gpu_nodes) {
    const bool tainted = std::any_of(n.node->taints.begin(), n.node->taints.end(), [](const model::Taint& t) {
      return t.key == model::k_gpu_resource && (t.effect == "NoSchedule" || t.effect == "NoExecute");
    });
    if (!tainted) untainted.push_back(n.node->name());
  }
  if (!untainted.empty()) {
    f.remedy = {"Taint GPU nodes so only pods that tolerate nvidia.com/gpu land there (pods requesting nvidia.com/gpu "
                "get that toleration from ExtendedResourceToleration on EKS).",
                fmt::format("kubectl taint nodes {} nvidia.com/gpu=present:NoSchedule", fmt::join(untainted, " "))};
  } else {
    f.remedy = {"The GPU nodes are tainted, so these pods tolerate the taint: remove the broad toleration from them.",
                fmt::format("kubectl get pods -A -o wide --field-selector spec.nodeName={}", squatters.front()->spec.node_name)};
  }
  out.push_back(std::move(f));
}

void vram_oversubscription_risk(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const GpuNode*> risky;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.gpus.replicas > 1 && n.gpus.memory_mib > 0 && n.gpus.memory_mib / n.gpus.replicas < k_small_share_mib) {
      risky.push_back(&n);
    }
  }
  if (risky.empty()) return;
  const GpuNode& first = *risky.front();
  const int share = first.gpus.memory_mib / first.gpus.replicas;
  Finding f = make_finding(FindingCode::GS304,
                           fmt::format("time-slicing gives each share about {} MiB of GPU memory, with no isolation", share));
  for (const GpuNode* n : risky) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    if (f.evidence.size() < 8) {
      f.evidence.push_back(fmt::format("node {}: {} with {} MiB / {} replicas = {} MiB per share", n->node->name(),
                                       n->gpus.product.empty() ? "GPU" : n->gpus.product, n->gpus.memory_mib,
                                       n->gpus.replicas, n->gpus.memory_mib / n->gpus.replicas));
    }
  }
  const int safer = std::max(2, first.gpus.memory_mib / k_small_share_mib);
  f.remedy = {fmt::format("Cap each workload's GPU memory (framework settings), or use fewer replicas ({} gives "
                          "{} MiB per share); MIG or MPS isolate memory.",
                          safer, first.gpus.memory_mib / safer),
              // Fewer shares places no pending pod: never offered in the middle of a GPU shortage.
              safer < first.gpus.replicas && ctx.pending.empty() ? apply_command(ctx, safer) : std::string{}};
  out.push_back(std::move(f));
}

} // namespace

void find_sharing(const Context& ctx, std::vector<Finding>& out) {
  time_slicing_disabled(ctx, out);
  gpu_slots_exhausted(ctx, out);
  replicas_not_advertised(ctx, out);
  non_gpu_pods_on_gpu_nodes(ctx, out);
  vram_oversubscription_risk(ctx, out);
}

} // namespace gpuslice::diagnose
