// SPDX-License-Identifier: Apache-2.0
#include "autoscaler_status.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "../object_meta.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

// "2026-12-02T14:05:41Z" → "2026-12-02 14:05:41 +0000 UTC" (Go's time.String layout).
std::string go_time(const std::string& rfc3339) {
  return rfc3339.substr(0, 10) + " " + rfc3339.substr(11, 8) + " +0000 UTC";
}

// Node counts of a health block. Registered nodes are ready, unready (resourceUnready among
// them) or not started.
struct Counts {
  int registered = 0;
  int ready = 0;
  int unready = 0;
  int resource_unready = 0;
};

std::string health(int indent, const Counts& counts, const std::string& group_part, const std::string& now) {
  const std::string pad(indent, ' ');
  return fmt::format(
      "{0}health:\n{0}  status: Healthy\n{0}  nodeCounts:\n{0}    registered:\n{0}      total: {2}\n"
      "{0}      ready: {1}\n{0}      notStarted: {3}\n{0}      unready:\n{0}        total: {4}\n"
      "{0}        resourceUnready: {5}\n{0}    longUnregistered: 0\n{0}    unregistered: 0\n{6}"
      "{0}  lastProbeTime: \"{7}\"\n{0}  lastTransitionTime: \"{7}\"\n",
      pad, counts.ready, counts.registered, counts.registered - counts.ready - counts.unready, counts.unready,
      counts.resource_unready, group_part, now);
}

// CA's GPU rule (FilterOutNodesWithUnreadyResources): a Ready node with the cloud provider's
// GPU label (AWS: k8s.amazonaws.com/accelerator) but no nvidia.com/gpu allocatable is
// unready, reason ResourceUnready — as when the device plugin does not advertise it.
bool resource_unready(const json& node) {
  const json labels = node["metadata"].value("labels", json::object());
  const json allocatable = node.value("status", json::object()).value("allocatable", json::object());
  return labels.contains("k8s.amazonaws.com/accelerator") &&
         allocatable.value("nvidia.com/gpu", std::string("0")) == "0";
}

bool has_labels(const json& node, const std::map<std::string, std::string>& wanted) {
  const json labels = node["metadata"].value("labels", json::object());
  for (const auto& [key, value] : wanted)
    if (labels.value(key, std::string()) != value) return false;
  return !wanted.empty();
}

std::string activity(int indent, const std::string& scale_up, const std::string& now) {
  const std::string pad(indent, ' ');
  return fmt::format(
      "{0}scaleUp:\n{0}  status: {1}\n{0}  lastProbeTime: \"{2}\"\n{0}  lastTransitionTime: \"{2}\"\n"
      "{0}scaleDown:\n{0}  status: NoCandidates\n{0}  candidates: 0\n{0}  lastProbeTime: \"{2}\"\n"
      "{0}  lastTransitionTime: \"{2}\"\n",
      pad, scale_up, now);
}

} // namespace

void write_autoscaler_status(TickContext& context) {
  const std::uint64_t every = static_cast<std::uint64_t>(std::max(1, context.settings.autoscaler_status_every_ticks));
  if (context.memory.status_tick != 0 && context.memory.tick - context.memory.status_tick < every) return;
  context.memory.status_tick = context.memory.tick;
  const std::string now = timestamp_now();
  const std::vector<json> nodes = context.store.list(k_nodes);
  Counts cluster;
  for (const json& node : nodes) {
    ++cluster.registered;
    const json* condition = find_condition(node, "Ready");
    const bool ready = condition != nullptr && condition->value("status", "") == "True";
    if (ready && !resource_unready(node)) {
      ++cluster.ready;
      continue;
    }
    ++cluster.unready;
    if (ready) ++cluster.resource_unready;
  }
  const bool in_progress = !context.memory.provisioning.empty();
  std::string text = "time: " + go_time(now) + "\nautoscalerStatus: Running\nclusterWide:\n" +
                     health(2, cluster, "", now) + activity(2, in_progress ? "InProgress" : "NoActivity", now) +
                     "nodeGroups:\n";
  for (const NodeGroup& group : context.settings.node_groups) {
    const int target = context.memory.group_sizes[group.name];
    int upcoming = 0;
    for (const ProvisioningNode& node : context.memory.provisioning) upcoming += node.group == group.name;
    Counts counts;
    counts.registered = counts.ready = target - upcoming;
    for (const json& node : nodes) {
      if (!has_labels(node, group.labels) || !resource_unready(node) || counts.ready == 0) continue;
      --counts.ready;
      ++counts.unready;
      ++counts.resource_unready;
    }
    const std::string bounds = fmt::format("    cloudProviderTarget: {}\n    minSize: {}\n    maxSize: {}\n",
                                           target, group.min_size, group.max_size);
    text += "- name: " + group.name + "\n" + health(2, counts, bounds, now) +
            activity(2, upcoming > 0 ? "InProgress" : "NoActivity", now);
  }
  const std::string ns = context.settings.autoscaler_namespace;
  std::optional<json> existing = context.store.get(k_configmaps, ns, "cluster-autoscaler-status");
  json cm = existing ? *existing
                     : json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                            {"metadata", {{"name", "cluster-autoscaler-status"}, {"namespace", ns}}}};
  cm["data"]["status"] = text;
  cm["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/last-updated"] = go_time(now);
  if (existing) context.store.update(k_configmaps, cm, "cluster-autoscaler");
  else context.store.create(k_configmaps, cm, "cluster-autoscaler");
}

} // namespace fakekube::sim
