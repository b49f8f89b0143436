// SPDX-License-Identifier: Apache-2.0
// GPU inventory: the node table and JSON shared with diagnose, and `status` output.
#include "report/inventory.hpp"

#include <fmt/format.h>

namespace gpuslice::report {

namespace {

using json = nlohmann::ordered_json;

std::string taint_list(const std::vector<std::string>& taints) {
  std::string out;
  for (const auto& t : taints) {
    out += (out.empty() ? "" : ",") + t;
  }
  return out.empty() ? "<none>" : out;
}

} // namespace

GpuTotals gpu_totals(const std::vector<diagnose::NodeInventory>& nodes) {
  GpuTotals t;
  for (const auto& n : nodes) {
    t.physical += n.physical_gpus;
    t.slots += n.allocatable;
    t.requested += n.requested;
    t.free += n.free;
  }
  return t;
}

json node_json(const diagnose::NodeInventory& n) {
  return {{"name", n.name},
          {"instanceType", n.instance_type},
          {"gpuProduct", n.gpu_product},
          {"resource", n.resource},
          {"physicalGpus", n.physical_gpus},
          {"replicas", n.replicas},
          {"allocatable", n.allocatable},
          {"requested", n.requested},
          {"free", n.free},
          {"memoryMiB", n.memory_mib},
          {"ready", n.ready},
          {"schedulable", n.schedulable},
          {"taints", n.taints}};
}

std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style) {
  if (nodes.empty()) {
    return "  No GPU nodes found.\n";
  }
  TextTable table({"name", "instance", "product", "gpus", "replicas", "slots", "requested", "free",
                   "status", "taints"});
  for (const auto& n : nodes) {
    std::string status = n.ready ? "Ready" : "NotReady";
    if (!n.schedulable) {
      status += ",SchedulingDisabled";
    }
    table.add_row({n.name, n.instance_type.empty() ? "-" : n.instance_type,
                   n.gpu_product.empty() ? "-" : n.gpu_product, std::to_string(n.physical_gpus),
                   std::to_string(n.replicas), std::to_string(n.allocatable),
                   std::to_string(n.requested), std::to_string(n.free), status,
                   taint_list(n.taints)});
  }
  return table.render(style);
}

json inventory_to_json(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster) {
  const GpuTotals t = gpu_totals(diagnosis.nodes);
  json nodes = json::array();
  for (const auto& n : diagnosis.nodes) {
    nodes.push_back(node_json(n));
  }
  return {{"apiVersion", "gpuslice/v1alpha1"},
          {"kind", "GpuInventory"},
          {"cluster", {{"context", cluster.context}, {"server", cluster.server}}},
          {"summary",
           {{"gpuNodes", diagnosis.nodes.size()},
            {"physicalGpus", t.physical},
            {"gpuSlots", t.slots},
            {"gpuSlotsRequested", t.requested},
            {"gpuSlotsFree", t.free},
            {"pendingGpuPods", diagnosis.pending_pods.size()}}},
          {"nodes", std::move(nodes)}};
}

std::string render_inventory(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                             Format format, const Style& style) {
  switch (format) {
  case Format::json: return inventory_to_json(diagnosis, cluster).dump(2) + "\n";
  case Format::yaml: return to_yaml(inventory_to_json(diagnosis, cluster));
  case Format::table: break;
  }
  const GpuTotals t = gpu_totals(diagnosis.nodes);
  std::string out = fmt::format(
      "{} GPU nodes, {} physical GPUs, {} slots: {} requested, {} free; {} GPU pods Pending\n\n",
      diagnosis.nodes.size(), t.physical, t.slots, t.requested, t.free, diagnosis.pending_pods.size());
  return out + render_node_table(diagnosis.nodes, style);
}

} // namespace gpuslice::report
