// SPDX-License-Identifier: Apache-2.0
#include "context.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include <gpuslice/diagnose/asg_tags.hpp>

namespace gpuslice::diagnose {

namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool contains_nocase(std::string_view text, std::string_view part) {
  const auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

// The add-on kinds analyzers look at, from the shared recogniser (model/addons.hpp).
std::optional<AddonKind> addon_kind(const model::DaemonSet& ds) {
  switch (model::recognise_gpu_addon(ds)) {
  case model::GpuAddon::device_plugin: return AddonKind::device_plugin;
  case model::GpuAddon::feature_discovery: return AddonKind::feature_discovery;
  case model::GpuAddon::mps_daemon: return AddonKind::mps_daemon;
  case model::GpuAddon::dcgm_exporter: return AddonKind::dcgm_exporter;
  case model::GpuAddon::gpu_operator:
  case model::GpuAddon::hami:
  case model::GpuAddon::none: break;
  }
  return std::nullopt;
}

// Events about pods, by "ns/name": built once so that each pending pod's lookup does not
// scan every event of a large cluster.
using PodEvents = std::map<std::string, std::vector<const model::Event*>, std::less<>>;

PodEvents index_pod_events(const Snapshot& snapshot) {
  PodEvents index;
  for (const model::Event& e : snapshot.events) {
    if (e.regarding.kind == "Pod") index[e.regarding.ns + "/" + e.regarding.name].push_back(&e);
  }
  return index;
}

// Compares as times (RFC 3339 with and without fractions mix); as text when unparseable.
bool newer(const model::Event& a, const model::Event& b) {
  const std::optional<model::TimePoint> ta = model::parse_time(a.last_seen());
  const std::optional<model::TimePoint> tb = model::parse_time(b.last_seen());
  if (ta && tb) return *ta > *tb;
  return a.last_seen() > b.last_seen();
}

// Events about one pod of a given reason set; the most recent one.
const model::Event* latest_event(const PodEvents& events, const model::Pod& pod,
                                 std::initializer_list<std::string_view> reasons,
                                 bool karpenter) {
  const auto found = events.find(pod.meta.ns + "/" + pod.meta.name);
  if (found == events.end()) return nullptr;
  const model::Event* best = nullptr;
  for (const model::Event* ep : found->second) {
    const model::Event& e = *ep;
    // An event of an earlier pod with the same name (StatefulSets reuse names).
    if (!e.regarding.uid.empty() && !pod.meta.uid.empty() && e.regarding.uid != pod.meta.uid) continue;
    if (std::find(reasons.begin(), reasons.end(), e.reason) == reasons.end()) continue;
    if ((e.component() == "karpenter") != karpenter) continue;
    if (!best || newer(e, *best)) best = &e;
  }
  return best;
}

SchedulerVerdict scheduler_verdict(const PodEvents& events, const model::Pod& pod) {
  SchedulerVerdict v;
  v.scheduler = pod.spec.scheduler_name.empty() ? "default-scheduler" : pod.spec.scheduler_name;
  // The condition carries the full, latest message; events are cut at 1024 characters and
  // frozen at the first note of an events/v1 series (scheduling.md §1.5).
  const model::Condition* c = pod.condition("PodScheduled");
  if (c && c->status == "False" && !c->message.empty()) {
    v.source = "condition";
    v.message = c->message;
  } else if (const model::Event* e = latest_event(events, pod, {"FailedScheduling"}, false)) {
    v.source = "event";
    v.message = e->message;
    if (!e->component().empty()) v.scheduler = e->component();
  }
  if (!v.message.empty()) v.parsed = parse_scheduler_message(v.message);
  return v;
}

ScalerVerdict scaler_verdict(const PodEvents& events, const model::Pod& pod) {
  ScalerVerdict v;
  if (const model::Event* e = latest_event(events, pod, {"NotTriggerScaleUp", "TriggeredScaleUp"}, false)) {
    v.verdict = e->reason;
    v.component = e->component().empty() ? "cluster-autoscaler" : e->component();
    v.message = e->message;
    v.autoscaler = parse_autoscaler_message(e->message);
  } else if (const model::Event* k = latest_event(events, pod, {"FailedScheduling", "Nominated"}, true)) {
    v.verdict = k->reason;
    v.component = "karpenter";
    v.message = k->message;
    v.karpenter = parse_karpenter_message(k->message);
  }
  return v;
}

// Devices of the NVIDIA DRA driver per node, and how many allocated claims hold.
std::map<std::string, DraGpus, std::less<>> dra_gpus_by_node(const Snapshot& snapshot) {
  std::map<std::string, DraGpus, std::less<>> out;
  std::map<std::string, std::string, std::less<>> node_of;  // "pool/device" -> node
  for (const model::ResourceSlice& slice : snapshot.resource_slices) {
    if (slice.driver != model::k_nvidia_gpu_driver || slice.node_name.empty()) continue;
    out[slice.node_name].devices += static_cast<long long>(slice.devices.size());
    for (const model::Device& d : slice.devices) node_of.emplace(slice.pool + "/" + d.name, slice.node_name);
  }
  for (const model::ResourceClaim& c : snapshot.resource_claims) {
    for (const model::AllocatedDevice& d : c.devices) {
      if (d.driver != model::k_nvidia_gpu_driver) continue;
      if (auto it = node_of.find(d.pool + "/" + d.device); it != node_of.end()) ++out[it->second].allocated;
    }
  }
  for (auto& [node, gpus] : out) gpus.free = std::max(0LL, gpus.devices - gpus.allocated);
  return out;
}

NodeInventory inventory_of(const model::Node& node, const model::NodeGpus& gpus,
                           const std::map<std::string, long long, std::less<>>& requested) {
  NodeInventory inv;
  inv.name = node.name();
  inv.instance_type = std::string(node.instance_type());
  inv.gpu_product = gpus.product;
  inv.physical_gpus = gpus.physical;
  inv.replicas = gpus.replicas;
  inv.memory_mib = gpus.memory_mib;
  inv.ready = node.ready().value_or(false);
  inv.schedulable = !node.unschedulable;
  long long most = 0;
  for (const auto& [resource, quantity] : node.allocatable) {
    const model::GpuResourceKind kind = model::gpu_resource_kind(resource);
    if (kind == model::GpuResourceKind::none) continue;
    const auto taken = requested.find(resource);
    const long long used = taken == requested.end() ? 0 : taken->second;
    if (kind == model::GpuResourceKind::mig) {
      // MIG slices are their own capacity: a pod asking for nvidia.com/gpu cannot use them.
      std::string_view profile = std::string_view(resource).substr(model::k_mig_resource_prefix.size());
      inv.mig.push_back({std::string(profile), quantity.value(), used, std::max(0LL, quantity.value() - used)});
    } else {
      inv.allocatable += quantity.value();
      inv.requested += used;
    }
    if (quantity.value() > most) {
      most = quantity.value();
      inv.resource = resource;
    }
  }
  inv.free = std::max(0LL, inv.allocatable - inv.requested);
  for (const model::Taint& t : node.taints) inv.taints.push_back(model::to_string(t));
  return inv;
}

// A device plugin pod that keeps failing: not ready, and restarted or waiting in a back-off.
bool crash_looping(const model::Pod& pod) {
  if (pod.is_ready() || pod.phase == "Succeeded" || pod.phase == "Failed") return false;
  for (const auto* list : {&pod.init_container_statuses, &pod.container_statuses}) {
    for (const model::ContainerStatus& s : *list) {
      if (s.reason == "CrashLoopBackOff" || s.reason == "Error" || s.restart_count > 0) return true;
    }
  }
  return false;
}

// A ConfigMap value that could be a device-plugin config (cheap test before parsing).
bool looks_like_plugin_config(std::string_view value) {
  return contains_nocase(value, "timeslicing") || contains(value, "sharing") ||
         (contains(value, "replicas") && contains(value, "nvidia.com/"));
}

} // namespace

const GpuNode* Context::gpu_node(std::string_view name) const {
  const auto it = gpu_node_index.find(name);
  return it == gpu_node_index.end() ? nullptr : &gpu_nodes[it->second];
}

std::vector<const Addon*> Context::addons_of(AddonKind kind) const {
  std::vector<const Addon*> out;
  for (const Addon& a : addons) {
    if (a.kind == kind) out.push_back(&a);
  }
  return out;
}

bool Context::time_slicing_on() const {
  return std::any_of(gpu_nodes.begin(), gpu_nodes.end(),
                     [](const GpuNode& n) { return n.gpus.replicas > 1; });
}

const model::Workload* Context::owner_workload(const model::Pod& pod) const {
  for (const auto* list : {&snapshot.deployments, &snapshot.statefulsets}) {
    for (const model::Workload& w : *list) {
      if (w.meta.ns == pod.meta.ns && w.selector && !w.selector->requirements.empty() &&
          model::selector_matches(*w.selector, pod.meta.labels)) {
        return &w;
      }
    }
  }
  return nullptr;
}

Context make_context(const Snapshot& snapshot, const AnalyzeOptions& options) {
  Context ctx{snapshot, options, {}, {}, {}, {}, {}, {}, false, {}};
  // GPU units per node name and resource.
  std::map<std::string, std::map<std::string, long long, std::less<>>, std::less<>> requested;
  for (const model::Pod& pod : snapshot.pods) {
    if (!pod.spec.node_name.empty() && pod.phase != "Succeeded" && pod.phase != "Failed") {
      ctx.bound_pods.push_back(&pod);
      for (const auto& [resource, quantity] : model::effective_gpu_requests(pod.spec)) {
        if (quantity.value() > 0) requested[pod.spec.node_name][std::string(resource)] += quantity.value();
      }
    }
  }
  const std::map<std::string, DraGpus, std::less<>> dra = dra_gpus_by_node(snapshot);
  for (const model::Node& node : snapshot.nodes) {
    if (!model::is_gpu_node(node)) continue;
    GpuNode g{&node, model::describe_node_gpus(node), {}, {}, nullptr};
    if (auto it = requested.find(node.name()); it != requested.end()) g.requested = std::move(it->second);
    g.inventory = inventory_of(node, g.gpus, g.requested);
    if (auto it = dra.find(node.name()); it != dra.end()) g.inventory.dra = it->second;
    ctx.gpu_nodes.push_back(std::move(g));
  }
  std::sort(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(),
            [](const GpuNode& a, const GpuNode& b) { return a.node->name() < b.node->name(); });
  for (std::size_t i = 0; i < ctx.gpu_nodes.size(); ++i) ctx.gpu_node_index[ctx.gpu_nodes[i].node->name()] = i;
  const PodEvents events = index_pod_events(snapshot);

  for (const model::Pod& pod : snapshot.pods) {
    if (!pod.is_unscheduled()) continue;
    auto [resource, request] = main_gpu_request(pod.spec);
    if (request <= 0) continue;
    PendingGpuPod p{&pod, {}};
    p.view.ns = pod.meta.ns;
    p.view.name = pod.meta.name;
    p.view.resource = resource;
    p.view.gpu_request = request;
    p.view.scheduler = scheduler_verdict(events, pod);
    p.view.scaler = scaler_verdict(events, pod);
    ctx.pending.push_back(std::move(p));
  }
  std::sort(ctx.pending.begin(), ctx.pending.end(), [](const PendingGpuPod& a, const PendingGpuPod& b) {
    return std::tie(a.view.ns, a.view.name) < std::tie(b.view.ns, b.view.name);
  });
  place_pending(ctx);

  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    const std::optional<AddonKind> kind = addon_kind(ds);
    if (!kind) continue;
    Addon a{&ds, *kind, false, {}};
    a.operator_managed = model::is_operator_managed(ds.meta);
    for (const model::Pod& pod : snapshot.pods) {
      if (pod.meta.controlled_by("DaemonSet", ds.meta)) a.pods.push_back(&pod);
    }
    ctx.addons.push_back(std::move(a));
  }
  for (const Addon& a : ctx.addons) {
    if (a.kind != AddonKind::device_plugin) continue;
    for (const model::Pod* pod : a.pods) {
      const auto at = ctx.gpu_node_index.find(pod->spec.node_name);
      if (at != ctx.gpu_node_index.end() && crash_looping(*pod)) ctx.gpu_nodes[at->second].crashing_plugin_pod = pod;
    }
  }

  for (const model::ConfigMap& cm : snapshot.configmaps) {
    bool used = std::any_of(ctx.addons.begin(), ctx.addons.end(), [&](const Addon& a) {
      return a.kind == AddonKind::device_plugin && model::mounts_plugin_config(*a.daemonset, cm);
    });
    used = used || std::any_of(snapshot.cluster_policies.begin(), snapshot.cluster_policies.end(),
                               [&](const model::ClusterPolicy& p) { return p.config_name == cm.meta.name; });
    for (const auto& [key, value] : cm.data) {
      if (!looks_like_plugin_config(value)) continue;
      ctx.sharing_configs.push_back({&cm, std::string(key), check_time_slicing_config(value), used});
    }
  }

  ctx.autoscaler_present = autoscaler_seen(snapshot);
  return ctx;
}

bool selector_admits(const model::PodSpec& spec, const model::Node& node) {
  if (!model::node_labels_match(spec.node_selector, node.meta.labels)) return false;
  return !spec.required_affinity ||
         model::node_selector_matches(*spec.required_affinity, node.name(), node.meta.labels);
}

std::vector<model::Taint> blocking_taints(const model::PodSpec& spec, const model::Node& node) {
  return model::untolerated_taints(spec.tolerations, node.taints);
}

std::pair<std::string, long long> main_gpu_request(const model::PodSpec& spec) {
  std::pair<std::string, long long> best{"", 0};
  for (const auto& [resource, quantity] : model::effective_gpu_requests(spec)) {
    if (quantity.value() > best.second) best = {std::string(resource), quantity.value()};
  }
  return best;
}

std::string qualified(const model::ObjectMeta& meta) {
  return meta.ns.empty() ? meta.name : fmt::format("{}/{}", meta.ns, meta.name);
}

std::string name_list(const std::vector<std::string>& names, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > limit) out += fmt::format(" and {} more", names.size() - limit);
  return out;
}

std::string toleration_patch_command(std::string_view kind, const model::ObjectMeta& meta,
                                     const model::PodSpec& spec, std::string_view key) {
  const std::string value = fmt::format(R"({{"key":"{}","operator":"Exists","effect":"NoSchedule"}})", key);
  // JSON-patch "add" to ".../tolerations/-" needs the list to exist; otherwise add the list.
  const std::string op = !spec.tolerations.empty()
      ? fmt::format(R"([{{"op":"add","path":"/spec/template/spec/tolerations/-","value":{}}}])", value)
      : fmt::format(R"([{{"op":"add","path":"/spec/template/spec/tolerations","value":[{}]}}])", value);
  return fmt::format("kubectl -n {} patch {} {} --type json -p '{}'", meta.ns, kind, meta.name, op);
}

std::string toleration_patch_command(const model::Workload& workload, std::string_view key) {
  std::string kind = workload.kind.empty() ? "deployment" : workload.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return toleration_patch_command(kind, workload.meta, workload.pod_template.spec, key);
}

std::vector<std::string> grouped_evidence(const std::vector<std::pair<std::string, std::string>>& who_what,
                                          std::size_t limit) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& [who, what] : who_what) {
    // An init-capture: clang before 16 cannot capture a structured binding (the fuzz build).
    auto it = std::find_if(groups.begin(), groups.end(), [&message = what](const auto& g) { return g.first == message; });
    if (it == groups.end()) {
      groups.push_back({what, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(who);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < groups.size() && i < limit; ++i) {
    out.push_back(fmt::format("{}: {}", name_list(groups[i].second, 3), groups[i].first));
  }
  if (groups.size() > limit) out.push_back(fmt::format("and {} more distinct message(s)", groups.size() - limit));
  return out;
}

namespace {

model::GpuPlatform platform_of(const Context& ctx) {
  std::vector<const model::Node*> nodes;
  nodes.reserve(ctx.gpu_nodes.size());
  for (const GpuNode& n : ctx.gpu_nodes) nodes.push_back(n.node);
  return model::gpu_platform(nodes);
}

} // namespace

std::string apply_platform_note(const Context& ctx) {
  switch (platform_of(ctx)) {
  case model::GpuPlatform::eks_auto_mode:
    return " But EKS Auto Mode runs the device plugin inside the node image: time-slicing cannot be configured "
           "on these nodes.";
  case model::GpuPlatform::gke:
    return " GKE owns the device plugin and shares GPUs per node pool: the command prints the gcloud node-pool "
           "command that does it.";
  case model::GpuPlatform::configurable:
    break;
  }
  return {};
}

std::string apply_command(const Context& ctx, int replicas) {
  switch (platform_of(ctx)) {
  case model::GpuPlatform::gke:
    return fmt::format("kubectl gpuslice apply --replicas {} --dry-run=client", replicas);
  case model::GpuPlatform::eks_auto_mode:
    return {};
  case model::GpuPlatform::configurable:
    break;
  }
  return fmt::format("kubectl gpuslice apply --replicas {}", replicas);
}

bool is_system_taint(const model::Taint& taint) {
  return taint.key.starts_with("node.kubernetes.io/") || taint.key.starts_with("node.cloudprovider.kubernetes.io/");
}

bool has_host_device_plugin(const model::Node& node) {
  return model::runs_host_device_plugin(node);
}

ObjectRef object_ref(std::string_view kind, const model::ObjectMeta& meta) {
  return {std::string(kind), meta.ns, meta.name};
}

} // namespace gpuslice::diagnose
