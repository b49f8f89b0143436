// SPDX-License-Identifier: Apache-2.0
// Snapshots for the analyzer tests: a healthy time-sliced GPU cluster (which must produce no
// finding at all), the runbook incident of issue 4, and small helpers to break one thing at a
// time. Built with tests/unit/builders.hpp so they are real API JSON read by the model.
#pragma once

#include <algorithm>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/snapshot.hpp>

#include "unit/builders.hpp"

namespace scenarios {

using namespace gpuslice::testing;
using gpuslice::Snapshot;
using gpuslice::diagnose::Diagnosis;
using gpuslice::diagnose::Finding;

inline constexpr const char* k_plugin_image = "nvcr.io/nvidia/k8s-device-plugin:v0.17.4";
inline constexpr const char* k_scheduler_message =
    "0/9 nodes are available: 3 Insufficient nvidia.com/gpu, 6 node(s) didn't match Pod's node "
    "affinity/selector. preemption: 0/9 nodes are available: 3 No preemption victims found for incoming "
    "pod, 6 Preemption is not helpful for scheduling.";
inline constexpr const char* k_autoscaler_message =
    "pod didn't trigger scale-up: 3 node(s) didn't match Pod's node affinity/selector, 6 max node group "
    "size reached";
inline constexpr const char* k_time_slicing_config =
    "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n";

// A GPU node as the healthy cluster has it: g4dn.xlarge (one T4), labelled, tainted.
inline NodeBuilder gpu_node(const std::string& name, int replicas) {
  NodeBuilder n(name);
  n.instance_type("g4dn.xlarge").gpus(replicas).gfd(replicas > 1 ? "Tesla-T4-SHARED" : "Tesla-T4", 1, replicas, 15360)
      .label("nvidia.com/gpu.present", "true").taint("nvidia.com/gpu", "present", "NoSchedule");
  return n;
}

// The Helm-installed device plugin reading ConfigMap nvdp-config through CONFIG_FILE.
inline DaemonSetBuilder device_plugin(int nodes) {
  DaemonSetBuilder ds("nvidia", "nvdp-nvidia-device-plugin");
  ds.label("app.kubernetes.io/managed-by", "Helm")
      .container("nvidia-device-plugin-ctr", k_plugin_image)
      .env("CONFIG_FILE", "/config/config.yaml")
      .config_map_volume("available-configs", "nvdp-config", "/available-configs")
      .toleration("nvidia.com/gpu")
      .affinity("nvidia.com/gpu.present", "In", {"true"})
      .status(nodes, nodes);
  return ds;
}

inline PodBuilder plugin_pod(const std::string& node) {
  PodBuilder p("nvidia", "nvdp-nvidia-device-plugin-" + node);
  p.owner("DaemonSet", "nvdp-nvidia-device-plugin").container("nvidia-device-plugin-ctr", k_plugin_image)
      .toleration("nvidia.com/gpu").running_on(node, k_later);
  return p;
}

// A pod of Deployment ml/gpu-inference; as the API returns it on EKS (ExtendedResourceToleration
// added the nvidia.com/gpu toleration).
inline PodBuilder inference_pod(const std::string& name) {
  PodBuilder p("ml", name);
  p.label("app", "gpu-inference").owner("ReplicaSet", "gpu-inference-5d8f").container("server", "inference:1")
      .gpus(1).toleration("nvidia.com/gpu");
  return p;
}

inline DeploymentBuilder inference_deployment(int replicas) {
  DeploymentBuilder d("ml", "gpu-inference");
  d.replicas(replicas).ready(replicas).container("server", "inference:1").gpus(1).toleration("nvidia.com/gpu");
  return d;
}

// Two time-sliced T4 nodes (2 replicas each), one CPU node, plugin + config + GFD + DCGM
// exporter, and a 2-replica GPU Deployment running. No finding may fire on it.
inline Snapshot healthy() {
  Snapshot s;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    s.nodes.push_back(gpu_node(name, 2).build());
    s.pods.push_back(plugin_pod(name).build());
  }
  s.nodes.push_back(NodeBuilder("cpu-1").instance_type("m5.large").build());
  s.daemonsets.push_back(device_plugin(2).build());
  s.configmaps.push_back(ConfigMapBuilder("nvidia", "nvdp-config").data("any", k_time_slicing_config).build());
  s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                             .container("gpu-feature-discovery", k_plugin_image).toleration("nvidia.com/gpu")
                             .status(2, 2).build());
  s.daemonsets.push_back(DaemonSetBuilder("gpu-monitoring", "dcgm-exporter")
                             .container("exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5").status(2, 2).build());
  s.deployments.push_back(inference_deployment(2).build());
  s.pods.push_back(inference_pod("gpu-inference-5d8f-a").running_on("gpu-1").build());
  s.pods.push_back(inference_pod("gpu-inference-5d8f-b").running_on("gpu-2").build());
  return s;
}

// A pending pod of gpu-inference with the scheduler's verdict and, optionally, CA's.
inline void add_pending(Snapshot& s, const std::string& name, const std::string& scheduler_message,
                        const std::string& autoscaler_message = "") {
  s.pods.push_back(inference_pod(name).unschedulable(scheduler_message).build());
  if (!autoscaler_message.empty()) {
    s.events.push_back(EventBuilder("NotTriggerScaleUp", "ml").pod("ml", name).source("cluster-autoscaler")
                           .type("Normal").message(autoscaler_message).build());
  }
}

// The runbook incident (issue 4): EKS, three g4dn.xlarge GPU nodes and six CPU nodes, the
// device plugin from Helm without time-slicing, gpu-inference running on all three GPUs, three
// more GPU pods Pending; the autoscaler is at max size.
inline Snapshot incident() {
  Snapshot s;
  for (int i = 1; i <= 3; ++i) {
    const std::string name = "ip-10-0-1-" + std::to_string(i);
    s.nodes.push_back(gpu_node(name, 1).build());
    s.pods.push_back(plugin_pod(name).build());
    s.pods.push_back(inference_pod("gpu-inference-5d8f-" + std::to_string(i)).running_on(name).build());
  }
  for (int i = 1; i <= 6; ++i) s.nodes.push_back(NodeBuilder("ip-10-0-2-" + std::to_string(i)).instance_type("m5.large").build());
  DaemonSetBuilder plugin("nvidia", "nvdp-nvidia-device-plugin");
  plugin.label("app.kubernetes.io/managed-by", "Helm").container("nvidia-device-plugin-ctr", k_plugin_image)
      .toleration("nvidia.com/gpu").affinity("nvidia.com/gpu.present", "In", {"true"}).status(3, 3);
  s.daemonsets.push_back(plugin.build());
  s.daemonsets.push_back(DaemonSetBuilder("nvidia", "nvdp-nvidia-device-plugin-gpu-feature-discovery")
                             .container("gpu-feature-discovery", k_plugin_image).status(3, 3).build());
  s.deployments.push_back(inference_deployment(6).build());
  for (int i = 4; i <= 6; ++i) {
    add_pending(s, "gpu-inference-5d8f-" + std::to_string(i), k_scheduler_message, k_autoscaler_message);
  }
  s.autoscaler_status = gpuslice::AutoscalerStatus{"kube-system", "autoscalerStatus: Running\n", ""};
  return s;
}

inline std::set<std::string> codes(const Diagnosis& d) {
  std::set<std::string> out;
  for (const Finding& f : d.findings) out.insert(gpuslice::diagnose::to_string(f.code));
  return out;
}

// The finding of that code; fails the test when absent.
inline const Finding& finding(const Diagnosis& d, const std::string& code) {
  const auto it = std::find_if(d.findings.begin(), d.findings.end(),
                               [&](const Finding& f) { return gpuslice::diagnose::to_string(f.code) == code; });
  REQUIRE_MESSAGE(it != d.findings.end(), code, " did not fire");
  return *it;
}

// The same, copied out of a temporary Diagnosis.
inline Finding finding_copy(const Diagnosis& d, const std::string& code) { return finding(d, code); }

inline bool has(const Diagnosis& d, const std::string& code) { return codes(d).contains(code); }

} // namespace scenarios
