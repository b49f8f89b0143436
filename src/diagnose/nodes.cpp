// SPDX-License-Identifier: Apache-2.0
// GS5xx: the GPU nodes themselves — labels the plugin chart needs, the GPU taint, readiness,
// and GPU instances that advertise no GPU at all. Tainted and cordoned nodes stay listed.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers.hpp"

namespace gpuslice::diagnose {

namespace {

std::vector<std::string> names_of(const std::vector<const GpuNode*>& nodes) {
  std::vector<std::string> names;
  for (const GpuNode* n : nodes) names.push_back(n->node->name());
  return names;
}

Finding node_finding(FindingCode code, std::string summary, const std::vector<const GpuNode*>& nodes) {
  Finding f = make_finding(code, std::move(summary));
  for (const GpuNode* n : nodes) f.objects.push_back(object_ref("Node", n->node->meta));
  return f;
}

void missing_present_label(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const GpuNode*> nodes;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.node->meta.label(model::k_label_gpu_present) != std::optional<std::string_view>("true")) nodes.push_back(&n);
  }
  if (nodes.empty()) return;
  Finding f = node_finding(FindingCode::GS500,
                           fmt::format("{} GPU node(s) lack nvidia.com/gpu.present=true", nodes.size()), nodes);
  for (const GpuNode* n : nodes) {
    if (f.evidence.size() >= 8) break;
    const std::optional<std::string_view> value = n->node->meta.label(model::k_label_gpu_present);
    f.evidence.push_back(fmt::format("node {}: nvidia.com/gpu.present={}", n->node->name(),
                                     value ? std::string(*value) : std::string("(absent)")));
  }
  f.remedy = {"Label them: the device plugin chart (≥0.15) only runs on nodes with this label or NFD's PCI labels.",
              fmt::format("kubectl label nodes {} nvidia.com/gpu.present=true --overwrite",
                          fmt::join(names_of(nodes), " "))};
  out.push_back(std::move(f));
}

void untainted(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const GpuNode*> nodes;
  for (const GpuNode& n : ctx.gpu_nodes) {
    const bool tainted = std::any_of(n.node->taints.begin(), n.node->taints.end(), [](const model::Taint& t) {
      return t.key == model::k_gpu_resource && t.effect == "NoSchedule";
    });
    // DRA pods get no toleration from ExtendedResourceToleration: the taint would lock them out.
    if (!tainted && n.inventory.dra.devices == 0) nodes.push_back(&n);
  }
  if (nodes.empty()) return;
  Finding f = node_finding(FindingCode::GS501,
                           fmt::format("{} GPU node(s) lack the nvidia.com/gpu:NoSchedule taint", nodes.size()), nodes);
  for (const GpuNode* n : nodes) {
    if (f.evidence.size() >= 8) break;
    f.evidence.push_back(fmt::format("node {} taints: {}", n->node->name(),
                                     n->inventory.taints.empty() ? std::string("none") : name_list(n->inventory.taints)));
  }
  // Value "present": the NFD worker of the device plugin chart tolerates exactly that (nvidia.md §2.2).
  f.remedy = {"Taint them so only GPU workloads land there (value 'present' keeps the chart's NFD worker running).",
              fmt::format("kubectl taint nodes {} nvidia.com/gpu=present:NoSchedule", fmt::join(names_of(nodes), " "))};
  out.push_back(std::move(f));
}

void not_ready(const Context& ctx, std::vector<Finding>& out) {
  std::vector<const GpuNode*> nodes;
  std::vector<const GpuNode*> cordoned;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (!n.inventory.ready || !n.inventory.schedulable) nodes.push_back(&n);
    if (!n.inventory.schedulable) cordoned.push_back(&n);
  }
  if (nodes.empty()) return;
  Finding f = node_finding(FindingCode::GS502,
                           fmt::format("{} GPU node(s) are NotReady or cordoned", nodes.size()), nodes);
  for (const GpuNode* n : nodes) {
    const model::Condition* ready = n->node->condition("Ready");
    f.evidence.push_back(fmt::format("node {}: Ready={}{}{}", n->node->name(), ready ? ready->status : "Unknown",
                                     ready && !ready->reason.empty() ? " (" + ready->reason + ")" : "",
                                     n->inventory.schedulable ? "" : ", cordoned (spec.unschedulable)"));
  }
  if (!cordoned.empty() && cordoned.size() == nodes.size()) {
    f.remedy = {"Uncordon the nodes once their maintenance is done.",
                fmt::format("kubectl uncordon {}", fmt::join(names_of(cordoned), " "))};
  } else {
    const GpuNode* first = *std::find_if(nodes.begin(), nodes.end(), [](const GpuNode* n) { return !n->inventory.ready; });
    f.remedy = {"Find out why the kubelet reports NotReady (conditions and recent events).",
                fmt::format("kubectl describe node {}", first->node->name())};
  }
  out.push_back(std::move(f));
}

void advertises_nothing(const Context& ctx, std::vector<Finding>& out) {
  // With no plugin anywhere GS400 explains every such node; this is about single broken nodes.
  const bool plugin_somewhere = !ctx.addons_of(AddonKind::device_plugin).empty() ||
      std::any_of(ctx.gpu_nodes.begin(), ctx.gpu_nodes.end(), [](const GpuNode& n) { return n.inventory.allocatable > 0; });
  if (!plugin_somewhere) return;
  std::vector<const GpuNode*> nodes;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (n.inventory.allocatable == 0 && n.inventory.ready && n.inventory.dra.devices == 0) nodes.push_back(&n);
  }
  if (nodes.empty()) return;
  Finding f = node_finding(FindingCode::GS503,
                           fmt::format("{} GPU node(s) advertise no GPU", nodes.size()), nodes);
  const model::Pod* plugin_pod = nullptr;
  for (const GpuNode* n : nodes) {
    f.evidence.push_back(fmt::format("node {} ({}{}): allocatable has no nvidia.com GPU resource", n->node->name(),
                                     n->inventory.instance_type.empty() ? "GPU labels" : n->inventory.instance_type,
                                     n->gpus.physical > 0 ? fmt::format(", {} GPU(s) expected", n->gpus.physical) : ""));
    for (const Addon* a : ctx.addons_of(AddonKind::device_plugin)) {
      for (const model::Pod* pod : a->pods) {
        if (pod->spec.node_name == n->node->name() && !plugin_pod) plugin_pod = pod;
      }
    }
  }
  if (ctx.snapshot.autoscaler_status) {
    const Parsed<AutoscalerHealth> status = parse_autoscaler_status(ctx.snapshot.autoscaler_status->text);
    if (status.value && status.value->cluster_wide.resource_unready > 0) {
      f.evidence.push_back(fmt::format("cluster-autoscaler counts {} node(s) as resourceUnready (GPU not advertised "
                                       "after start-up)", status.value->cluster_wide.resource_unready));
    }
  }
  if (plugin_pod) {
    f.remedy = {"Read the device plugin's log on that node (driver, container toolkit or NVML errors).",
                fmt::format("kubectl -n {} logs {} --all-containers", plugin_pod->meta.ns, plugin_pod->meta.name)};
  } else {
    f.remedy = {"Check the node's driver and device plugin registration (capacity, conditions, events).",
                fmt::format("kubectl describe node {}", nodes.front()->node->name())};
  }
  out.push_back(std::move(f));
}

} // namespace

void find_nodes(const Context& ctx, std::vector<Finding>& out) {
  missing_present_label(ctx, out);
  untainted(ctx, out);
  not_ready(ctx, out);
  advertises_nothing(ctx, out);
}

} // namespace gpuslice::diagnose
