// SPDX-License-Identifier: Apache-2.0
// NVIDIA resource names, GFD labels, and the combined per-node GPU picture.
#include <gpuslice/model/gpu.hpp>

#include <charconv>

namespace gpuslice::model {
namespace {

std::optional<int> label_int(const StringMap& labels, std::string_view key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  int value = 0;
  const std::string_view text = it->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<std::string> label_text(const StringMap& labels, std::string_view key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  return std::string(it->second);
}

std::optional<bool> label_bool(const StringMap& labels, std::string_view key) {
  auto it = labels.find(key);
  if (it == labels.end() || (it->second != "true" && it->second != "false")) return std::nullopt;
  return it->second == "true";
}

// Physical-GPU slots a resource list advertises, without MIG slices.
long long whole_and_shared_units(const ResourceList& resources) {
  return quantity_of(resources, k_gpu_resource).value() + quantity_of(resources, k_shared_gpu_resource).value();
}

} // namespace

GpuResourceKind gpu_resource_kind(std::string_view resource) {
  if (resource == k_gpu_resource) return GpuResourceKind::whole;
  if (resource == k_shared_gpu_resource) return GpuResourceKind::shared;
  if (resource.starts_with(k_mig_resource_prefix) && resource.size() > k_mig_resource_prefix.size())
    return GpuResourceKind::mig;
  return GpuResourceKind::none;
}

bool is_gpu_resource(std::string_view resource) { return gpu_resource_kind(resource) != GpuResourceKind::none; }

long long gpu_units(const ResourceList& resources) {
  long long total = 0;
  for (const auto& [name, quantity] : resources)
    if (is_gpu_resource(name)) total += quantity.value();
  return total;
}

GpuLabels read_gpu_labels(const StringMap& labels) {
  GpuLabels g;
  g.product = label_text(labels, k_label_gpu_product);
  g.count = label_int(labels, k_label_gpu_count);
  g.replicas = label_int(labels, k_label_gpu_replicas);
  g.sharing_strategy = label_text(labels, k_label_gpu_sharing);
  g.memory_mib = label_int(labels, k_label_gpu_memory);
  g.present = label_bool(labels, k_label_gpu_present);
  g.mig_capable = label_bool(labels, k_label_mig_capable);
  return g;
}

std::string_view strip_shared_suffix(std::string_view product) {
  constexpr std::string_view suffix = "-SHARED";
  if (product.ends_with(suffix)) product.remove_suffix(suffix.size());
  return product;
}

NodeGpus describe_node_gpus(const Node& node) {
  NodeGpus g;
  GpuLabels labels = read_gpu_labels(node.meta.labels);
  // GKE sets time-sharing per node pool and says so in labels of its own (no GFD there).
  if (!labels.replicas) {
    const std::optional<int> clients = label_int(node.meta.labels, k_label_gke_max_clients);
    if (clients && *clients > 1) {
      labels.replicas = clients;
      if (!labels.sharing_strategy) {
        if (const auto strategy = node.meta.label(k_label_gke_sharing_strategy)) {
          labels.sharing_strategy = std::string(*strategy);
        }
      }
    }
  }
  std::optional<InstanceGpus> catalog = lookup_instance_type(node.instance_type());
  g.advertised = gpu_units(node.allocatable);
  long long slots = whole_and_shared_units(node.allocatable);

  if (labels.product || labels.count) {
    g.source = GpuInfoSource::gfd_labels;
  } else if (catalog) {
    g.source = GpuInfoSource::instance_catalog;
  } else if (g.advertised > 0) {
    g.source = GpuInfoSource::capacity;
  }
  g.product = labels.product ? *labels.product : catalog ? std::string(catalog->gpu_model) : std::string{};
  g.physical = labels.count ? *labels.count : catalog ? catalog->gpu_count : 0;
  g.memory_mib = labels.memory_mib ? *labels.memory_mib : catalog ? catalog->memory_mib : 0;
  g.mig_capable = labels.mig_capable ? *labels.mig_capable : catalog && catalog->mig_capable;
  g.sharing_strategy = labels.sharing_strategy.value_or("");
  if (labels.replicas && *labels.replicas > 0) {
    g.replicas = *labels.replicas;
  } else if (g.physical > 0 && slots > g.physical && slots % g.physical == 0) {
    // No GFD: more slots than physical GPUs on a known instance type means time-slicing.
    g.replicas = static_cast<int>(slots / g.physical);
  }
  if (g.physical == 0 && slots > 0) g.physical = static_cast<int>(slots / g.replicas);
  return g;
}

bool is_gpu_node(const Node& node) {
  for (const auto& [name, quantity] : node.capacity)
    if (is_gpu_resource(name)) return true; // present even at 0: a plugin registered here once
  if (lookup_instance_type(node.instance_type())) return true;
  const StringMap& labels = node.meta.labels;
  GpuLabels gpu = read_gpu_labels(labels);
  if (gpu.present.value_or(false) || gpu.product || gpu.count.value_or(0) > 0) return true;
  if (labels.contains(k_label_aws_accelerator)) return true;
  return label_int(labels, k_label_karpenter_gpu_count).value_or(0) > 0;
}

} // namespace gpuslice::model
