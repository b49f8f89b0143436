// SPDX-License-Identifier: Apache-2.0
// Issue 22 part 4 in diagnose: on GKE the time-slicing remedy is the apply dry run that prints
// the gcloud node-pool command (apply changes nothing there); GKE's own sharing labels are read
// as the node's sharing config.
#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/model/gpu.hpp>

#include "unit/builders.hpp"
#include "unit/diagnose_scenarios.hpp"

using namespace scenarios;
using gpuslice::diagnose::analyze;

namespace {

gpuslice::Snapshot with_gpu_node_label(gpuslice::Snapshot s, const std::string& key, const std::string& value) {
  for (gpuslice::model::Node& node : s.nodes)
    if (gpuslice::model::is_gpu_node(node)) node.meta.labels.insert_or_assign(key, value);
  return s;
}

} // namespace

TEST_CASE("diagnose: the time-slicing remedy follows the platform") {
  const std::string plain = finding(analyze(incident()), "GS300").remedy.command;
  REQUIRE(plain.starts_with("kubectl gpuslice apply --replicas "));
  SUBCASE("GKE: the same apply, as a dry run that prints the gcloud command") {
    const Diagnosis d = analyze(with_gpu_node_label(incident(), "cloud.google.com/gke-accelerator", "nvidia-tesla-t4"));
    const Finding& gs300 = finding(d, "GS300");
    CHECK(gs300.remedy.command == plain + " --dry-run=client");
    CHECK(gs300.remedy.text.find("GKE owns the device plugin") != std::string::npos);
  }
  SUBCASE("EKS Auto Mode: time-slicing cannot be configured there, so no finding offers apply") {
    const Diagnosis d = analyze(with_gpu_node_label(incident(), "eks.amazonaws.com/compute-type", "auto"));
    CHECK_FALSE(has(d, "GS300"));
    for (const Finding& f : d.findings) {
      INFO(f.name);
      CHECK(f.remedy.command.find("gpuslice apply") == std::string::npos);
    }
    CHECK_FALSE(d.findings.empty()); // the pods are still explained (slots exhausted, autoscaler)
    // Auto Mode on only some GPU nodes: the others are ours to configure, the command stays.
    gpuslice::Snapshot mixed = incident();
    for (gpuslice::model::Node& node : mixed.nodes) {
      if (gpuslice::model::is_gpu_node(node)) {
        node.meta.labels.insert_or_assign("eks.amazonaws.com/compute-type", "auto");
        break;
      }
    }
    CHECK(finding_copy(analyze(mixed), "GS300").remedy.command == plain);
  }
}

TEST_CASE("model: GKE's sharing labels are the node's time-sharing config") {
  using gpuslice::testing::NodeBuilder;
  const gpuslice::model::Node node = NodeBuilder("gke-ml-prod-gpu-pool-3f2a9c1d-x7k2")
                                         .label("cloud.google.com/gke-accelerator", "nvidia-l4")
                                         .label("cloud.google.com/gke-gpu-sharing-strategy", "time-sharing")
                                         .label("cloud.google.com/gke-max-shared-clients-per-gpu", "3")
                                         .gpus(6)
                                         .build();
  const gpuslice::model::NodeGpus gpus = gpuslice::model::describe_node_gpus(node);
  CHECK(gpus.replicas == 3);
  CHECK(gpus.physical == 2);
  CHECK(gpus.sharing_strategy == "time-sharing");
  SUBCASE("a GKE node without time-sharing stays at 1 replica") {
    const gpuslice::model::Node plain = NodeBuilder("gke-ml-prod-gpu-pool-3f2a9c1d-q9p4")
                                            .label("cloud.google.com/gke-accelerator", "nvidia-l4")
                                            .gpus(2)
                                            .build();
    CHECK(gpuslice::model::describe_node_gpus(plain).replicas == 1);
    CHECK(gpuslice::model::describe_node_gpus(plain).physical == 2);
  }
}
