// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/remedy/platform.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include <gpuslice/model/addons.hpp>
#include <gpuslice/model/gpu.hpp>
#include <gpuslice/model/pod.hpp>

#include "collect/recognise.hpp"

namespace gpuslice::remedy {

namespace {

constexpr std::string_view k_aks_agentpool = "kubernetes.azure.com/agentpool";
constexpr std::string_view k_addon_manager = "addonmanager.kubernetes.io/mode";

std::string label_or(const model::Node& node, std::string_view key, std::string fallback) {
  const std::optional<std::string_view> value = node.meta.label(key);
  return value && !value->empty() ? std::string(*value) : fallback;
}

// GKE names nodes gke-<cluster>-<pool>-<hash>-<suffix>; the cluster name is what lies between
// "gke-" and "-<pool>-" when neither was truncated, else a placeholder.
std::string gke_cluster_name(const model::Node& node, const std::string& pool) {
  const std::string& name = node.name();
  const std::string marker = "-" + pool + "-";
  const std::size_t at = name.find(marker, 4);
  if (name.rfind("gke-", 0) != 0 || at == std::string::npos || at <= 4) return "CLUSTER_NAME";
  return name.substr(4, at - 4);
}


// Physical GPUs per node from its capacity (allocatable drops unhealthy GPUs): GKE advertises
// physical × max-shared-clients once time-sharing is on.
long long gke_physical_gpus(const model::Node& node) {
  long long advertised = model::gpu_units(node.capacity);
  const std::string clients = label_or(node, model::k_label_gke_max_clients, "");
  long long per_gpu = 1;
  try {
    if (!clients.empty()) per_gpu = std::max(1LL, std::stoll(clients));
  } catch (const std::exception&) {
    per_gpu = 1;
  }
  return std::max(1LL, advertised / per_gpu);
}

ManagedPlatform gke_platform(const Snapshot& snapshot, const std::vector<const model::Node*>& gke_nodes,
                             int replicas) {
  ManagedPlatform out;
  out.name = "GKE";
  const std::string clients = replicas > 1 ? std::to_string(replicas) : "REPLICAS";
  out.why = "GKE installs and reconciles its own NVIDIA device plugin: a time-slicing ConfigMap or a second "
            "plugin would be ignored or fight it. GKE shares GPUs per node pool, set when the pool is created";
  // One command per GPU node pool, in name order.
  std::map<std::string, std::vector<const model::Node*>> pools;
  for (const model::Node* node : gke_nodes) pools[label_or(*node, model::k_label_gke_nodepool, "NODE_POOL")].push_back(node);
  for (const auto& [pool, nodes] : pools) {
    const model::Node& first = *nodes.front();
    out.commands.push_back(fmt::format(
        "gcloud container node-pools create {}-shared --cluster={} --location=CLUSTER_LOCATION "
        "--machine-type={} --num-nodes={} "
        "--accelerator=type={},count={},gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu={}",
        pool, gke_cluster_name(first, pool), label_or(first, "node.kubernetes.io/instance-type", "MACHINE_TYPE"),
        nodes.size(), label_or(first, model::k_label_gke_accelerator, "ACCELERATOR"), gke_physical_gpus(first),
        clients));
  }
  // Pods land on the shared pool only when they select it (GKE's documented node selector).
  const std::string selector = fmt::format(R"({{"spec":{{"template":{{"spec":{{"nodeSelector":{{"{}":"time-sharing","{}":"{}"}}}}}}}}}})",
                                           model::k_label_gke_sharing_strategy, model::k_label_gke_max_clients, clients);
  std::vector<const model::Workload*> workloads;
  for (const auto* list : {&snapshot.deployments, &snapshot.statefulsets})
    for (const model::Workload& workload : *list)
      if (collect::requests_gpu(workload.pod_template.spec)) workloads.push_back(&workload);
  std::sort(workloads.begin(), workloads.end(), [](const model::Workload* a, const model::Workload* b) {
    return std::tie(a->meta.ns, a->kind, a->meta.name) < std::tie(b->meta.ns, b->kind, b->meta.name);
  });
  for (const model::Workload* workload : workloads) {
    std::string kind = workload->kind;
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.commands.push_back(fmt::format("kubectl patch {} {} -n {} --type merge -p '{}'", kind, workload->meta.name,
                                       workload->meta.ns, selector));
  }
  out.notes.push_back("CLUSTER_LOCATION is the cluster's region or zone (gcloud container clusters list); "
                      "time-sharing cannot be turned on for an existing node pool, so a new pool is created "
                      "beside the old one: drain and delete the old pool once the pods run on the new one");
  out.notes.push_back(fmt::format("each pod must request at most 1 nvidia.com/gpu on time-shared GKE nodes, or "
                                  "the kubelet rejects it (UnexpectedAdmissionError)"));
  return out;
}

ManagedPlatform auto_mode_platform() {
  ManagedPlatform out;
  out.name = "EKS Auto Mode";
  out.why = "EKS Auto Mode runs the NVIDIA device plugin inside the node image and its NodeClasses take no "
            "user data, so time-slicing cannot be configured on Auto Mode nodes";
  out.notes.push_back("run the GPU workloads that must share GPUs on a managed node group (Bottlerocket "
                      "settings or the device plugin chart), where `kubectl gpuslice apply` can configure it");
  return out;
}

ManagedPlatform addon_managed_platform(const model::DaemonSet& ds, bool aks) {
  ManagedPlatform out;
  out.name = aks ? "AKS" : "addon manager";
  out.why = fmt::format("the device plugin DaemonSet {}/{} belongs to the platform's addon manager ({}={}): it "
                        "reverts any change to it and re-creates it when deleted",
                        ds.meta.ns, ds.meta.name, k_addon_manager, ds.meta.label(k_addon_manager).value_or(""));
  if (aks) {
    out.commands.push_back("az aks nodepool add --resource-group RESOURCE_GROUP --cluster-name CLUSTER_NAME "
                           "--name gpushared --node-vm-size VM_SIZE --node-count 1 --gpu-driver none");
    out.notes.push_back("a node pool created with --gpu-driver none gets no AKS-managed driver or plugin: install "
                        "the NVIDIA GPU Operator on it, then run `kubectl gpuslice apply` against its ClusterPolicy");
  }
  return out;
}

} // namespace

std::optional<ManagedPlatform> managed_gpu_platform(const Snapshot& snapshot, int replicas) {
  std::vector<const model::Node*> gpu_nodes;
  for (const model::Node& node : snapshot.nodes)
    if (model::is_gpu_node(node)) gpu_nodes.push_back(&node);
  std::sort(gpu_nodes.begin(), gpu_nodes.end(),
            [](const model::Node* a, const model::Node* b) { return a->name() < b->name(); });
  switch (model::gpu_platform(gpu_nodes)) {
  case model::GpuPlatform::gke: {
    std::vector<const model::Node*> gke;
    for (const model::Node* node : gpu_nodes)
      if (model::gpu_platform(*node) == model::GpuPlatform::gke) gke.push_back(node);
    return gke_platform(snapshot, gke, replicas);
  }
  case model::GpuPlatform::eks_auto_mode:
    return auto_mode_platform();
  case model::GpuPlatform::configurable:
    break;
  }
  const bool aks = std::any_of(gpu_nodes.begin(), gpu_nodes.end(),
                               [](const model::Node* node) { return node->meta.label(k_aks_agentpool).has_value(); });
  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    if (model::recognise_gpu_addon(ds) == model::GpuAddon::device_plugin && ds.meta.label(k_addon_manager))
      return addon_managed_platform(ds, aks);
  }
  return std::nullopt;
}

} // namespace gpuslice::remedy
