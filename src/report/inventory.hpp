// SPDX-License-Identifier: Apache-2.0
// The GPU node inventory pieces that diagnose and status both print.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

// Integer members in the order given, e.g. a summary's counts.
template <class Sink>
void write_integers(Sink& out, std::initializer_list<std::pair<std::string_view, long long>> members) {
  for (const auto& [name, value] : members) {
    out.key(name);
    out.integer(value);
  }
}

// String members in the order given, e.g. an object's name fields.
template <class Sink>
void write_strings(Sink& out, std::initializer_list<std::pair<std::string_view, std::string_view>> members) {
  for (const auto& [name, value] : members) {
    out.key(name);
    out.string(value);
  }
}

// {"context", "server"} of the report's "cluster".
template <class Sink>
void write_cluster(Sink& out, const ClusterInfo& cluster) {
  out.begin_object();
  write_strings(out, {{"context", cluster.context}, {"server", cluster.server}});
  out.end_object();
}

// [{"profile", "allocatable", "requested", "free"}] of DESIGN §4.3's "mig" (node and summary).
template <class Sink>
void write_mig(Sink& out, const std::vector<diagnose::MigSlots>& mig) {
  out.begin_array();
  for (const diagnose::MigSlots& m : mig) {
    out.begin_object();
    write_strings(out, {{"profile", m.profile}});
    write_integers(out, {{"allocatable", m.allocatable}, {"requested", m.requested}, {"free", m.free}});
    out.end_object();
  }
  out.end_array();
}

// {"devices", "allocated", "free"} of DESIGN §4.3's "dra" (node) and "draGpus" (summary).
template <class Sink>
void write_dra(Sink& out, const diagnose::DraGpus& dra) {
  out.begin_object();
  write_integers(out, {{"devices", dra.devices}, {"allocated", dra.allocated}, {"free", dra.free}});
  out.end_object();
}

// One node of DESIGN §4.3 "nodes", to a sink with JsonTextWriter's calls (json_text_writer.hpp).
template <class Sink>
void write_node(Sink& out, const diagnose::NodeInventory& n) {
  out.begin_object();
  write_strings(out, {{"name", n.name}, {"instanceType", n.instance_type}, {"gpuProduct", n.gpu_product},
                      {"resource", n.resource}});
  write_integers(out, {{"physicalGpus", n.physical_gpus},
                       {"replicas", n.replicas},
                       {"allocatable", n.allocatable},
                       {"requested", n.requested},
                       {"free", n.free},
                       {"memoryMiB", n.memory_mib}});
  out.key("ready");
  out.boolean(n.ready);
  out.key("schedulable");
  out.boolean(n.schedulable);
  out.key("taints");
  out.strings(n.taints);
  if (!n.mig.empty()) { // only MIG nodes carry it: the whole-GPU figures above exclude these slices
    out.key("mig");
    write_mig(out, n.mig);
  }
  if (n.dra.devices > 0) { // only nodes whose GPUs the DRA driver publishes: never in allocatable
    out.key("dra");
    write_dra(out, n.dra);
  }
  out.end_object();
}

// "1g.5gb 50/56 free, 2g.10gb 3/3 free", or "-" without MIG slices: the table cell and summary.
std::string mig_slots_text(const std::vector<diagnose::MigSlots>& mig);

// "1/2 free" of a node's or the cluster's DRA GPUs, "-" without any: the table cell and summary.
std::string dra_gpus_text(const diagnose::DraGpus& dra);

// The node table (NAME INSTANCE PRODUCT GPUS REPLICAS SLOTS REQUESTED FREE [MIG] [DRA] STATUS
// TAINTS), or "  No GPU nodes found." when there are none; MIG only when some node has MIG
// slices, DRA only when the DRA driver publishes GPUs of some node.
std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style);

} // namespace gpuslice::report
