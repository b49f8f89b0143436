// SPDX-License-Identifier: Apache-2.0
// The cluster-autoscaler stand-in over the scenario's node groups: for each unschedulable pod,
// groups at their maximum are skipped ("max node group size reached"), the others are tried
// with the scheduler's filters against their template node (the first failing filter's
// reasons). A fitting group scales up (TriggeredScaleUp; the node joins after
// provisionTicks); otherwise NotTriggerScaleUp lists the reasons counted per node group
// (reference/scheduling.md §2.2). Pods that fit nodes still being provisioned are left alone.
#include <algorithm>
#include <limits>
#include <map>

#include <gpuslice/model.hpp>

#include "../object_meta.hpp"
#include "autoscaler_status.hpp"
#include "events.hpp"
#include "memory.hpp"
#include "node_fit.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;
namespace model = gpuslice::model;

constexpr const char* k_group_label = "sim.fakekube.io/node-group";

json template_node(const NodeGroup& group, const std::string& name) {
  json labels = json::object();
  for (const auto& [key, value] : group.labels) labels[key] = value;
  labels["kubernetes.io/hostname"] = name;
  labels[k_group_label] = group.name;
  json resources = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}};
  if (!group.instance_type.empty()) {
    labels["node.kubernetes.io/instance-type"] = group.instance_type;
    if (std::optional<model::InstanceGpus> gpus = model::lookup_instance_type(group.instance_type))
      resources["nvidia.com/gpu"] = std::to_string(gpus->gpu_count);
  }
  for (const auto& [key, value] : group.resources) resources[key] = value;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"taints", group.taints}}},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"},
                                         {"message", "kubelet is posting ready status"}}})},
            {"nodeInfo", {{"osImage", "Amazon Linux 2023"}, {"kubeletVersion", "v1.30.4"}}}}}};
}

// A pending pod the scheduler gave up on.
bool unschedulable(const json& pod) {
  if (!pod["spec"].value("nodeName", std::string()).empty() || pod_finished(pod)) return false;
  const json* scheduled = find_condition(pod, "PodScheduled");
  return scheduled != nullptr && scheduled->value("status", "") == "False" &&
         scheduled->value("reason", "") == "Unschedulable";
}

// Places the pod on one of `nodes` (new ones added from `group` up to `limit` nodes).
bool pack(std::vector<NodeUsage>& nodes, std::vector<model::Node>& storage, const model::PodSpec& spec,
          const model::ResourceList& requests, int minor, const model::Node* tmpl, std::size_t limit) {
  for (NodeUsage& usage : nodes)
    if (check_fit(spec, requests, usage, minor).fits()) {
      add_usage(usage, requests);
      return true;
    }
  if (tmpl == nullptr || nodes.size() >= limit) return false;
  storage.push_back(*tmpl);
  nodes.push_back({&storage.back(), {}, 0});
  if (!check_fit(spec, requests, nodes.back(), minor).fits()) {
    nodes.pop_back();
    storage.pop_back();
    return false;
  }
  add_usage(nodes.back(), requests);
  return true;
}

void join_provisioned(TickContext& context) {
  std::vector<ProvisioningNode>& queue = context.memory.provisioning;
  for (auto it = queue.begin(); it != queue.end();) {
    if (it->ready_tick > context.memory.tick) {
      ++it;
      continue;
    }
    for (const NodeGroup& group : context.settings.node_groups)
      if (group.name == it->group) {
        json node = template_node(group, it->name);
        // The device plugin advertises the GPUs once its pod runs there.
        if (node["status"]["capacity"].contains("nvidia.com/gpu")) {
          node["metadata"]["annotations"]["sim.fakekube.io/physical-gpus"] =
              node["status"]["capacity"]["nvidia.com/gpu"];
          node["status"]["allocatable"]["nvidia.com/gpu"] = "0";
        }
        node["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "false";
        context.store.create(k_nodes, node, "cluster-autoscaler");
      }
    it = queue.erase(it);
  }
}

} // namespace

void run_autoscaler(TickContext& context) {
  const std::vector<NodeGroup>& groups = context.settings.node_groups;
  if (groups.empty()) return;
  join_provisioned(context);
  // Templates, kept alive for the NodeUsage pointers below.
  std::vector<model::Node> templates;
  for (const NodeGroup& group : groups)
    templates.push_back(model::node_from_json(template_node(group, "template-" + group.name)));
  // Nodes being provisioned, as CA's snapshot counts them.
  std::vector<model::Node> upcoming_storage;
  std::vector<NodeUsage> upcoming;
  std::vector<std::string> upcoming_groups;
  for (const ProvisioningNode& node : context.memory.provisioning) upcoming_groups.push_back(node.group);
  // A joined GPU node whose plugin has not advertised yet still counts as upcoming (CA's
  // GPU-label rule), or every tick until then would scale up again.
  for (const json& node : context.store.list(k_nodes)) {
    const json labels = node["metadata"].value("labels", json::object());
    const json annotations = node["metadata"].value("annotations", json::object());
    const json allocatable = node.value("status", json::object()).value("allocatable", json::object());
    if (labels.contains(k_group_label) && annotations.contains("sim.fakekube.io/physical-gpus") &&
        allocatable.value("nvidia.com/gpu", std::string("0")) == "0")
      upcoming_groups.push_back(labels[k_group_label].get<std::string>());
  }
  upcoming_storage.reserve(upcoming_groups.size());
  for (const std::string& name : upcoming_groups)
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (groups[g].name == name) {
        upcoming_storage.push_back(templates[g]);
        upcoming.push_back({&upcoming_storage.back(), {}, 0});
      }
  struct Plan {
    std::vector<model::Node> storage;
    std::vector<NodeUsage> nodes;
    std::vector<json> pods;
  };
  std::map<std::size_t, Plan> plans; // group index → new nodes and the pods they take
  std::vector<std::pair<json, std::string>> rejected;
  // CA's FilterOutSchedulable: a pod that fits an existing node now (say, one whose plugin has
  // just advertised its GPUs) is left to the scheduler's next pass, not scaled up for.
  const std::vector<json> pods = context.store.list(k_pods);
  ClusterUsage existing = cluster_usage(context.store.list(k_nodes), pods);
  std::vector<NodeUsage> existing_nodes;
  for (const model::Node& node : existing.nodes) existing_nodes.push_back(existing.by_node[node.name()]);
  std::vector<model::Node> no_storage;
  for (const json& pod : pods) {
    if (!unschedulable(pod)) continue;
    const model::PodSpec spec = model::pod_spec_from_json(pod["spec"]);
    const model::ResourceList requests = model::effective_requests(spec);
    if (pack(existing_nodes, no_storage, spec, requests, context.minor, nullptr, 0)) continue;
    if (pack(upcoming, upcoming_storage, spec, requests, context.minor, nullptr, 0)) continue;
    std::map<std::string, int> reasons;
    bool placed = false;
    for (std::size_t g = 0; g < groups.size() && !placed; ++g) {
      const int size = context.memory.group_sizes[groups[g].name];
      Plan& plan = plans[g];
      if (plan.storage.capacity() < 64) plan.storage.reserve(64);
      const std::size_t room = static_cast<std::size_t>(std::max(0, groups[g].max_size - size));
      if (room == 0 && plan.nodes.empty()) {
        ++reasons["max node group size reached"];
        continue;
      }
      NodeUsage fresh{&templates[g], {}, 0};
      const FitResult fit = check_fit(spec, requests, fresh, context.minor);
      if (!fit.fits()) {
        for (const std::string& reason : fit.reasons) ++reasons[reason];
        continue;
      }
      if (pack(plan.nodes, plan.storage, spec, requests, context.minor, &templates[g], std::min<std::size_t>(room, 64))) {
        plan.pods.push_back(pod);
        placed = true;
      } else {
        ++reasons["max node group size reached"];
      }
    }
    if (placed) continue;
    std::vector<std::string> entries;
    for (const auto& [reason, count] : reasons) entries.push_back(std::to_string(count) + " " + reason);
    std::sort(entries.begin(), entries.end());
    std::string message = "pod didn't trigger scale-up: ";
    for (std::size_t i = 0; i < entries.size(); ++i) message += (i ? ", " : "") + entries[i];
    rejected.emplace_back(pod, message);
  }
  bool scaled = false;
  for (auto& [g, plan] : plans) {
    if (plan.nodes.empty()) continue;
    scaled = true;
    const NodeGroup& group = groups[g];
    int& size = context.memory.group_sizes[group.name];
    const int from = size;
    size += static_cast<int>(plan.nodes.size());
    const std::string info = "[{" + group.name + " " + std::to_string(from) + "->" + std::to_string(size) +
                             " (max: " + std::to_string(group.max_size) + ")}]";
    for (const json& pod : plan.pods)
      autoscaler_event(context, pod, "Normal", "TriggeredScaleUp", "pod triggered scale-up: " + info);
    // Without addNodes the cloud never delivers: the nodes stay upcoming, as CA counts them
    // until --max-node-provision-time, so the pod does not trigger a second scale-up.
    const std::uint64_t ready_tick =
        context.settings.autoscaler_adds_nodes
            ? context.memory.tick + static_cast<std::uint64_t>(std::max(0, context.settings.node_provision_ticks))
            : std::numeric_limits<std::uint64_t>::max();
    for (std::size_t i = 0; i < plan.nodes.size(); ++i)
      context.memory.provisioning.push_back(
          {group.name, group.name + "-node-" + std::to_string(++context.memory.serial), ready_tick});
  }
  // CA emits no NotTriggerScaleUp in a loop that attempted a scale-up.
  if (!scaled)
    for (const auto& [pod, message] : rejected) autoscaler_event(context, pod, "Normal", "NotTriggerScaleUp", message);
  write_autoscaler_status(context);
}

} // namespace fakekube::sim
