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
  out.end_object();
}

// The node table (NAME INSTANCE PRODUCT GPUS REPLICAS SLOTS REQUESTED FREE STATUS TAINTS), or
// "  No GPU nodes found." when there are none.
std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style);

} // namespace gpuslice::report
