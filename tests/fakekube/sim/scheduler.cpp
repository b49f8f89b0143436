// SPDX-License-Identifier: Apache-2.0
// The default-scheduler stand-in: binds each Pending pod to the least-allocated node that
// passes every filter, or records why none does (PodScheduled=False and FailedScheduling).
// Queue order is the PrioritySort plugin's: priority, then creation time.
#include <algorithm>

#include "../object_meta.hpp"
#include "events.hpp"
#include "memory.hpp"
#include "node_fit.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;
namespace model = gpuslice::model;

bool waits_for_default_scheduler(const json& pod) {
  if (!pod.contains("spec") || !pod["spec"].is_object()) return false; // the API would refuse it
  const json spec = pod["spec"];
  const std::string scheduler = spec.value("schedulerName", std::string("default-scheduler"));
  return spec.value("nodeName", std::string()).empty() && !pod_finished(pod) &&
         !pod["metadata"].contains("deletionTimestamp") &&
         (scheduler.empty() || scheduler == "default-scheduler");
}

// NodeResourcesLeastAllocated over cpu and memory: the share left free after placing the pod.
double least_allocated_score(const NodeUsage& usage, const model::ResourceList& requests) {
  double score = 0;
  for (const char* resource : {"cpu", "memory"}) {
    const double allocatable =
        static_cast<double>(model::quantity_of(usage.node->allocatable, resource).milli());
    if (allocatable <= 0) continue;
    const double used = static_cast<double>(model::quantity_of(usage.requested, resource).milli() +
                                            model::quantity_of(requests, resource).milli());
    score += (allocatable - used) / allocatable;
  }
  return score;
}

void bind(TickContext& context, json pod, const std::string& node_name, const std::string& now) {
  pod["spec"]["nodeName"] = node_name;
  if (!context.store.update(k_pods, pod, "default-scheduler")) return;
  set_condition(pod, {{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr}}, now);
  context.store.update(k_pods, pod, "default-scheduler", true);
}

void mark_unschedulable(TickContext& context, json pod, const std::string& message,
                        const std::string& now) {
  const json* previous = find_condition(pod, "PodScheduled");
  const bool changed = previous == nullptr || previous->value("message", std::string()) != message ||
                       previous->value("status", std::string()) != "False";
  if (changed) {
    set_condition(pod,
                  {{"type", "PodScheduled"}, {"status", "False"}, {"lastProbeTime", nullptr},
                   {"reason", "Unschedulable"}, {"message", message}},
                  now);
    pod["status"]["phase"] = "Pending";
    context.store.update(k_pods, pod, "default-scheduler", true);
  }
  scheduler_failed_event(context, pod, message);
}

} // namespace

void run_scheduler(TickContext& context) {
  const std::vector<json> pods = context.store.list(k_pods);
  ClusterUsage usage = cluster_usage(context.store.list(k_nodes), pods);
  std::vector<const json*> queue;
  for (const json& pod : pods)
    if (waits_for_default_scheduler(pod)) queue.push_back(&pod);
  std::stable_sort(queue.begin(), queue.end(), [](const json* a, const json* b) {
    const int pa = (*a)["spec"].value("priority", 0);
    const int pb = (*b)["spec"].value("priority", 0);
    if (pa != pb) return pa > pb;
    return (*a)["metadata"].value("creationTimestamp", std::string()) <
           (*b)["metadata"].value("creationTimestamp", std::string());
  });
  const std::string now = timestamp_now();
  for (const json* pod : queue) {
    const model::PodSpec spec = model::pod_spec_from_json((*pod)["spec"]);
    const model::ResourceList requests = model::effective_requests(spec);
    std::vector<FitResult> results;
    NodeUsage* best = nullptr;
    double best_score = -1e18;
    for (const model::Node& node : usage.nodes) {
      NodeUsage& node_usage = usage.by_node[node.name()];
      results.push_back(check_fit(spec, requests, node_usage, context.minor));
      if (!results.back().fits()) continue;
      const double score = least_allocated_score(node_usage, requests);
      if (score > best_score) {
        best_score = score;
        best = &node_usage;
      }
    }
    if (best != nullptr) {
      add_usage(*best, requests);
      bind(context, *pod, best->node->name(), now);
      continue;
    }
    const bool never = (*pod)["spec"].value("preemptionPolicy", std::string()) == "Never";
    mark_unschedulable(context, *pod, fit_error_message(results, never, context.minor), now);
  }
}

} // namespace fakekube::sim
