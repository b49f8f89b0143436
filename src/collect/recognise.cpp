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

} // namespace

GpuComponent recognise_daemonset(const model::DaemonSet& daemonset) {
  return model::recognise_gpu_addon(daemonset);
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
