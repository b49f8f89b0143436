// SPDX-License-Identifier: Apache-2.0
// DaemonSet, Deployment and StatefulSet views.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/pod.hpp>

namespace gpuslice::model {

// DaemonSet status numbers (the four always-serialised ones and the omitempty rest).
struct DaemonSetStatus {
  long long desired_number_scheduled = 0;
  long long current_number_scheduled = 0;
  long long number_ready = 0;
  long long number_misscheduled = 0;
  long long updated_number_scheduled = 0;
  long long number_available = 0;
  long long number_unavailable = 0;
  long long observed_generation = 0;
  bool operator==(const DaemonSetStatus&) const = default;
};

struct DaemonSet {
  ObjectMeta meta;
  std::optional<LabelSelector> selector; // nullopt when absent or unparseable
  PodTemplate pod_template;
  std::string update_strategy; // RollingUpdate | OnDelete
  DaemonSetStatus status;
  bool operator==(const DaemonSet&) const = default;
};

// Deployment or StatefulSet (kind says which): replicas, template and status.
struct Workload {
  std::string kind; // "Deployment" | "StatefulSet"
  ObjectMeta meta;
  long long replicas = 1; // spec.replicas, defaulted to 1
  std::optional<LabelSelector> selector;
  PodTemplate pod_template;
  long long status_replicas = 0;
  long long ready_replicas = 0;
  long long available_replicas = 0;
  long long updated_replicas = 0;
  long long observed_generation = 0;
  std::vector<Condition> conditions;
  bool operator==(const Workload&) const = default;
};
using Deployment = Workload;
using StatefulSet = Workload;

DaemonSet daemonset_from_json(const nlohmann::json& daemonset);
nlohmann::json to_json(const DaemonSet& daemonset);
// Reads a Deployment or StatefulSet; kind comes from the object, else `default_kind`.
Workload workload_from_json(const nlohmann::json& workload, std::string_view default_kind = "Deployment");
nlohmann::json to_json(const Workload& workload);

} // namespace gpuslice::model
