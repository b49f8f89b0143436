// SPDX-License-Identifier: Apache-2.0
// The kubelets: start pods bound to their node (Running and Ready), or fail them as the
// scenario or the device plugin's config says — crash loops restart every other tick (and
// re-read their config, so a fixed ConfigMap heals them), image pulls back off. Pods of a
// deleted node are removed, as the pod GC does. Ready pods are left alone.
#include <algorithm>

#include "../object_meta.hpp"
#include "memory.hpp"
#include "plugin_config.hpp"
#include "pods.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

std::string node_ip(const json& node) {
  for (const json& address : node.value("status", json::object()).value("addresses", json::array()))
    if (address.value("type", std::string()) == "InternalIP") return address.value("address", "");
  return "10.0.0.1";
}

std::string failure_mode(const TickContext& context, const json& pod) {
  for (const json& owner : pod["metadata"].value("ownerReferences", json::array())) {
    if (owner.value("kind", std::string()) != "DaemonSet") continue;
    for (const DaemonSetFailure& failure : context.settings.daemonset_failures)
      if (failure.name == owner.value("name", std::string()) &&
          failure.ns == pod["metadata"].value("namespace", std::string()))
        return failure.mode;
  }
  return "";
}

json waiting_statuses(const json& containers, const std::string& reason, const std::string& message,
                      int restarts) {
  json statuses = json::array();
  for (const json& container : containers) {
    json status = {{"name", container.value("name", "")},
                   {"image", container.value("image", "")},
                   {"imageID", ""},
                   {"ready", false},
                   {"started", false},
                   {"restartCount", restarts},
                   {"state", {{"waiting", {{"reason", reason}, {"message", message}}}}}};
    if (reason == "CrashLoopBackOff")
      status["lastState"] = {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}};
    statuses.push_back(status);
  }
  return statuses;
}

void set_ready(json& pod, bool ready, const std::string& now) {
  const std::string status = ready ? "True" : "False";
  for (const char* type : {"Initialized", "Ready", "ContainersReady", "PodReadyToStartContainers"}) {
    json condition = {{"type", type}, {"status", std::string(type) == "Initialized" ||
                                                         std::string(type) == "PodReadyToStartContainers"
                                                     ? "True"
                                                     : status},
                      {"lastProbeTime", nullptr}};
    if (!ready && (std::string(type) == "Ready" || std::string(type) == "ContainersReady"))
      condition["reason"] = "ContainersNotReady";
    set_condition(pod, condition, now);
  }
}

void start_pod(TickContext& context, json pod, const json& node, const std::string& now) {
  const std::string uid = pod["metadata"].value("uid", std::string());
  std::string mode = failure_mode(context, pod);
  std::string message;
  if (mode.empty() && gpu_pod_role(pod) == GpuPodRole::device_plugin) {
    PluginRuntime runtime = resolve_plugin_config(context.store, pod, node);
    if (runtime.ok && physical_gpus(context, node) == 0 && plugin_fails_on_init_error(pod)) {
      // A node without GPUs: NVML does not start and failOnInitError exits the plugin, so a
      // DaemonSet without a GPU node selector crash-loops on CPU nodes (reference/nvidia.md
      // §1.5, §3; eksctl-io/eksctl#8858).
      runtime.ok = false;
      runtime.failure = "CrashLoopBackOff";
      runtime.failure_message = "nvml init failed: ERROR_LIBRARY_NOT_FOUND";
    }
    if (runtime.ok) {
      context.memory.plugins[uid] = runtime;
    } else {
      mode = runtime.failure;
      message = runtime.failure_message;
    }
  }
  if (mode.empty() && runs_gfd(pod)) {
    // GFD loads its own config file (a missing one stops it as it stops the plugin).
    const PluginRuntime gfd = resolve_gfd_config(context.store, pod, node);
    if (gfd.ok) {
      context.memory.gfds[uid] = gfd;
    } else {
      mode = gfd.failure;
      message = gfd.failure_message;
    }
  }
  json& status = pod["status"];
  if (!status.contains("startTime")) status["startTime"] = now;
  status["hostIP"] = node_ip(node);
  status["hostIPs"] = json::array({{{"ip", node_ip(node)}}});
  const json containers = pod["spec"].value("containers", json::array());
  int restarts = 0;
  if (!status.value("containerStatuses", json::array()).empty())
    restarts = status["containerStatuses"][0].value("restartCount", 0);
  if (mode.empty()) {
    status["phase"] = "Running";
    if (!status.contains("podIP")) {
      const std::uint64_t n = ++context.memory.serial;
      const std::string ip = "10.244." + std::to_string((n / 250) % 250) + "." + std::to_string(n % 250 + 2);
      status["podIP"] = ip;
      status["podIPs"] = json::array({{{"ip", ip}}});
    }
    json statuses = json::array();
    for (const json& container : containers)
      statuses.push_back({{"name", container.value("name", "")},
                          {"image", container.value("image", "")},
                          {"imageID", ""},
                          {"ready", true},
                          {"started", true},
                          {"restartCount", restarts},
                          {"state", {{"running", {{"startedAt", now}}}}}});
    status["containerStatuses"] = statuses;
    status.erase("initContainerStatuses");
    set_ready(pod, true, now);
  } else if (mode == "imagePullBackOff") {
    status["phase"] = "Pending";
    status["containerStatuses"] =
        waiting_statuses(containers, "ImagePullBackOff",
                         "Back-off pulling image \"" +
                             (containers.empty() ? std::string() : containers[0].value("image", "")) + "\"",
                         0);
    set_ready(pod, false, now);
  } else if (mode == "ContainerCreating") {
    status["phase"] = "Pending";
    status["containerStatuses"] = waiting_statuses(containers, "ContainerCreating", "", 0);
    set_ready(pod, false, now);
  } else {
    // A crash loop: the container restarts every other tick.
    std::uint64_t& last = context.memory.crash_ticks[uid];
    if (last == 0 || context.memory.tick - last >= 2) {
      last = context.memory.tick;
      ++restarts;
    }
    const std::string back_off = "back-off 10s restarting failed container";
    if (mode == "Init:CrashLoopBackOff") {
      status["phase"] = "Pending";
      status["initContainerStatuses"] = waiting_statuses(
          pod["spec"].value("initContainers", json::array()), "CrashLoopBackOff", message, restarts);
      status["containerStatuses"] = waiting_statuses(containers, "PodInitializing", "", 0);
    } else {
      status["phase"] = "Running";
      status["containerStatuses"] = waiting_statuses(
          containers, "CrashLoopBackOff", message.empty() ? back_off : message, restarts);
    }
    set_ready(pod, false, now);
  }
  context.store.update(k_pods, pod, "kubelet", true);
}

} // namespace

void run_kubelet(TickContext& context) {
  std::map<std::string, json> nodes;
  for (json& node : context.store.list(k_nodes)) nodes[node["metadata"].value("name", "")] = node;
  const std::string now = timestamp_now();
  for (json& pod : context.store.list(k_pods)) {
    const std::string node_name = pod["spec"].value("nodeName", std::string());
    if (node_name.empty() || pod_finished(pod) || pod["metadata"].contains("deletionTimestamp"))
      continue;
    auto node = nodes.find(node_name);
    if (node == nodes.end()) {
      context.store.remove(k_pods, pod["metadata"].value("namespace", ""), pod["metadata"].value("name", ""));
      continue;
    }
    const std::string uid = pod["metadata"].value("uid", std::string());
    if (pod_ready(pod) && failure_mode(context, pod).empty()) {
      // Running before the simulation saw it (a loaded scenario): it loaded the config it
      // would load now, or kept working with whole GPUs.
      if (gpu_pod_role(pod) == GpuPodRole::device_plugin && !context.memory.plugins.count(uid)) {
        PluginRuntime runtime = resolve_plugin_config(context.store, pod, node->second);
        context.memory.plugins[uid] = runtime.ok ? runtime : PluginRuntime{};
      }
      if (runs_gfd(pod) && !context.memory.gfds.count(uid)) {
        PluginRuntime gfd = resolve_gfd_config(context.store, pod, node->second);
        context.memory.gfds[uid] = gfd.ok ? gfd : PluginRuntime{};
      }
      continue;
    }
    start_pod(context, pod, node->second, now);
  }
}

} // namespace fakekube::sim
