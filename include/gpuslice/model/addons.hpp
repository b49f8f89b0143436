// SPDX-License-Identifier: Apache-2.0
// The GPU add-ons a cluster runs as DaemonSets (device plugin, GFD, MPS daemon, DCGM
// exporter, GPU Operator operands, HAMi), told apart from their pod templates; and which
// config file the device plugin reads. One recogniser for collect, diagnose and remedy.
#pragma once

#include <string_view>

#include <gpuslice/model/config.hpp>
#include <gpuslice/model/node.hpp>
#include <gpuslice/model/workload.hpp>

namespace gpuslice::model {

enum class GpuAddon {
  none,
  device_plugin,     // NVIDIA k8s-device-plugin (Helm, static manifest or operator-managed)
  feature_discovery, // gpu-feature-discovery (also the device plugin chart's GFD)
  mps_daemon,        // the chart's mps-control-daemon (same image as the plugin)
  dcgm_exporter,     // DCGM exporter
  gpu_operator,      // another GPU Operator operand (driver, toolkit, validator, MIG manager, …)
  hami,              // HAMi's device plugin / scheduler extender
};

// Recognises a DaemonSet by its name, its containers' names, commands and images (main
// containers before init containers: the chart's config-manager init is not what the pod is),
// its labels, and a ClusterPolicy controller owner. The device plugin, its GFD and MPS daemon
// share one image (reference/nvidia.md §2.3), so names decide between them. none for anything
// else (CNI, kube-proxy, …).
GpuAddon recognise_gpu_addon(const DaemonSet& daemonset);

// GFD runs: a GFD DaemonSet, or a gpu-feature-discovery container in a device plugin DaemonSet
// (the chart's GFD container). Its labels outlive it, so labels alone do not say this.
bool runs_feature_discovery(const std::vector<DaemonSet>& daemonsets);

// A node label only GFD writes (reference/nvidia.md §4.1): nvidia.com/gpu.* but gpu.present and
// gpu.deploy.* (the operator's or the user's), cuda.*, mig/mps capable, vgpu.present, gfd.timestamp.
bool is_feature_discovery_label(std::string_view key);

// The controller owner is a GPU Operator ClusterPolicy: the operator re-creates and overwrites it.
bool is_operator_managed(const ObjectMeta& meta);

// The device plugin reads a config file: CONFIG_FILE set or a --config-file argument on a main
// container. A mounted (or envFrom) ConfigMap without that is ignored (NVIDIA/k8s-device-plugin#615).
bool reads_config_file(const DaemonSet& daemonset);

// The DaemonSet reads a config file and mounts configmap (same namespace) as a volume.
bool mounts_plugin_config(const DaemonSet& daemonset, const ConfigMap& configmap);

// The node runs the device plugin on the host: Bottlerocket (its NVIDIA variants, and EKS Auto
// Mode nodes, which are Bottlerocket) runs it as a systemd service, not a DaemonSet (§7.2, §7.3).
bool runs_host_device_plugin(const Node& node);

// Whose device plugin serves GPU nodes, by their labels: GKE's own (cloud.google.com/gke-accelerator),
// EKS Auto Mode's built-in one (eks.amazonaws.com/compute-type=auto), else one we may configure.
enum class GpuPlatform { configurable, gke, eks_auto_mode };
GpuPlatform gpu_platform(const Node& node);
// For the cluster's GPU nodes: GKE when any node is; EKS Auto Mode only when every one is (a
// cluster with managed node groups beside Auto Mode keeps those configurable).
GpuPlatform gpu_platform(const std::vector<const Node*>& gpu_nodes);

} // namespace gpuslice::model
