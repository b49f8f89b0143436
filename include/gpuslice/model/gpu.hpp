// SPDX-License-Identifier: Apache-2.0
// GPU facts: NVIDIA resource names, the AWS GPU instance catalog, GFD labels, and what a
// node's GPUs are once all three are combined.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/node.hpp>
#include <gpuslice/model/quantity.hpp>

namespace gpuslice::model {

inline constexpr std::string_view k_gpu_resource = "nvidia.com/gpu";
inline constexpr std::string_view k_shared_gpu_resource = "nvidia.com/gpu.shared";
inline constexpr std::string_view k_mig_resource_prefix = "nvidia.com/mig-";

// GFD / operator / cloud labels the tool reads.
inline constexpr std::string_view k_label_instance_type = "node.kubernetes.io/instance-type";
inline constexpr std::string_view k_label_instance_type_beta = "beta.kubernetes.io/instance-type";
inline constexpr std::string_view k_label_gpu_present = "nvidia.com/gpu.present";
inline constexpr std::string_view k_label_gpu_product = "nvidia.com/gpu.product";
inline constexpr std::string_view k_label_gpu_count = "nvidia.com/gpu.count";
inline constexpr std::string_view k_label_gpu_replicas = "nvidia.com/gpu.replicas";
inline constexpr std::string_view k_label_gpu_sharing = "nvidia.com/gpu.sharing-strategy";
inline constexpr std::string_view k_label_gpu_memory = "nvidia.com/gpu.memory";
inline constexpr std::string_view k_label_mig_capable = "nvidia.com/mig.capable";
inline constexpr std::string_view k_label_aws_accelerator = "k8s.amazonaws.com/accelerator";
inline constexpr std::string_view k_label_karpenter_gpu_count = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view k_label_karpenter_gpu_name = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view k_label_device_plugin_config = "nvidia.com/device-plugin.config";
// GKE's GPU node pools: the accelerator type, and the pool's time-sharing setting.
inline constexpr std::string_view k_label_gke_accelerator = "cloud.google.com/gke-accelerator";
inline constexpr std::string_view k_label_gke_nodepool = "cloud.google.com/gke-nodepool";
inline constexpr std::string_view k_label_gke_sharing_strategy = "cloud.google.com/gke-gpu-sharing-strategy";
inline constexpr std::string_view k_label_gke_max_clients = "cloud.google.com/gke-max-shared-clients-per-gpu";

// How a resource name relates to NVIDIA GPUs.
enum class GpuResourceKind { none, whole, shared, mig };

// nvidia.com/gpu → whole, nvidia.com/gpu.shared → shared, nvidia.com/mig-<profile>[.shared] → mig.
GpuResourceKind gpu_resource_kind(std::string_view resource);
// Any of the three kinds.
bool is_gpu_resource(std::string_view resource);
// Sum of all GPU resources in the list (whole + shared + MIG), in whole units.
long long gpu_units(const ResourceList& resources);

// One AWS GPU instance type from nvidia.md §7.5.
struct InstanceGpus {
  std::string_view instance_type;
  std::string_view gpu_model;  // "T4", "A10G", "L4", "L40S", "V100", "A100", "H100", …
  int gpu_count = 0;
  int memory_mib = 0;          // per GPU, EC2 nominal
  std::string_view family;     // GFD family: turing, ampere, ada-lovelace, hopper, …
  bool mig_capable = false;
};

// Looks up e.g. "g4dn.xlarge"; nullopt for unknown or non-GPU types.
std::optional<InstanceGpus> lookup_instance_type(std::string_view instance_type);

// GFD / operator labels as read from a node; each nullopt when absent or unparseable.
struct GpuLabels {
  std::optional<std::string> product;
  std::optional<int> count;     // physical GPUs
  std::optional<int> replicas;  // replicas per GPU
  std::optional<std::string> sharing_strategy; // none | time-slicing | mps
  std::optional<int> memory_mib;
  std::optional<bool> present;  // nvidia.com/gpu.present
  std::optional<bool> mig_capable;
  bool operator==(const GpuLabels&) const = default;
};

GpuLabels read_gpu_labels(const StringMap& labels);
// GFD appends "-SHARED" to the product label under time-slicing; this removes it.
std::string_view strip_shared_suffix(std::string_view product);

// Where NodeGpus' model/count came from, strongest first.
enum class GpuInfoSource { gfd_labels, instance_catalog, capacity, none };

// A node's GPUs: GFD labels override the instance catalog, which overrides what capacity implies.
struct NodeGpus {
  std::string product;     // GFD product label, else the catalog model, else ""
  int physical = 0;        // physical GPUs
  int replicas = 1;        // time-slicing replicas per GPU (1 = not shared)
  int memory_mib = 0;      // per GPU; 0 unknown
  bool mig_capable = false;
  std::string sharing_strategy; // from GFD; "" unknown
  GpuInfoSource source = GpuInfoSource::none;
  long long advertised = 0; // GPU units in allocatable (whole + shared + MIG)
};

// Combines labels, catalog and allocatable for one node.
NodeGpus describe_node_gpus(const Node& node);

// A GPU node: GPU capacity, a GPU instance type, or GPU labels (gpu.present=true, the AWS
// accelerator label, GFD product/count, Karpenter GPU count > 0). Catches GPU nodes that
// advertise nothing.
bool is_gpu_node(const Node& node);

} // namespace gpuslice::model
