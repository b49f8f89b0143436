// SPDX-License-Identifier: Apache-2.0
// Pod and pod-template views: scheduling constraints, resources, status.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/quantity.hpp>
#include <gpuslice/model/taints.hpp>

namespace gpuslice::model {

// An env entry; value_from says where a non-literal value comes from ("configMapKeyRef",
// "secretKeyRef", "fieldRef", …) without keeping what it points at.
struct EnvVar {
  std::string name;
  std::string value;
  std::string value_from;
  bool operator==(const EnvVar&) const = default;
};

struct VolumeMount {
  std::string name;
  std::string mount_path;
  std::string sub_path;
  bool read_only = false;
  bool operator==(const VolumeMount&) const = default;
};

// A pod volume; only the sources the tool follows are named.
struct Volume {
  std::string name;
  std::string config_map;        // configMap.name
  std::string host_path;         // hostPath.path
  std::vector<std::string> items; // configMap.items[].key
  bool operator==(const Volume&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::vector<VolumeMount> volume_mounts;
  ResourceList requests; // as written (not defaulted from limits)
  ResourceList limits;
  std::string restart_policy; // "Always" marks a sidecar init container
  bool operator==(const Container&) const = default;

  // The request the scheduler uses: requests[r], else limits[r] (API defaulting), else zero.
  Quantity effective_request(std::string_view resource) const;
};

// spec.resourceClaims[]: a DRA claim the pod uses, by name or made per pod from a template.
struct PodResourceClaim {
  std::string name;
  std::string claim_name;    // resourceClaimName
  std::string template_name; // resourceClaimTemplateName
  bool operator==(const PodResourceClaim&) const = default;
};

// status.resourceClaimStatuses[]: the claim made for the pod from a template ("" while none).
struct PodResourceClaimStatus {
  std::string name;
  std::string claim_name;
  bool operator==(const PodResourceClaimStatus&) const = default;
};

struct PodSpec {
  std::string node_name;
  std::string scheduler_name; // "default-scheduler" when unset
  std::string service_account;
  std::string priority_class;
  std::string runtime_class;
  StringMap node_selector;
  std::optional<NodeSelector> required_affinity; // spec.affinity.nodeAffinity.required…
  std::vector<Toleration> tolerations;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::vector<Volume> volumes;
  ResourceList overhead;
  std::vector<PodResourceClaim> resource_claims;
  bool operator==(const PodSpec&) const = default;
};

// The pod's effective request of every resource: max(sum over containers, max over init
// containers), with sidecar (restartPolicy Always) init containers counted like containers,
// requests defaulting to limits, plus overhead — the scheduler's PodRequests rule.
ResourceList effective_requests(const PodSpec& spec);
// effective_requests(spec) of the GPU resources only (model/gpu.hpp is_gpu_resource): what
// diagnosis asks of every pod, without copying each pod's cpu and memory.
ResourceList effective_gpu_requests(const PodSpec& spec);
// effective_requests(spec) of one resource (zero when not requested).
Quantity effective_request(const PodSpec& spec, std::string_view resource);

struct PodTemplate {
  StringMap labels;
  StringMap annotations;
  PodSpec spec;
  bool operator==(const PodTemplate&) const = default;
};

struct Condition {
  std::string type;
  std::string status; // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  bool operator==(const Condition&) const = default;
};

// What diagnosis reads of a container's status (a pod's image and start time are not kept:
// nothing reads them, and at 17,000 pods they were ~3 MB).
struct ContainerStatus {
  std::string name;
  bool ready = false;
  bool started = false;
  int restart_count = 0;
  std::string state;           // "waiting" | "running" | "terminated" | ""
  std::string reason;          // waiting/terminated reason, e.g. CrashLoopBackOff
  std::string message;
  std::string last_terminated_reason;
  bool operator==(const ContainerStatus&) const = default;
};

struct Pod {
  ObjectMeta meta;
  PodSpec spec;
  std::string phase; // Pending | Running | Succeeded | Failed | Unknown
  std::string reason; // status.reason, e.g. Evicted
  std::string message; // status.message: the kubelet's words for reason
  std::string nominated_node_name;
  std::string start_time;
  std::vector<Condition> conditions; // PodScheduled only: the one condition diagnosis reads
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> container_statuses;
  std::vector<PodResourceClaimStatus> claim_statuses;
  std::string extended_resource_claim; // status.extendedResourceClaimStatus.resourceClaimName
  bool operator==(const Pod&) const = default;

  // The condition of that type, or nullptr.
  const Condition* condition(std::string_view type) const;
  // Pending and not bound to a node: what the scheduler has not placed.
  bool is_unscheduled() const;
  // Failed with reason UnexpectedAdmissionError: the kubelet refused it (a device plugin's
  // Allocate error) and nothing retries it; its ReplicaSet makes another.
  bool failed_admission() const;
  // True when every container status is ready (false without statuses).
  bool is_ready() const;
  // Sum of restartCount over all container statuses.
  int restarts() const;
};

Pod pod_from_json(const nlohmann::json& pod);
nlohmann::json to_json(const Pod& pod);
PodSpec pod_spec_from_json(const nlohmann::json& spec);
nlohmann::json to_json(const PodSpec& spec);
PodTemplate pod_template_from_json(const nlohmann::json& template_json);
nlohmann::json to_json(const PodTemplate& pod_template);
Condition condition_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Condition& condition);

} // namespace gpuslice::model
