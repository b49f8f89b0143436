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

// One node of DESIGN §4.3 "nodes", to a sink with JsonTextWriter's calls (json_text_writer.hpp).
template <class Sink>
void write_node(Sink& out, const diagnose::NodeInventory& n) {
  out.begin_object();
  out.key("name");
  out.string(n.name);
  out.key("instanceType");
  out.string(n.instance_type);
  out.key("gpuProduct");
  out.string(n.gpu_product);
  out.key("resource");
  out.string(n.resource);
  out.key("physicalGpus");
  out.integer(n.physical_gpus);
  out.key("replicas");
  out.integer(n.replicas);
  out.key("allocatable");
  out.integer(n.allocatable);
  out.key("requested");
  out.integer(n.requested);
  out.key("free");
  out.integer(n.free);
  out.key("memoryMiB");
  out.integer(n.memory_mib);
  out.key("ready");
  out.boolean(n.ready);
  out.key("schedulable");
  out.boolean(n.schedulable);
  out.key("taints");
  out.strings(n.taints);
  out.end_object();
}

// Integer members in the order given, e.g. a summary's counts.
template <class Sink>
void write_integers(Sink& out, std::initializer_list<std::pair<std::string_view, long long>> members) {
  for (const auto& [name, value] : members) {
    out.key(name);
    out.integer(value);
  }
}

// {"context", "server"} of the report's "cluster".
template <class Sink>
void write_cluster(Sink& out, const ClusterInfo& cluster) {
  out.begin_object();
  out.key("context");
  out.string(cluster.context);
  out.key("server");
  out.string(cluster.server);
  out.end_object();
}

// The node table (NAME INSTANCE PRODUCT GPUS REPLICAS SLOTS REQUESTED FREE STATUS TAINTS), or
// "  No GPU nodes found." when there are none.
std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style);

} // namespace gpuslice::report
