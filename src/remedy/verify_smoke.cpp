// SPDX-License-Identifier: Apache-2.0
// What `verify --smoke` runs: per GPU node the slots time-slicing should give (physical ×
// replicas) less those GPU pods already hold, and the Deployment that asks for exactly that.
#include <gpuslice/remedy/verify_smoke.hpp>

#include <algorithm>

#include <gpuslice/model/gpu.hpp>

namespace gpuslice::remedy {

namespace {

bool smoke_pod_finished(const model::Pod& pod) {
  return pod.phase == "Succeeded" || pod.phase == "Failed";
}

// renameByDefault makes the plugin advertise <name>.shared instead: ask for what is there.
std::string smoke_resource(const std::vector<const model::Node*>& nodes) {
  for (const model::Node* node : nodes)
    if (model::quantity_of(node->allocatable, model::k_shared_gpu_resource).milli() > 0)
      return std::string(model::k_shared_gpu_resource);
  return std::string(model::k_gpu_resource);
}

} // namespace

long long SmokePlan::pods() const {
  long long total = 0;
  for (const SmokeNode& node : nodes) total += node.pods();
  return total;
}

std::string SmokePlan::pod_selector() const {
  return std::string(k_smoke_run_label) + "=" + run_id;
}

SmokePlan plan_smoke(const Snapshot& snapshot, const SmokeOptions& options) {
  SmokePlan plan;
  plan.ns = options.ns;
  plan.name = std::string(k_smoke_app) + "-" + options.run_id;
  plan.run_id = options.run_id;
  std::vector<const model::Node*> gpu_nodes;
  for (const model::Node& node : snapshot.nodes)
    if (model::is_gpu_node(node)) gpu_nodes.push_back(&node);
  std::sort(gpu_nodes.begin(), gpu_nodes.end(), [](const model::Node* a, const model::Node* b) { return a->name() < b->name(); });
  plan.resource = smoke_resource(gpu_nodes);
  for (const model::Node* node : gpu_nodes) {
    const model::NodeGpus gpus = model::describe_node_gpus(*node);
    SmokeNode entry{node->name(), 0, 0};
    // Physical GPUs only from GFD's count or the instance type: from allocatable alone the
    // smoke would test whatever the plugin advertises, not the replicas asked for.
    const bool physical_known =
        gpus.source == model::GpuInfoSource::gfd_labels || gpus.source == model::GpuInfoSource::instance_catalog;
    entry.slots = physical_known ? static_cast<long long>(gpus.physical) * options.replicas
                                 : model::quantity_of(node->allocatable, plan.resource).value();
    for (const model::Pod& pod : snapshot.pods) {
      if (pod.spec.node_name != node->name() || smoke_pod_finished(pod)) continue;
      entry.in_use += model::quantity_of(model::effective_requests(pod.spec), plan.resource).value();
    }
    plan.nodes.push_back(std::move(entry));
  }
  return plan;
}

nlohmann::json smoke_deployment(const SmokePlan& plan, const SmokeOptions& options) {
  const std::string& run = plan.run_id;
  const nlohmann::json labels = {{"app.kubernetes.io/name", k_smoke_app},
                                 {"app.kubernetes.io/managed-by", "kubectl-gpuslice"},
                                 {std::string(k_smoke_run_label), run}};
  nlohmann::json names = nlohmann::json::array();
  for (const SmokeNode& node : plan.nodes)
    if (node.pods() > 0) names.push_back(node.name);
  // Without --taint, tolerate the GPU taint key with any value and effect (apply's default is
  // nvidia.com/gpu=true:NoSchedule; EKS adds the same toleration only for nvidia.com/gpu).
  nlohmann::json toleration = {{"key", options.taint ? options.taint->key : std::string(model::k_gpu_resource)},
                               {"operator", "Exists"}};
  if (options.taint && !options.taint->effect.empty()) toleration["effect"] = options.taint->effect;
  const nlohmann::json container = {
      {"name", "smoke"},
      {"image", options.image},
      {"command", {"sh", "-c", "nvidia-smi -L && exec sleep 86400"}},
      {"resources",
       {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}, {plan.resource, "1"}}},
        {"limits", {{"memory", "64Mi"}, {plan.resource, "1"}}}}},
      {"securityContext",
       {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", {"ALL"}}}}}}};
  nlohmann::json pod_spec = {
      {"containers", {container}},
      {"tolerations", {toleration}},
      {"affinity",
       {{"nodeAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms", {{{"matchFields", {{{"key", "metadata.name"}, {"operator", "In"}, {"values", names}}}}}}}}}}}}},
      {"automountServiceAccountToken", false},
      {"terminationGracePeriodSeconds", 1},
      {"securityContext",
       {{"runAsNonRoot", true}, {"runAsUser", 65534}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", plan.name}, {"namespace", plan.ns}, {"labels", labels}}},
          {"spec",
           {{"replicas", plan.pods()},
            {"selector", {{"matchLabels", {{std::string(k_smoke_run_label), run}}}}},
            // Recreate: a smoke Deployment is never updated; no surge pods to count.
            {"strategy", {{"type", "Recreate"}}},
            {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
}

} // namespace gpuslice::remedy
