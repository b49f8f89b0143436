// SPDX-License-Identifier: Apache-2.0
// GPU inventory: the node table and JSON shared with diagnose, and `status` output.
#include "report/inventory.hpp"
#include "report/json_text_writer.hpp"

#include <algorithm>
#include <map>

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
  std::map<std::string, diagnose::MigSlots> mig;
  for (const auto& n : nodes) {
    t.physical += n.physical_gpus;
    t.slots += n.allocatable;
    t.requested += n.requested;
    t.free += n.free;
    for (const diagnose::MigSlots& m : n.mig) {
      diagnose::MigSlots& sum = mig[m.profile];
      sum.profile = m.profile;
      sum.allocatable += m.allocatable;
      sum.requested += m.requested;
      sum.free += m.free;
    }
    t.dra.devices += n.dra.devices;
    t.dra.allocated += n.dra.allocated;
    t.dra.free += n.dra.free;
  }
  for (auto& [profile, sum] : mig) t.mig.push_back(std::move(sum));
  return t;
}

std::string mig_slots_text(const std::vector<diagnose::MigSlots>& mig) {
  std::string out;
  for (const diagnose::MigSlots& m : mig) {
    out += fmt::format("{}{} {}/{} free", out.empty() ? "" : ", ", m.profile, m.free, m.allocatable);
  }
  return out.empty() ? "-" : out;
}

std::string dra_gpus_text(const diagnose::DraGpus& dra) {
  return dra.devices == 0 ? std::string("-") : fmt::format("{}/{} free", dra.free, dra.devices);
}

std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style) {
  if (nodes.empty()) {
    return "  No GPU nodes found.\n";
  }
  const bool any_mig = std::any_of(nodes.begin(), nodes.end(), [](const auto& n) { return !n.mig.empty(); });
  std::vector<std::string> header = {"name", "instance", "product", "gpus", "replicas", "slots", "requested", "free"};
  if (any_mig) header.emplace_back("mig");
  const bool any_dra = std::any_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.dra.devices > 0; });
  if (any_dra) header.emplace_back("dra");
  header.insert(header.end(), {"status", "taints"});
  TextTable table(header);
  for (const auto& n : nodes) {
    std::string status = n.ready ? "Ready" : "NotReady";
    if (!n.schedulable) {
      status += ",SchedulingDisabled";
    }
    std::vector<std::string> row = {n.name, n.instance_type.empty() ? "-" : n.instance_type,
                                    n.gpu_product.empty() ? "-" : n.gpu_product, std::to_string(n.physical_gpus),
                                    std::to_string(n.replicas), std::to_string(n.allocatable),
                                    std::to_string(n.requested), std::to_string(n.free)};
    if (any_mig) row.push_back(mig_slots_text(n.mig));
    if (any_dra) row.push_back(dra_gpus_text(n.dra));
    row.insert(row.end(), {status, taint_list(n.taints)});
    table.add_row(row);
  }
  return table.render(style);
}

namespace {

template <class Sink>
void write_inventory(Sink& out, const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster) {
  const GpuTotals t = gpu_totals(diagnosis.nodes);
  out.begin_object();
  write_strings(out, {{"apiVersion", "gpuslice/v1alpha1"}, {"kind", "GpuInventory"}});
  out.key("cluster");
  write_cluster(out, cluster);
  out.key("summary");
  out.begin_object();
  write_integers(out, {{"gpuNodes", static_cast<long long>(diagnosis.nodes.size())},
                       {"physicalGpus", t.physical},
                       {"gpuSlots", t.slots},
                       {"gpuSlotsRequested", t.requested},
                       {"gpuSlotsFree", t.free},
                       {"pendingGpuPods", static_cast<long long>(diagnosis.pending_pods.size())}});
  if (!t.mig.empty()) {
    out.key("migSlots");
    write_mig(out, t.mig);
  }
  if (t.dra.devices > 0) {
    out.key("draGpus");
    write_dra(out, t.dra);
  }
  out.end_object();
  out.key("nodes");
  out.begin_array();
  for (const auto& n : diagnosis.nodes) write_node(out, n);
  out.end_array();
  out.end_object();
}

} // namespace

json inventory_to_json(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster) {
  JsonTreeBuilder out;
  write_inventory(out, diagnosis, cluster);
  return out.take();
}

namespace {

std::string inventory_json_text(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster) {
  try {
    JsonTextWriter out;
    write_inventory(out, diagnosis, cluster);
    return out.take() + "\n";
  } catch (const InvalidUtf8&) {
    return inventory_to_json(diagnosis, cluster).dump(2) + "\n"; // nlohmann's own error
  }
}

} // namespace

std::string render_inventory(const diagnose::Diagnosis& diagnosis, const ClusterInfo& cluster,
                             Format format, const Style& style) {
  switch (format) {
  case Format::json: return inventory_json_text(diagnosis, cluster);
  case Format::yaml: return to_yaml(inventory_to_json(diagnosis, cluster));
  case Format::table: break;
  }
  const GpuTotals t = gpu_totals(diagnosis.nodes);
  std::string out = fmt::format(
      "{} GPU nodes, {} physical GPUs, {} slots: {} requested, {} free; {} GPU pods Pending\n\n",
      diagnosis.nodes.size(), t.physical, t.slots, t.requested, t.free, diagnosis.pending_pods.size());
  if (!t.mig.empty()) {
    out.insert(out.size() - 2, fmt::format("; MIG slices (not GPU slots): {}", mig_slots_text(t.mig)));
  }
  if (t.dra.devices > 0) {
    out.insert(out.size() - 2, fmt::format("; DRA GPUs (claimed, not slots): {}", dra_gpus_text(t.dra)));
  }
  return out + render_node_table(diagnosis.nodes, style);
}

} // namespace gpuslice::report
