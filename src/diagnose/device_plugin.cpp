// SPDX-License-Identifier: Apache-2.0
// GS4xx: the NVIDIA device plugin and GPU feature discovery — present, on every GPU node,
// healthy, configured with a valid and used time-slicing config, managed by whom, alone.
#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "capacity.hpp"

namespace gpuslice::diagnose {

namespace {

bool admits(const model::DaemonSet& ds, const model::Node& node) {
  return selector_admits(ds.pod_template.spec, node) && blocking_taints(ds.pod_template.spec, node).empty();
}

bool any_gpu_advertised(const Context& ctx) {
  return std::any_of(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(),
                     [](const GpuNode& n) { return n.inventory.allocatable > 0; });
}

void device_plugin_missing(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.gpu_nodes.empty() || !ctx.addons_of(AddonKind::device_plugin).empty()) return;
  // Bottlerocket / EKS Auto Mode run the plugin on the host: GPUs are advertised without a DaemonSet.
  std::vector<const GpuNode*> uncovered;
  for (const GpuNode& n : ctx.gpu_nodes) {
    // A node whose GPUs the DRA driver publishes needs no device plugin (and must not get one).
    if (!has_host_device_plugin(*n.node) && n.inventory.allocatable == 0 && n.inventory.dra.devices == 0) uncovered.push_back(&n);
  }
  if (uncovered.empty()) return;
  Finding f = make_finding(FindingCode::GS400,
                           fmt::format("no NVIDIA device plugin is installed: {} GPU node(s) advertise no GPU",
                                       uncovered.size()));
  for (const GpuNode* n : uncovered) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    if (f.evidence.size() < 5) {
      f.evidence.push_back(fmt::format("node {} ({}) has no GPU in allocatable", n->node->name(),
                                       n->inventory.instance_type.empty() ? "GPU labels" : n->inventory.instance_type));
    }
  }
  f.evidence.push_back("no DaemonSet runs nvidia-device-plugin (image nvcr.io/nvidia/k8s-device-plugin)");
  const int replicas = recommended_replicas(ctx);
  f.remedy = gated_apply_remedy(ctx, replicas,
                                fmt::format("Install the NVIDIA device plugin (with time-slicing at {} replicas).", replicas));
  out.push_back(std::move(f));
}

// Why a DaemonSet does not run on a node, for evidence and the remedy.
std::string why_not(const model::DaemonSet& ds, const model::Node& node, bool* wants_present_label) {
  const model::PodSpec& spec = ds.pod_template.spec;
  const std::vector<model::Taint> taints = blocking_taints(spec, node);
  if (!taints.empty()) return fmt::format("taint {} is not tolerated", model::to_string(taints.front()));
  if (!model::node_labels_match(spec.node_selector, node.meta.labels)) {
    std::vector<std::string> pairs;
    for (const auto& [k, v] : spec.node_selector) pairs.push_back(fmt::format("{}={}", k, v));
    return fmt::format("nodeSelector {} does not match", fmt::join(pairs, ","));
  }
  if (spec.required_affinity) {
    for (const auto& term : spec.required_affinity->terms) {
      for (const auto& r : term.match_expressions) {
        if (r.key == model::k_label_gpu_present) *wants_present_label = true;
      }
    }
    return "no term of its required node affinity matches the node's labels";
  }
  return "it is not scheduled there";
}

void device_plugin_not_on_all_gpu_nodes(const Context& ctx, std::vector<Finding>& out) {
  const std::vector<const Addon*> plugins = ctx.addons_of(AddonKind::device_plugin);
  if (plugins.empty()) return;
  std::vector<const GpuNode*> uncovered;
  std::vector<std::string> reasons;
  bool wants_present_label = false;
  const Addon* taint_blocked = nullptr;
  std::string taint_key;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (has_host_device_plugin(*n.node)) continue;
    if (std::any_of(plugins.begin(), plugins.end(), [&](const Addon* a) { return admits(*a->daemonset, *n.node); })) {
      continue;
    }
    uncovered.push_back(&n);
    const model::DaemonSet& ds = *plugins.front()->daemonset;
    reasons.push_back(fmt::format("node {}: DaemonSet {}: {}", n.node->name(), qualified(ds.meta),
                                  why_not(ds, *n.node, &wants_present_label)));
    const std::vector<model::Taint> taints = blocking_taints(ds.pod_template.spec, *n.node);
    if (!taints.empty() && !taint_blocked) {
      taint_blocked = plugins.front();
      taint_key = taints.front().key;
    }
  }
  if (uncovered.empty()) return;
  Finding f = make_finding(FindingCode::GS401,
                           fmt::format("the device plugin does not run on {} of {} GPU node(s)", uncovered.size(),
                                       ctx.gpu_nodes.size()));
  std::vector<std::string> names;
  for (const GpuNode* n : uncovered) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    names.push_back(n->node->name());
  }
  for (std::size_t i = 0; i < reasons.size() && i < 8; ++i) f.evidence.push_back(reasons[i]);
  if (wants_present_label) {
    f.remedy = {"Label the GPU nodes the way the chart's node affinity expects.",
                fmt::format("kubectl label nodes {} nvidia.com/gpu.present=true", fmt::join(names, " "))};
  } else if (taint_blocked) {
    f.remedy = {fmt::format("Let the device plugin tolerate {}.", taint_key),
                toleration_patch_command("daemonset", taint_blocked->daemonset->meta,
                                         taint_blocked->daemonset->pod_template.spec, taint_key)};
  } else {
    f.remedy = {"Make the device plugin's nodeSelector/affinity match the GPU nodes.",
                fmt::format("kubectl -n {} edit daemonset {}", plugins.front()->daemonset->meta.ns,
                            plugins.front()->daemonset->meta.name)};
  }
  out.push_back(std::move(f));
}

// The first container status of a pod that explains why it is not ready.
std::string pod_state(const model::Pod& pod) {
  for (const auto* list : {&pod.init_container_statuses, &pod.container_statuses}) {
    for (const model::ContainerStatus& s : *list) {
      if (s.state == "waiting" || (s.state == "terminated" && s.reason != "Completed")) {
        return fmt::format("container {} {} ({}) after {} restart(s){}", s.name, s.state, s.reason, s.restart_count,
                           s.message.empty() ? std::string{} : ": " + s.message);
      }
    }
  }
  return fmt::format("phase {}, not ready", pod.phase);
}

void device_plugin_unhealthy(const Context& ctx, std::vector<Finding>& out) {
  for (const Addon* plugin : ctx.addons_of(AddonKind::device_plugin)) {
    std::vector<const model::Pod*> bad;
    for (const model::Pod* pod : plugin->pods) {
      if (pod->phase == "Succeeded" || pod->phase == "Failed") continue;
      if (!pod->is_ready()) bad.push_back(pod);
    }
    const model::DaemonSetStatus& st = plugin->daemonset->status;
    const bool status_short = plugin->pods.empty() && st.number_ready < st.desired_number_scheduled;
    if (bad.empty() && !status_short) continue;
    const model::DaemonSet& ds = *plugin->daemonset;
    Finding f = make_finding(FindingCode::GS402,
                             fmt::format("device plugin {}: {} of {} pod(s) ready", qualified(ds.meta),
                                         st.number_ready, st.desired_number_scheduled));
    f.objects.push_back(object_ref("DaemonSet", ds.meta));
    for (const model::Pod* pod : bad) {
      f.objects.push_back(object_ref("Pod", pod->meta));
      if (f.evidence.size() < 8) {
        f.evidence.push_back(fmt::format("pod {} on {}: {}", pod->meta.name, pod->spec.node_name, pod_state(*pod)));
      }
    }
    if (bad.empty()) {
      f.evidence.push_back(fmt::format("DaemonSet status: desired {}, ready {}, unavailable {}",
                                       st.desired_number_scheduled, st.number_ready, st.number_unavailable));
    }
    // --all-containers: config-manager init and sidecar failures hide outside the main container.
    f.remedy = {"Read the plugin's logs (init and sidecar containers included): a bad config, a missing driver "
                "or an unknown config label make it crash.",
                bad.empty() ? fmt::format("kubectl -n {} logs daemonset/{} --all-containers", ds.meta.ns, ds.meta.name)
                            : fmt::format("kubectl -n {} logs {} --all-containers --previous", ds.meta.ns,
                                          bad.front()->meta.name)};
    out.push_back(std::move(f));
  }
}

void config_invalid(const Context& ctx, std::vector<Finding>& out) {
  for (const SharingConfigSource& s : ctx.sharing_configs) {
    if (s.check.problems.empty()) continue;
    const bool fatal = !s.check.usable();
    Finding f = make_finding(FindingCode::GS403,
                             fmt::format("ConfigMap {} key \"{}\": {} problem(s){}", qualified(s.configmap->meta), s.key,
                                         s.check.problems.size(),
                                         fatal ? ", the device plugin refuses it" : ", keys the device plugin ignores"));
    f.objects.push_back(object_ref("ConfigMap", s.configmap->meta));
    for (const ConfigProblem& p : s.check.problems) {
      f.evidence.push_back(fmt::format("{}: {}{}", p.path.empty() ? "(document)" : p.path, p.message,
                                       p.fatal ? " [fatal]" : " [ignored]"));
    }
    int replicas = recommended_replicas(ctx);
    if (!s.check.config.resources.empty()) replicas = s.check.config.resources.front().replicas;
    f.remedy = gated_apply_remedy(ctx, replicas, "Fix the keys named above, or let the tool write a valid config.");
    out.push_back(std::move(f));
  }
}

void config_unused(const Context& ctx, std::vector<Finding>& out) {
  for (const SharingConfigSource& s : ctx.sharing_configs) {
    if (s.used || !s.check.usable() || s.check.config.strategy == "none") continue;
    const int replicas = s.check.config.resources.front().replicas;
    Finding f = make_finding(FindingCode::GS404,
                             fmt::format("ConfigMap {} holds a {} config ({} replicas) that no device plugin uses",
                                         qualified(s.configmap->meta), s.check.config.strategy, replicas));
    f.objects.push_back(object_ref("ConfigMap", s.configmap->meta));
    f.evidence.push_back(fmt::format("key \"{}\": {} replicas of {}", s.key, replicas,
                                     s.check.config.resources.front().name));
    const std::vector<const Addon*> plugins = ctx.addons_of(AddonKind::device_plugin);
    if (plugins.empty()) {
      f.evidence.push_back("no device plugin DaemonSet is installed");
    }
    bool operator_managed = false;
    for (const Addon* a : plugins) {
      operator_managed = operator_managed || a->operator_managed;
      f.evidence.push_back(fmt::format("DaemonSet {} does not mount it{}", qualified(a->daemonset->meta),
                                       a->operator_managed ? " (GPU Operator: ClusterPolicy devicePlugin.config)" : ""));
    }
    if (operator_managed && !ctx.snapshot.cluster_policies.empty()) {
      f.remedy = {"Point the ClusterPolicy at the ConfigMap (it must be in the operator namespace).",
                  fmt::format(R"(kubectl patch clusterpolicies.nvidia.com/{} --type merge -p '{{"spec":{{"devicePlugin":{{"config":{{"name":"{}","default":"{}"}}}}}}}}')",
                              ctx.snapshot.cluster_policies.front().meta.name, s.configmap->meta.name, s.key)};
    } else {
      f.remedy = gated_apply_remedy(ctx, replicas,
                                    "Wire the config into the device plugin (mounted as a file named by CONFIG_FILE).");
    }
    out.push_back(std::move(f));
  }
}

void operator_managed(const Context& ctx, std::vector<Finding>& out) {
  for (const Addon* a : ctx.addons_of(AddonKind::device_plugin)) {
    if (!a->operator_managed) continue;
    const model::OwnerReference* owner = a->daemonset->meta.controller();
    const std::string policy = owner ? owner->name : std::string("cluster-policy");
    Finding f = make_finding(FindingCode::GS405,
                             fmt::format("device plugin {} is managed by the GPU Operator (ClusterPolicy {})",
                                         qualified(a->daemonset->meta), policy));
    f.objects = {object_ref("DaemonSet", a->daemonset->meta), {"ClusterPolicy", "", policy}};
    f.evidence.push_back(fmt::format("ownerReferences: ClusterPolicy/{} (controller)", policy));
    f.remedy = {"Configure time-slicing through the ClusterPolicy; the operator reverts edits to its DaemonSet.",
                fmt::format(R"(kubectl patch clusterpolicies.nvidia.com/{} --type merge -p '{{"spec":{{"devicePlugin":{{"config":{{"name":"time-slicing-config","default":"any"}}}}}}}}')",
                            policy)};
    out.push_back(std::move(f));
  }
}

void multiple_device_plugins(const Context& ctx, std::vector<Finding>& out) {
  const std::vector<const Addon*> plugins = ctx.addons_of(AddonKind::device_plugin);
  std::set<const Addon*> involved;
  std::vector<std::string> evidence;
  bool host_seen = false;
  for (const GpuNode& n : ctx.gpu_nodes) {
    std::vector<const Addon*> here;
    for (const Addon* a : plugins) {
      if (admits(*a->daemonset, *n.node)) here.push_back(a);
    }
    const bool host = has_host_device_plugin(*n.node);
    if (here.size() + (host ? 1 : 0) < 2) continue;
    std::vector<std::string> names;
    for (const Addon* a : here) {
      names.push_back(qualified(a->daemonset->meta));
      involved.insert(a);
    }
    if (host) {
      names.push_back("the host's built-in plugin (Bottlerocket)");
      host_seen = true;
    }
    if (evidence.size() < 8) evidence.push_back(fmt::format("node {}: {}", n.node->name(), fmt::join(names, " and ")));
  }
  if (involved.empty()) return;
  Finding f = make_finding(FindingCode::GS406,
                           fmt::format("{} device plugins advertise GPUs on the same nodes; the last to register wins",
                                       involved.size() + (host_seen ? 1 : 0)));
  // Keep the operator's or Helm's plugin; the static manifest is the one to remove.
  const Addon* remove = nullptr;
  for (const Addon* a : involved) {
    f.objects.push_back(object_ref("DaemonSet", a->daemonset->meta));
    const bool helm = a->daemonset->meta.label("app.kubernetes.io/managed-by") == std::optional<std::string_view>("Helm");
    if (!a->operator_managed && (!remove || !helm)) remove = a;
  }
  f.evidence = std::move(evidence);
  const bool all_host = std::all_of(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(),
                                    [](const GpuNode& n) { return has_host_device_plugin(*n.node); });
  if (host_seen && involved.size() == 1 && !all_host) {
    // Other nodes need this DaemonSet: keep it, but off the Bottlerocket nodes.
    f.remedy = {"Keep the DaemonSet off Bottlerocket nodes (a node affinity excluding them); they run their own plugin.",
                fmt::format("kubectl -n {} edit daemonset {}", remove->daemonset->meta.ns, remove->daemonset->meta.name)};
  } else {
    f.remedy = {"Keep one device plugin per node; delete the extra DaemonSet.",
                remove ? fmt::format("kubectl -n {} delete daemonset {}", remove->daemonset->meta.ns,
                                     remove->daemonset->meta.name)
                       : std::string{}};
  }
  out.push_back(std::move(f));
}

void feature_discovery_missing(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.gpu_nodes.empty() || model::runs_feature_discovery(ctx.snapshot.daemonsets)) return;
  if (ctx.addons_of(AddonKind::device_plugin).empty() && !any_gpu_advertised(ctx)) return;  // GS400 first
  const bool labelled = std::any_of(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(), [](const GpuNode& n) {
    return n.node->meta.label(model::k_label_gpu_product).has_value();
  });
  if (labelled) return;  // e.g. GFD runs outside the cluster's DaemonSets (host, operator on another path)
  Finding f = make_finding(FindingCode::GS407,
                           "GPU feature discovery is not running: nodes carry no nvidia.com/gpu.product/replicas labels");
  for (const GpuNode& n : ctx.gpu_nodes) f.objects.push_back(object_ref("Node", n.node->meta));
  f.evidence.push_back("no gpu-feature-discovery DaemonSet, and no GPU node has the nvidia.com/gpu.product label");
  std::string release = "nvdp";
  std::string ns = "nvidia-device-plugin";
  for (const model::HelmRelease& r : ctx.snapshot.helm_releases) {
    if (r.chart_name == "nvidia-device-plugin") {
      release = r.name;
      ns = r.ns;
    }
  }
  f.remedy = {"Enable GFD in the device plugin chart (it also brings NFD, which labels GPU nodes).",
              fmt::format("helm upgrade -i {} nvdp/nvidia-device-plugin -n {} --reuse-values --set gfd.enabled=true",
                          release, ns)};
  out.push_back(std::move(f));
}

// GFD labels with no GFD to keep them current: they still say what the last GFD run saw.
void feature_discovery_labels_stale(const Context& ctx, std::vector<Finding>& out) {
  if (ctx.gpu_nodes.empty() || model::runs_feature_discovery(ctx.snapshot.daemonsets)) return;
  std::vector<std::pair<const GpuNode*, std::size_t>> stale; // and how many GFD labels it has
  std::set<std::string> keys;                 // on any stale node: what the command removes
  std::optional<std::set<std::string>> common; // on every stale node: a selector for them all
  for (const GpuNode& n : ctx.gpu_nodes) {
    std::set<std::string> here;
    for (const auto& [key, value] : n.node->meta.labels)
      if (model::is_feature_discovery_label(key)) here.insert(std::string(key));
    if (here.empty()) continue;
    stale.emplace_back(&n, here.size());
    keys.insert(here.begin(), here.end());
    if (!common) {
      common = here;
    } else {
      std::set<std::string> both;
      std::set_intersection(common->begin(), common->end(), here.begin(), here.end(), std::inserter(both, both.end()));
      common = std::move(both);
    }
  }
  if (stale.empty()) return;
  Finding f = make_finding(FindingCode::GS408,
                           fmt::format("{} GPU node(s) carry GFD labels but GFD is not running: the labels are stale",
                                       stale.size()));
  std::vector<std::string> names;
  for (const auto& [n, count] : stale) {
    f.objects.push_back(object_ref("Node", n->node->meta));
    names.push_back(n->node->name());
    if (f.evidence.size() >= 8) continue;
    std::vector<std::string> shown;
    for (std::string_view key : {model::k_label_gpu_product, std::string_view("nvidia.com/gpu.replicas"),
                                 std::string_view("nvidia.com/gpu.sharing-strategy")})
      if (std::optional<std::string_view> value = n->node->meta.label(key)) shown.push_back(fmt::format("{}={}", key, *value));
    f.evidence.push_back(shown.empty() ? fmt::format("node {}: {} GFD label(s)", n->node->name(), count)
                                       : fmt::format("node {}: {} ({} GFD label(s))", n->node->name(),
                                                     fmt::join(shown, ", "), count));
  }
  f.evidence.push_back("no gpu-feature-discovery DaemonSet, and no gpu-feature-discovery container in a device "
                       "plugin DaemonSet");
  std::vector<std::string> removals;
  for (const std::string& key : keys) removals.push_back(key + "-");
  // Past a handful of nodes, a selector on a key every stale node carries beats a long argv (any
  // other node it picks carries a GFD label with no GFD: stale as well).
  const std::string which = names.size() > 10 && common && !common->empty()
                                ? fmt::format("-l {}", *common->begin())
                                : fmt::format("{}", fmt::join(names, " "));
  f.remedy = {"Remove the stale labels (selectors and dashboards on nvidia.com/gpu.product or gpu.replicas read them), "
              "or run GFD again so they follow the config: kubectl gpuslice apply --gfd.",
              fmt::format("kubectl label nodes {} {}", which, fmt::join(removals, " "))};
  out.push_back(std::move(f));
}

} // namespace

void find_device_plugin(const Context& ctx, std::vector<Finding>& out) {
  device_plugin_missing(ctx, out);
  device_plugin_not_on_all_gpu_nodes(ctx, out);
  device_plugin_unhealthy(ctx, out);
  config_invalid(ctx, out);
  config_unused(ctx, out);
  operator_managed(ctx, out);
  multiple_device_plugins(ctx, out);
  feature_discovery_missing(ctx, out);
  feature_discovery_labels_stale(ctx, out);
}

} // namespace gpuslice::diagnose
