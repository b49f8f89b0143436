// SPDX-License-Identifier: Apache-2.0
#include "collect/recognise.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

namespace gpuslice::collect {
namespace {

using namespace model::json_fields;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Image path fragments of each component (nvidia.md §2, §3, §5.2). The device plugin, its GFD
// and MPS daemon share the k8s-device-plugin image, so GFD is told apart by container name.
struct Signature {
  std::string_view fragment;
  GpuComponent component;
};
constexpr Signature k_images[] = {
    {"gpu-feature-discovery", GpuComponent::feature_discovery},
    {"dcgm-exporter", GpuComponent::dcgm_exporter},
    {"k8s-device-plugin", GpuComponent::device_plugin},
    {"gpu-operator", GpuComponent::gpu_operator}, // operator and its validator
    {"k8s-driver-manager", GpuComponent::gpu_operator},
    {"nvidia/driver", GpuComponent::gpu_operator},
    {"container-toolkit", GpuComponent::gpu_operator},
    {"k8s-mig-manager", GpuComponent::gpu_operator},
    {"nvidia/cloud-native/dcgm", GpuComponent::gpu_operator},
    {"projecthami/hami", GpuComponent::hami},
    {"4pdosc/k8s-vdevice", GpuComponent::hami},
};

// Container names and commands (a mirrored or private registry keeps these even when the
// image path changes).
constexpr Signature k_programs[] = {
    {"gpu-feature-discovery", GpuComponent::feature_discovery},
    {"dcgm-exporter", GpuComponent::dcgm_exporter},
    {"nvidia-device-plugin", GpuComponent::device_plugin},
    {"hami-device-plugin", GpuComponent::hami},
};

// app.kubernetes.io/name (charts) and app / name (static manifests, the operator).
constexpr Signature k_label_values[] = {
    {"gpu-feature-discovery", GpuComponent::feature_discovery},
    {"dcgm-exporter", GpuComponent::dcgm_exporter},
    {"nvidia-device-plugin", GpuComponent::device_plugin},
    {"hami", GpuComponent::hami},
};

GpuComponent match(std::string_view text, const auto& table) {
  for (const Signature& s : table)
    if (contains(text, s.fragment)) return s.component;
  return GpuComponent::none;
}

GpuComponent recognise_container(const model::Container& c) {
  if (GpuComponent by_name = match(c.name, k_programs); by_name != GpuComponent::none) return by_name;
  if (!c.command.empty())
    if (GpuComponent by_command = match(c.command.front(), k_programs); by_command != GpuComponent::none)
      return by_command;
  return match(c.image, k_images);
}

} // namespace

GpuComponent recognise_daemonset(const model::DaemonSet& daemonset) {
  const model::PodSpec& spec = daemonset.pod_template.spec;
  // Main containers first: the chart's config-manager init container is not what the pod is.
  for (const auto* containers : {&spec.containers, &spec.init_containers})
    for (const model::Container& c : *containers)
      if (GpuComponent found = recognise_container(c); found != GpuComponent::none) return found;
  for (std::string_view key : {"app.kubernetes.io/name", "app", "name"})
    if (std::optional<std::string_view> value = daemonset.meta.label(key))
      if (GpuComponent found = match(*value, k_label_values); found != GpuComponent::none) return found;
  if (daemonset.meta.label("app.kubernetes.io/part-of") == "nvidia-gpu") return GpuComponent::gpu_operator;
  if (const model::OwnerReference* owner = daemonset.meta.controller(); owner && owner->kind == "ClusterPolicy")
    return GpuComponent::gpu_operator;
  return GpuComponent::none;
}

bool is_gpu_component_name(std::string_view name) {
  for (std::string_view part :
       {"nvidia-device-plugin", "gpu-feature-discovery", "gpu-operator", "dcgm-exporter", "hami"})
    if (contains(name, part)) return true;
  return false;
}

bool requests_gpu(const model::PodSpec& spec) {
  return model::gpu_units(model::effective_requests(spec)) > 0;
}

bool is_cluster_autoscaler(const model::Workload& workload) {
  const auto& containers = workload.pod_template.spec.containers;
  return std::any_of(containers.begin(), containers.end(), [](const model::Container& c) {
    return contains(c.image, "cluster-autoscaler") ||
           (!c.command.empty() && contains(c.command.front(), "cluster-autoscaler"));
  });
}

std::vector<std::string> configmaps_used(const nlohmann::json& daemonset) {
  std::set<std::string> names;
  auto add = [&names](std::string name) {
    if (!name.empty()) names.insert(std::move(name));
  };
  const nlohmann::json& spec = object_at(object_at(object_at(daemonset, "spec"), "template"), "spec");
  for (const nlohmann::json& volume : array_at(spec, "volumes")) {
    add(string_at(object_at(volume, "configMap"), "name"));
    for (const nlohmann::json& source : array_at(object_at(volume, "projected"), "sources"))
      add(string_at(object_at(source, "configMap"), "name"));
  }
  for (std::string_view list : {"containers", "initContainers"})
    for (const nlohmann::json& container : array_at(spec, list)) {
      for (const nlohmann::json& from : array_at(container, "envFrom"))
        add(string_at(object_at(from, "configMapRef"), "name"));
      for (const nlohmann::json& env : array_at(container, "env"))
        add(string_at(object_at(object_at(env, "valueFrom"), "configMapKeyRef"), "name"));
    }
  return {names.begin(), names.end()};
}

} // namespace gpuslice::collect
