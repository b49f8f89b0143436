// SPDX-License-Identifier: Apache-2.0
// Which DaemonSets, Helm releases and Deployments belong to the GPU stack, so the collector
// keeps them and drops the rest of the cluster. This answers "keep or drop" broadly; the
// diagnose room tells the kept add-ons apart (device plugin vs GFD vs MPS daemon) itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model.hpp>

namespace gpuslice::collect {

// The add-on kinds (model/addons.hpp); the collector only asks "keep or drop".
using GpuComponent = model::GpuAddon;

// model::recognise_gpu_addon: none for anything that is not part of the GPU stack.
GpuComponent recognise_daemonset(const model::DaemonSet& daemonset);

// A Helm release (or chart) name of a GPU component: nvidia-device-plugin, gpu-feature-discovery,
// gpu-operator, dcgm-exporter, hami — alone or with a prefix/suffix (e.g. "nvdp" is not, but
// the chart "nvidia-device-plugin" of release "nvdp" is).
bool is_gpu_component_name(std::string_view name);

// Some container or init container of the pod spec requests a GPU resource.
bool requests_gpu(const model::PodSpec& spec);

// A Deployment running the cluster-autoscaler (by image), whose flags diagnose reads.
bool is_cluster_autoscaler(const model::Workload& workload);

// The ConfigMaps a DaemonSet's pod template mounts or names (volumes, projected volumes,
// envFrom, env valueFrom), read from its API JSON because the model keeps only volume names.
std::vector<std::string> configmaps_used(const nlohmann::json& daemonset);

} // namespace gpuslice::collect
