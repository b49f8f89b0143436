// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

using namespace gpuslice;

namespace {

diagnose::NodeInventory node(const std::string& name, int gpus, int replicas, long long requested) {
  diagnose::NodeInventory n;
  n.name = name;
  n.instance_type = "g4dn.xlarge";
  n.gpu_product = "Tesla-T4-SHARED";
  n.resource = "nvidia.com/gpu";
  n.physical_gpus = gpus;
  n.replicas = replicas;
  n.allocatable = static_cast<long long>(gpus) * replicas;
  n.requested = requested;
  n.free = n.allocatable - requested;
  return n;
}

} // namespace

TEST_CASE("report::inventory_to_json") {
  diagnose::Diagnosis d;
  d.nodes = {node("a", 1, 4, 3), node("b", 1, 4, 4)};
  const auto j = report::inventory_to_json(d, {"ctx", "https://x"});
  CHECK(j["kind"] == "GpuInventory");
  CHECK(j["summary"]["gpuNodes"] == 2);
  CHECK(j["summary"]["physicalGpus"] == 2);
  CHECK(j["summary"]["gpuSlots"] == 8);
  CHECK(j["summary"]["gpuSlotsRequested"] == 7);
  CHECK(j["summary"]["gpuSlotsFree"] == 1);
  CHECK(j["nodes"][1]["replicas"] == 4);
}

TEST_CASE("report::render_inventory") {
  diagnose::Diagnosis d;
  d.nodes = {node("a", 1, 4, 3)};
  d.nodes[0].schedulable = false;
  const std::string out = report::render_inventory(d, {}, report::Format::table, report::Style{});
  CHECK(out.rfind("1 GPU nodes, 1 physical GPUs, 4 slots: 3 requested, 1 free; 0 GPU pods Pending\n", 0) == 0);
  CHECK(out.find("a      g4dn.xlarge   Tesla-T4-SHARED   1      4          4       3           1      Ready,SchedulingDisabled   <none>") !=
        std::string::npos);
}
