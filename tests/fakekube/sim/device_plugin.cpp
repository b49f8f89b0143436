// SPDX-License-Identifier: Apache-2.0
// The NVIDIA device plugin and GFD as the kubelet sees them: a node advertises its GPUs only
// while a Ready plugin pod runs on it, as physical × the replicas that pod loaded (renamed to
// nvidia.com/gpu.shared under renameByDefault); without one, allocatable drops to 0 and
// capacity stays (the kubelet marks the devices unhealthy). A Ready GFD pod keeps the GFD
// labels current from the config GFD itself loaded (not the plugin's: re-pointing only the
// plugin leaves replicas=1 on the node). Bottlerocket nodes run the plugin on the host and are
// left alone.
#include <string_view>
#include <utility>

#include <gpuslice/model.hpp>

#include "memory.hpp"
#include "plugin_config.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;
namespace model = gpuslice::model;

constexpr const char* k_physical_annotation = "sim.fakekube.io/physical-gpus";

long long parse_count(const std::string& text) {
  const std::optional<model::Quantity> quantity = model::Quantity::parse(text);
  return quantity ? quantity->value() : 0;
}

std::string product_name(const json& labels, const std::string& instance_type) {
  const std::string existing = labels.value("nvidia.com/gpu.product", std::string());
  if (!existing.empty()) return std::string(model::strip_shared_suffix(existing));
  std::optional<model::InstanceGpus> catalog = model::lookup_instance_type(instance_type);
  if (!catalog) return "NVIDIA-GPU";
  const std::string gpu(catalog->gpu_model);
  return gpu == "T4" || gpu == "V100" || gpu == "K80" || gpu == "M60" ? "Tesla-" + gpu : "NVIDIA-" + gpu;
}

// GFD's gpu.memory is NVML's total memory in MiB, a little below EC2's nominal figure
// (reference/nvidia.md §4.1, §7.5: T4 15360, A10G 23028, L4 23034); other models keep the
// catalog's value.
int nvml_memory_mib(const model::InstanceGpus& catalog) {
  constexpr std::pair<std::string_view, int> k_nvml[] = {{"T4", 15360}, {"A10G", 23028}, {"L4", 23034}};
  for (const auto& [gpu, mib] : k_nvml)
    if (catalog.gpu_model == gpu) return mib;
  return catalog.memory_mib;
}

void write_gfd_labels(TickContext& context, json node, long long physical, const PluginRuntime& runtime) {
  json& labels = node["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  const std::string type = labels.value("node.kubernetes.io/instance-type", std::string());
  const bool shared = runtime.replicas > 1;
  const bool renamed = runtime.resource != "nvidia.com/gpu";
  labels["nvidia.com/gpu.product"] = product_name(labels, type) + (shared && !renamed ? "-SHARED" : "");
  labels["nvidia.com/gpu.count"] = std::to_string(physical);
  labels["nvidia.com/gpu.replicas"] = std::to_string(runtime.replicas);
  labels["nvidia.com/gpu.sharing-strategy"] = !shared ? "none" : runtime.mps ? "mps" : "time-slicing";
  if (std::optional<model::InstanceGpus> catalog = model::lookup_instance_type(type)) {
    if (!labels.contains("nvidia.com/gpu.memory"))
      labels["nvidia.com/gpu.memory"] = std::to_string(nvml_memory_mib(*catalog));
    labels["nvidia.com/gpu.family"] = std::string(catalog->family);
    labels["nvidia.com/gpu.machine"] = type;
  }
  context.store.update(k_nodes, node, "gpu-feature-discovery");
}

} // namespace

// Physical GPUs, strongest source first: our annotation, GFD's gpu.count, the instance-type
// catalog, the GPU capacity the node had when the simulation first saw it.
long long physical_gpus(TickContext& context, const json& node) {
  const json meta = node["metadata"];
  const std::string name = meta.value("name", std::string());
  const json capacity = node.value("status", json::object()).value("capacity", json::object());
  if (!context.memory.initial_gpus.count(name))
    context.memory.initial_gpus[name] = parse_count(capacity.value("nvidia.com/gpu", std::string("0")));
  const std::string annotated = meta.value("annotations", json::object()).value(k_physical_annotation, "");
  if (!annotated.empty()) return parse_count(annotated);
  const json labels = meta.value("labels", json::object());
  const std::string gfd_count = labels.value("nvidia.com/gpu.count", std::string());
  if (!gfd_count.empty()) return parse_count(gfd_count);
  std::string type = labels.value("node.kubernetes.io/instance-type", std::string());
  if (type.empty()) type = labels.value("beta.kubernetes.io/instance-type", std::string());
  if (std::optional<model::InstanceGpus> catalog = model::lookup_instance_type(type))
    return catalog->gpu_count;
  return context.memory.initial_gpus[name];
}

void run_device_plugin(TickContext& context) {
  std::map<std::string, std::vector<json>> pods_by_node;
  for (json& pod : context.store.list(k_pods)) {
    const std::string node_name = pod["spec"].value("nodeName", std::string());
    if (!node_name.empty() && pod_ready(pod) && gpu_pod_role(pod) != GpuPodRole::none)
      pods_by_node[node_name].push_back(std::move(pod));
  }
  for (json& node : context.store.list(k_nodes)) {
    const std::string name = node["metadata"].value("name", std::string());
    const std::string os = node.value("status", json::object()).value("nodeInfo", json::object()).value("osImage", "");
    if (os.find("Bottlerocket") != std::string::npos) continue;
    const long long physical = physical_gpus(context, node);
    if (physical <= 0) continue;
    const PluginRuntime* plugin = nullptr;
    const PluginRuntime* gfd = nullptr; // the config a Ready GFD on the node loaded
    for (const json& pod : pods_by_node[name]) {
      const std::string uid = pod["metadata"].value("uid", std::string());
      auto labeller = context.memory.gfds.find(uid);
      if (labeller != context.memory.gfds.end()) gfd = &labeller->second;
      if (gpu_pod_role(pod) != GpuPodRole::device_plugin) continue;
      auto loaded = context.memory.plugins.find(uid);
      if (loaded != context.memory.plugins.end()) plugin = &loaded->second;
    }
    json status = node["status"];
    for (const char* list : {"capacity", "allocatable"}) {
      json& resources = status[list];
      if (!resources.is_object()) resources = json::object();
      if (plugin == nullptr) {
        // Unregistered plugin: the kubelet keeps capacity and allocates nothing.
        for (const char* resource : {"nvidia.com/gpu", "nvidia.com/gpu.shared"})
          if (std::string(list) == "allocatable" && resources.contains(resource)) resources[resource] = "0";
        continue;
      }
      const long long slots = physical * plugin->replicas;
      if (plugin->resource == "nvidia.com/gpu") {
        resources["nvidia.com/gpu"] = std::to_string(slots);
        resources.erase("nvidia.com/gpu.shared");
      } else {
        resources["nvidia.com/gpu"] = "0";
        resources["nvidia.com/gpu.shared"] = std::to_string(slots);
      }
    }
    if (status != node["status"]) {
      node["status"] = status;
      context.store.update(k_nodes, node, "kubelet", true);
    }
    if (gfd != nullptr) {
      std::optional<json> fresh = context.store.get(k_nodes, "", name);
      if (fresh) write_gfd_labels(context, *fresh, physical, *gfd);
    }
  }
}

} // namespace fakekube::sim
