// SPDX-License-Identifier: Apache-2.0
#include "autoscaler_status.hpp"

#include <algorithm>

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

std::string health(int indent, int ready, int registered, const std::string& group_part,
                   const std::string& now) {
  const std::string pad(indent, ' ');
  return fmt::format(
      "{0}health:\n{0}  status: Healthy\n{0}  nodeCounts:\n{0}    registered:\n{0}      total: {2}\n"
      "{0}      ready: {1}\n{0}      notStarted: {3}\n{0}      unready:\n{0}        total: 0\n"
      "{0}        resourceUnready: 0\n{0}    longUnregistered: 0\n{0}    unregistered: 0\n{4}"
      "{0}  lastProbeTime: \"{5}\"\n{0}  lastTransitionTime: \"{5}\"\n",
      pad, ready, registered, registered - ready, group_part, now);
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
  int nodes = 0, ready = 0;
  for (const json& node : context.store.list(k_nodes)) {
    ++nodes;
    const json* condition = find_condition(node, "Ready");
    if (condition != nullptr && condition->value("status", "") == "True") ++ready;
  }
  const bool in_progress = !context.memory.provisioning.empty();
  std::string text = "time: " + go_time(now) + "\nautoscalerStatus: Running\nclusterWide:\n" +
                     health(2, ready, nodes, "", now) + activity(2, in_progress ? "InProgress" : "NoActivity", now) +
                     "nodeGroups:\n";
  for (const NodeGroup& group : context.settings.node_groups) {
    const int target = context.memory.group_sizes[group.name];
    int upcoming = 0;
    for (const ProvisioningNode& node : context.memory.provisioning) upcoming += node.group == group.name;
    const std::string bounds = fmt::format("    cloudProviderTarget: {}\n    minSize: {}\n    maxSize: {}\n",
                                           target, group.min_size, group.max_size);
    text += "- name: " + group.name + "\n" + health(2, target - upcoming, target - upcoming, bounds, now) +
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
