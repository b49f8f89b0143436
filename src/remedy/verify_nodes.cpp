// SPDX-License-Identifier: Apache-2.0
// Per GPU node: the plugin runs and is Ready, allocatable is physical × replicas, GFD labels
// say so, and the node carries the label and taint the setup relies on.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "remedy/verify_checks.hpp"

namespace gpuslice::remedy::verify_checks {

namespace {

// The device plugin pod (of a recognised plugin DaemonSet) on the node, Ready ones first.
const model::Pod* plugin_pod_on(const Snapshot& snapshot, const std::string& node) {
  const model::Pod* found = nullptr;
  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    if (model::recognise_gpu_addon(ds) != model::GpuAddon::device_plugin) continue;
    for (const model::Pod& pod : snapshot.pods) {
      if (pod.spec.node_name != node || !pod.meta.controlled_by("DaemonSet", ds.meta)) continue;
      if (!found || (pod.is_ready() && !found->is_ready())) found = &pod;
    }
  }
  return found;
}

// Why a pod is not Ready, from its first waiting or not-ready container.
std::string plugin_pod_trouble(const model::Pod& pod) {
  for (const auto* statuses : {&pod.init_container_statuses, &pod.container_statuses})
    for (const model::ContainerStatus& s : *statuses)
      if (!s.ready && !s.reason.empty()) return fmt::format("{} {}", s.name, s.reason);
  return pod.phase.empty() ? "not ready" : pod.phase;
}

CheckRow check_plugin_ready(const Snapshot& snapshot, const model::Node& node) {
  CheckRow row{std::string(k_check_plugin_ready), "node/" + node.name(), CheckResult::pass, "Ready", "", ""};
  if (model::runs_host_device_plugin(node)) {
    row.actual = "on the host";
    row.result = node.ready().value_or(false) ? CheckResult::pass : CheckResult::fail;
    row.detail = "Bottlerocket runs the plugin as a systemd service: journalctl -u nvidia-k8s-device-plugin";
    return row;
  }
  const model::Pod* pod = plugin_pod_on(snapshot, node.name());
  if (!pod) {
    row.result = CheckResult::fail;
    row.actual = "no plugin pod";
    row.detail = "no device plugin DaemonSet pod runs on this node (node selector, affinity or taints)";
  } else if (!pod->is_ready()) {
    row.result = CheckResult::fail;
    row.actual = plugin_pod_trouble(*pod);
    row.detail = fmt::format("kubectl -n {} logs {} --all-containers", pod->meta.ns, pod->meta.name);
  } else {
    row.actual = "Ready";
    row.detail = fmt::format("pod {}/{}", pod->meta.ns, pod->meta.name);
  }
  return row;
}

// GPU units the node advertises as `resource`: all of them for the base name (whole, shared and
// MIG), only that one for a renamed resource (then nvidia.com/gpu is not the shares).
long long advertised_as(const model::Node& node, const model::NodeGpus& gpus, const std::string& resource) {
  if (resource.empty() || resource == model::k_gpu_resource) return gpus.advertised;
  return model::quantity_of(node.allocatable, resource).value();
}

// Created after the change: a node that joined on a scale-up the change never saw.
bool joined_after(const model::Node& node, const VerifyOptions& options) {
  if (options.changed_at.empty()) return false;
  const std::optional<model::TimePoint> created = model::parse_time(node.meta.creation_timestamp);
  const std::optional<model::TimePoint> changed = model::parse_time(options.changed_at);
  return created && changed && *created > *changed;
}

CheckRow check_allocatable(const Snapshot& snapshot, const model::Node& node, const model::NodeGpus& gpus,
                           const VerifyOptions& options) {
  const int replicas = options.replicas;
  CheckRow row{std::string(k_check_allocatable), "node/" + node.name(), CheckResult::pass, "", "", ""};
  const long long advertised = advertised_as(node, gpus, options.resource);
  const bool renamed = !options.resource.empty() && options.resource != model::k_gpu_resource;
  row.actual = renamed ? fmt::format("{} {}", advertised, options.resource) : std::to_string(advertised);
  // Physical GPUs are known from GFD's count or the instance type; from capacity alone they
  // would be allocatable / replicas and the check would prove nothing.
  if (gpus.source != model::GpuInfoSource::gfd_labels && gpus.source != model::GpuInfoSource::instance_catalog) {
    row.result = CheckResult::unknown;
    row.expected = fmt::format("physical × {}", replicas);
    row.detail = "the physical GPU count is unknown (no GFD count label, unknown instance type)";
    return row;
  }
  const long long want = static_cast<long long>(gpus.physical) * replicas;
  row.expected = renamed ? fmt::format("{} {}", want, options.resource) : std::to_string(want);
  if (advertised == want) {
    row.detail = fmt::format("{} GPU(s) × {} replicas", gpus.physical, replicas);
  } else {
    row.result = CheckResult::fail;
    row.detail = advertised == gpus.physical && replicas > 1
                     ? "the plugin advertises physical GPUs only: its config is not in effect (restart its pods)"
                     : fmt::format("{} GPU(s) × {} replicas expected", gpus.physical, replicas);
    const model::Pod* plugin = plugin_pod_on(snapshot, node.name());
    if (joined_after(node, options) && (advertised == 0 || advertised == gpus.physical) && plugin != nullptr) {
      // A node that joins while the plugin's config-manager has not yet written the config
      // registers 0 or whole GPUs and keeps them (NVIDIA/k8s-device-plugin#1645).
      row.detail = fmt::format("joined after the change ({}) and registers {}: the config-manager race of "
                               "NVIDIA/k8s-device-plugin#1645; restart its plugin pod: kubectl -n {} delete pod {}",
                               node.meta.creation_timestamp, advertised, plugin->meta.ns, plugin->meta.name);
    }
  }
  return row;
}

// "replicas=4,sharing-strategy=time-slicing" from GFD's labels, "-" for one that is absent.
std::string gfd_labels_text(const model::GpuLabels& labels) {
  return fmt::format("replicas={},sharing-strategy={}",
                     labels.replicas ? std::to_string(*labels.replicas) : std::string("-"),
                     labels.sharing_strategy.value_or("-"));
}

CheckRow check_gfd_labels(const model::Node& node, int replicas, bool gfd_runs) {
  CheckRow row{std::string(k_check_gfd_labels), "node/" + node.name(), CheckResult::pass, "", "", ""};
  const model::GpuLabels labels = model::read_gpu_labels(node.meta.labels);
  const std::string strategy = replicas > 1 ? "time-slicing" : "none";
  row.expected = fmt::format("replicas={},sharing-strategy={}", replicas, strategy);
  if (!gfd_runs) {
    // Without GFD nothing keeps the labels current: not checked (diagnose warns, GS407/GS408).
    row.result = CheckResult::skipped;
    std::vector<std::string> stale;
    for (const auto& [key, value] : node.meta.labels)
      if (model::is_feature_discovery_label(key)) stale.push_back(std::string(key) + "-");
    if (stale.empty()) {
      row.actual = "no GFD labels";
      row.detail = "gpu-feature-discovery is not running (GS407): no replica labels to check";
      return row;
    }
    row.actual = gfd_labels_text(labels) + " (stale)";
    row.detail = fmt::format("stale GFD labels, gpu-feature-discovery is not running (GS408): kubectl label node {} {} "
                             "(or apply --gfd)",
                             node.name(), fmt::join(stale, " "));
    return row;
  }
  if (!labels.replicas && !labels.sharing_strategy) {
    row.result = CheckResult::fail;
    row.actual = "no GFD labels";
    row.detail = "gpu-feature-discovery has not labelled this node (not installed, or NFD missing)";
    return row;
  }
  row.actual = gfd_labels_text(labels);
  if (labels.replicas != replicas || labels.sharing_strategy != strategy) {
    row.result = CheckResult::fail;
    row.detail = fmt::format("GFD labels what the config GFD itself reads says: kubectl gpuslice apply --replicas {} "
                             "re-points GFD with the plugin (its pods restart on the change)",
                             replicas);
  }
  return row;
}

CheckRow check_present_label(const model::Node& node) {
  CheckRow row{std::string(k_check_present_label), "node/" + node.name(), CheckResult::pass, "true", "", ""};
  const std::optional<std::string_view> value = node.meta.label(model::k_label_gpu_present);
  row.actual = value ? std::string(*value) : "absent";
  if (value != "true") {
    row.result = CheckResult::fail;
    row.detail = fmt::format("kubectl label node {} {}=true --overwrite (the chart's node affinity needs it)",
                             node.name(), model::k_label_gpu_present);
  }
  return row;
}

CheckRow check_gpu_taint(const model::Node& node, const std::optional<model::Taint>& taint) {
  CheckRow row{std::string(k_check_gpu_taint), "node/" + node.name(), CheckResult::skipped, "", "", ""};
  if (!taint) {
    row.detail = "no --taint given";
    return row;
  }
  row.expected = model::to_string(*taint);
  const auto it = std::find_if(node.taints.begin(), node.taints.end(), [&](const model::Taint& t) {
    return t.key == taint->key && t.effect == taint->effect && (taint->value.empty() || t.value == taint->value);
  });
  row.result = it != node.taints.end() ? CheckResult::pass : CheckResult::fail;
  row.actual = it != node.taints.end() ? model::to_string(*it) : "absent";
  if (it == node.taints.end())
    row.detail = fmt::format("kubectl taint node {} {} --overwrite", node.name(), model::to_string(*taint));
  return row;
}

} // namespace

void check_gpu_nodes(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows) {
  std::vector<const model::Node*> nodes;
  // The nodes the change was for, and GPU nodes that joined after it (their plugin reads the same
  // config; their label and taint come from the node group's template).
  const auto wanted = [&](const model::Node& node) {
    if (options.nodes.empty()) return model::is_gpu_node(node);
    return std::find(options.nodes.begin(), options.nodes.end(), node.name()) != options.nodes.end() ||
           (model::is_gpu_node(node) && joined_after(node, options));
  };
  for (const model::Node& node : snapshot.nodes)
    if (wanted(node)) nodes.push_back(&node);
  std::sort(nodes.begin(), nodes.end(), [](const model::Node* a, const model::Node* b) { return a->name() < b->name(); });
  for (const model::Node* node : nodes) rows.push_back(check_plugin_ready(snapshot, *node));
  for (const model::Node* node : nodes) rows.push_back(check_allocatable(snapshot, *node, model::describe_node_gpus(*node), options));
  const bool gfd_runs = model::runs_feature_discovery(snapshot.daemonsets);
  for (const model::Node* node : nodes) rows.push_back(check_gfd_labels(*node, options.replicas, gfd_runs));
  for (const model::Node* node : nodes) rows.push_back(check_present_label(*node));
  for (const model::Node* node : nodes) rows.push_back(check_gpu_taint(*node, options.taint));
  // A node the change was for that is gone (scaled in, replaced): nothing to check on it.
  for (const std::string& name : options.nodes) {
    if (std::none_of(nodes.begin(), nodes.end(), [&](const model::Node* n) { return n->name() == name; }))
      rows.push_back({std::string(k_check_plugin_ready), "node/" + name, CheckResult::unknown, "Ready", "gone",
                      "the node is no longer in the cluster (scaled in or replaced)"});
  }
  if (nodes.empty() && options.nodes.empty())
    rows.push_back({std::string(k_check_plugin_ready), "cluster", CheckResult::fail, "GPU nodes", "none",
                    "the snapshot holds no GPU node"});
}

} // namespace gpuslice::remedy::verify_checks
