// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <gpuslice/model/gpu.hpp>

#include "unit/builders.hpp"

using namespace gpuslice::model;
using gpuslice::testing::NodeBuilder;

TEST_CASE("model::gpu_resource_kind") {
  CHECK(gpu_resource_kind("nvidia.com/gpu") == GpuResourceKind::whole);
  CHECK(gpu_resource_kind("nvidia.com/gpu.shared") == GpuResourceKind::shared);
  CHECK(gpu_resource_kind("nvidia.com/mig-1g.5gb") == GpuResourceKind::mig);
  CHECK(gpu_resource_kind("nvidia.com/mig-3g.20gb.shared") == GpuResourceKind::mig);
  CHECK(gpu_resource_kind("nvidia.com/mig-") == GpuResourceKind::none);
  CHECK(gpu_resource_kind("amd.com/gpu") == GpuResourceKind::none);
  CHECK(gpu_resource_kind("cpu") == GpuResourceKind::none);
  CHECK(is_gpu_resource("nvidia.com/gpu"));
  CHECK(!is_gpu_resource("nvidia.com/gpu.present"));
}

TEST_CASE("model::gpu_units") {
  ResourceList list{{"cpu", Quantity::from_units(4)},
                    {"nvidia.com/gpu", Quantity::from_units(0)},
                    {"nvidia.com/gpu.shared", Quantity::from_units(16)},
                    {"nvidia.com/mig-1g.5gb", Quantity::from_units(7)}};
  CHECK(gpu_units(list) == 23);
  CHECK(gpu_units({}) == 0);
}

TEST_CASE("model::lookup_instance_type") {
  SUBCASE("catalog entries from nvidia.md 7.5") {
    std::optional<InstanceGpus> t4 = lookup_instance_type("g4dn.xlarge");
    REQUIRE(t4);
    CHECK(t4->gpu_model == "T4");
    CHECK(t4->gpu_count == 1);
    CHECK(t4->memory_mib == 16384);
    CHECK(!t4->mig_capable);
    CHECK(lookup_instance_type("g4dn.12xlarge")->gpu_count == 4);
    CHECK(lookup_instance_type("g4dn.metal")->gpu_count == 8);
    CHECK(lookup_instance_type("g5.48xlarge")->gpu_count == 8);
    CHECK(lookup_instance_type("g5.2xlarge")->gpu_model == "A10G");
    CHECK(lookup_instance_type("g6.xlarge")->gpu_model == "L4");
    CHECK(lookup_instance_type("g6e.12xlarge")->memory_mib == 45776);
    CHECK(lookup_instance_type("p3.8xlarge")->gpu_count == 4);
    CHECK(lookup_instance_type("p3dn.24xlarge")->memory_mib == 32768);
    CHECK(lookup_instance_type("p4d.24xlarge")->mig_capable);
    CHECK(lookup_instance_type("p4de.24xlarge")->memory_mib == 81920);
    CHECK(lookup_instance_type("p5.4xlarge")->gpu_count == 1);
    CHECK(lookup_instance_type("p5.48xlarge")->gpu_model == "H100");
    CHECK(lookup_instance_type("p5en.48xlarge")->gpu_model == "H200");
    CHECK(lookup_instance_type("p6-b200.48xlarge")->family == "blackwell");
    CHECK(lookup_instance_type("g5g.16xlarge")->gpu_count == 2);
    CHECK(lookup_instance_type("gr6.4xlarge")->gpu_model == "L4");
    CHECK(lookup_instance_type("g7e.12xlarge")->gpu_count == 2);
  }
  SUBCASE("non-GPU and unknown types") {
    CHECK(!lookup_instance_type("m5.xlarge"));
    CHECK(!lookup_instance_type("g4dn.huge"));
    CHECK(!lookup_instance_type("g4dn"));
    CHECK(!lookup_instance_type(""));
    CHECK(!lookup_instance_type(".xlarge"));
  }
}

TEST_CASE("model::read_gpu_labels") {
  GpuLabels g = read_gpu_labels({{"nvidia.com/gpu.product", "Tesla-T4-SHARED"},
                                 {"nvidia.com/gpu.count", "1"},
                                 {"nvidia.com/gpu.replicas", "4"},
                                 {"nvidia.com/gpu.sharing-strategy", "time-slicing"},
                                 {"nvidia.com/gpu.memory", "15360"},
                                 {"nvidia.com/gpu.present", "true"},
                                 {"nvidia.com/mig.capable", "false"}});
  CHECK(g.product == "Tesla-T4-SHARED");
  CHECK(g.count == 1);
  CHECK(g.replicas == 4);
  CHECK(g.sharing_strategy == "time-slicing");
  CHECK(g.memory_mib == 15360);
  CHECK(g.present == true);
  CHECK(g.mig_capable == false);
  GpuLabels bad = read_gpu_labels({{"nvidia.com/gpu.count", "four"}, {"nvidia.com/gpu.replicas", "-2"},
                                   {"nvidia.com/gpu.present", "yes"}});
  CHECK(!bad.count);
  CHECK(!bad.replicas);
  CHECK(!bad.present);
  CHECK(read_gpu_labels({}) == GpuLabels{});
  CHECK(strip_shared_suffix("Tesla-T4-SHARED") == "Tesla-T4");
  CHECK(strip_shared_suffix("NVIDIA-A10G") == "NVIDIA-A10G");
}

TEST_CASE("model::describe_node_gpus") {
  SUBCASE("catalog only: physical GPUs, no sharing") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n").instance_type("g4dn.xlarge").gpus(1).build());
    CHECK(g.source == GpuInfoSource::instance_catalog);
    CHECK(g.product == "T4");
    CHECK(g.physical == 1);
    CHECK(g.replicas == 1);
    CHECK(g.memory_mib == 16384);
    CHECK(g.advertised == 1);
  }
  SUBCASE("GFD labels override the catalog") {
    NodeGpus g = describe_node_gpus(
        NodeBuilder("n").instance_type("g4dn.xlarge").gfd("Tesla-T4-SHARED", 1, 4, 15360).gpus(4).build());
    CHECK(g.source == GpuInfoSource::gfd_labels);
    CHECK(g.product == "Tesla-T4-SHARED");
    CHECK(g.physical == 1);
    CHECK(g.replicas == 4);
    CHECK(g.memory_mib == 15360);
    CHECK(g.sharing_strategy == "time-slicing");
    CHECK(g.advertised == 4);
  }
  SUBCASE("no GFD: replicas inferred from slots over catalog GPUs") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n").instance_type("g5.12xlarge").gpus(16).build());
    CHECK(g.physical == 4);
    CHECK(g.replicas == 4);
  }
  SUBCASE("renamed shared resource counts as slots") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n")
                                        .instance_type("g4dn.12xlarge")
                                        .gpus(0)
                                        .gpus(16, "nvidia.com/gpu.shared")
                                        .build());
    CHECK(g.replicas == 4);
    CHECK(g.advertised == 16);
  }
  SUBCASE("unknown instance type: capacity is all we know") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n").instance_type("custom.large").gpus(2).build());
    CHECK(g.source == GpuInfoSource::capacity);
    CHECK(g.physical == 2);
    CHECK(g.product.empty());
  }
  SUBCASE("GPU instance advertising nothing") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n").instance_type("p3.2xlarge").build());
    CHECK(g.physical == 1);
    CHECK(g.advertised == 0);
    CHECK(g.product == "V100");
  }
  SUBCASE("not a GPU node") {
    NodeGpus g = describe_node_gpus(NodeBuilder("n").instance_type("m5.large").build());
    CHECK(g.source == GpuInfoSource::none);
    CHECK(g.physical == 0);
  }
}

TEST_CASE("model::is_gpu_node") {
  CHECK(is_gpu_node(NodeBuilder("n").gpus(1).build()));
  CHECK(is_gpu_node(NodeBuilder("n").gpus(0).build())); // registered once, advertises nothing now
  CHECK(is_gpu_node(NodeBuilder("n").gpus(7, "nvidia.com/mig-1g.5gb").build()));
  CHECK(is_gpu_node(NodeBuilder("n").instance_type("g4dn.xlarge").build()));
  CHECK(is_gpu_node(NodeBuilder("n").label("nvidia.com/gpu.present", "true").build()));
  CHECK(is_gpu_node(NodeBuilder("n").label("k8s.amazonaws.com/accelerator", "nvidia-tesla-t4").build()));
  CHECK(is_gpu_node(NodeBuilder("n").label("nvidia.com/gpu.product", "Tesla-T4").build()));
  CHECK(is_gpu_node(NodeBuilder("n").label("karpenter.k8s.aws/instance-gpu-count", "1").build()));
  CHECK(!is_gpu_node(NodeBuilder("n").label("karpenter.k8s.aws/instance-gpu-count", "0").build()));
  CHECK(!is_gpu_node(NodeBuilder("n").label("nvidia.com/gpu.present", "false").build()));
  CHECK(!is_gpu_node(NodeBuilder("n").instance_type("m5.xlarge").build()));
}
