// SPDX-License-Identifier: Apache-2.0
// The typed records read from any JSON document type (json_read.hpp): one set of rules for
// nlohmann values (the *_from_json functions) and simdjson's DOM (collect's large-file and
// live paths), so both give the same records. Missing, null or odd fields read as defaults.
#pragma once

#include <fmt/format.h>

#include <gpuslice/model/config.hpp>
#include <gpuslice/model/event.hpp>
#include <gpuslice/model/labels.hpp>
#include <gpuslice/model/meta.hpp>
#include <gpuslice/model/node.hpp>
#include <gpuslice/model/pod.hpp>
#include <gpuslice/model/taints.hpp>
#include <gpuslice/model/workload.hpp>

#include "json_read.hpp"
#include "requirement.hpp"

namespace gpuslice::model::decode {

using namespace json_read;

// Appends convert(element) for each element of `array` after one reserve: a vector grown one
// push at a time holds up to twice its elements (8 slots for a pod's 5 conditions), which at
// 17,000 pods was ~15 MB of the peak of `diagnose --from-file`.
template <class T, class A, class F> void append_each(std::vector<T>& out, const A& array, F&& convert) {
  out.reserve(out.size() + array.size());
  for (const auto& element : array) out.push_back(convert(element));
}

// Which parts of an object a decode keeps. Workloads keep everything: recognising the device
// plugin and the autoscaler reads their templates' env, command, args, volumes and annotations.
// Pods keep what diagnosis reads of them (identity, labels, owners, scheduling constraints,
// resources, status) and drop env, command, args, volume mounts, volumes and annotations:
// nothing reads those of a pod, env values can hold credentials, and at 17,000 kept pods they
// were ~40 % of the records' heap.
enum class Fields { all, pod };

template <class J> ObjectMeta meta(const J& metadata, Fields fields = Fields::all) {
  ObjectMeta out;
  out.ns = string_at(metadata, "namespace");
  out.name = string_at(metadata, "name");
  out.uid = string_at(metadata, "uid");
  out.resource_version = string_at(metadata, "resourceVersion");
  out.creation_timestamp = string_at(metadata, "creationTimestamp");
  out.generation = int_at(metadata, "generation");
  out.labels = string_map_at(metadata, "labels");
  if (fields == Fields::all) out.annotations = string_map_at(metadata, "annotations");
  append_each(out.owner_references, array_at(metadata, "ownerReferences"), [](const auto& ref) {
    return OwnerReference{string_at(ref, "apiVersion"), string_at(ref, "kind"), string_at(ref, "name"),
                          string_at(ref, "uid"), bool_at(ref, "controller")};
  });
  return out;
}

// {"cpu": "500m", "nvidia.com/gpu": 1}; entries that are not quantities are skipped.
template <class J> ResourceList resource_list(const J& object) {
  ResourceList list;
  if (!is_object(object)) return list;
  JsonAccess<J>::for_each_member(object, [&](std::string_view name, const J& value) {
    std::optional<Quantity> q = Quantity::parse(JsonAccess<J>::text(value));
    if (q)
      list.insert_or_assign(name, *q);
    else
      list.erase(name); // a later duplicate key replaces an earlier one
  });
  list.shrink_to_fit();
  return list;
}

template <class J> Taint taint(const J& j) {
  return {string_at(j, "key"), string_at(j, "value"), string_at(j, "effect"), string_at(j, "timeAdded")};
}

template <class J> Toleration toleration(const J& j) {
  Toleration t{string_at(j, "key"), string_at(j, "operator"), string_at(j, "value"), string_at(j, "effect"), {}};
  if (field(j, "tolerationSeconds")) t.toleration_seconds = int_at(j, "tolerationSeconds");
  return t;
}

template <class J> Condition condition(const J& j) {
  return {string_at(j, "type"), string_at(j, "status"), string_at(j, "reason"), string_at(j, "message"),
          string_at(j, "lastTransitionTime")};
}

// {key, operator, values}; `allow_gt_lt` for node selectors.
template <class J> Parsed<Requirement> requirement(const J& expression, bool allow_gt_lt) {
  if (!is_object(expression)) return {std::nullopt, "a match expression must be an object"};
  Requirement r;
  r.key = string_at(expression, "key");
  if (r.key.empty()) return {std::nullopt, "a match expression has no key"};
  std::string op = string_at(expression, "operator");
  std::optional<SelectorOp> parsed_op = parse_operator(op, allow_gt_lt);
  if (!parsed_op) return {std::nullopt, fmt::format("{}: unknown operator \"{}\"", r.key, op)};
  r.op = *parsed_op;
  r.values = strings_at(expression, "values");
  std::string error = check_values(r);
  if (!error.empty()) return {std::nullopt, error};
  return {r, {}};
}

template <class J> Parsed<LabelSelector> label_selector(const J& selector) {
  if (!is_object(selector)) return {std::nullopt, "label selector must be an object"};
  LabelSelector result;
  auto match_labels = field(selector, "matchLabels");
  if (match_labels && !is_object(*match_labels)) return {std::nullopt, "matchLabels must be an object"};
  for (const auto& [key, value] : string_map_at(selector, "matchLabels"))
    result.requirements.push_back({std::string(key), SelectorOp::in, {std::string(value)}});
  auto expressions = field(selector, "matchExpressions");
  if (expressions && !is_array(*expressions)) return {std::nullopt, "matchExpressions must be a list"};
  for (const auto& expression : array_at(selector, "matchExpressions")) {
    Parsed<Requirement> r = requirement(expression, false);
    if (!r) return {std::nullopt, "matchExpressions: " + r.error};
    result.requirements.push_back(std::move(*r.value));
  }
  return {result, {}};
}

template <class J> Parsed<std::vector<Requirement>> requirements(const J& term, const char* member) {
  auto list = field(term, member);
  if (list && !is_array(*list)) return {std::nullopt, fmt::format("{} must be a list", member)};
  std::vector<Requirement> result;
  for (const auto& expression : array_at(term, member)) {
    Parsed<Requirement> r = requirement(expression, true);
    if (!r) return {std::nullopt, fmt::format("{}: {}", member, r.error)};
    result.push_back(std::move(*r.value));
  }
  return {result, {}};
}

template <class J> Parsed<NodeSelector> node_selector(const J& selector) {
  if (!is_object(selector)) return {std::nullopt, "node selector must be an object"};
  auto terms = field(selector, "nodeSelectorTerms");
  if (terms && !is_array(*terms)) return {std::nullopt, "nodeSelectorTerms must be a list"};
  NodeSelector result;
  for (const auto& term_json : array_at(selector, "nodeSelectorTerms")) {
    if (!is_object(term_json)) return {std::nullopt, "a nodeSelectorTerm must be an object"};
    NodeSelectorTerm term;
    Parsed<std::vector<Requirement>> expressions = requirements(term_json, "matchExpressions");
    if (!expressions) return {std::nullopt, expressions.error};
    Parsed<std::vector<Requirement>> fields = requirements(term_json, "matchFields");
    if (!fields) return {std::nullopt, fields.error};
    term.match_expressions = std::move(*expressions.value);
    term.match_fields = std::move(*fields.value);
    result.terms.push_back(std::move(term));
  }
  return {result, {}};
}

template <class J> Container container(const J& j, Fields fields) {
  Container c;
  c.name = string_at(j, "name");
  c.image = string_at(j, "image");
  c.restart_policy = string_at(j, "restartPolicy");
  if (fields == Fields::all) {
    c.command = strings_at(j, "command");
    c.args = strings_at(j, "args");
    append_each(c.env, array_at(j, "env"), [](const auto& env) {
      // Only the kind of source is kept, not what it points at.
      return EnvVar{string_at(env, "name"), string_at(env, "value"), smallest_key(object_at(env, "valueFrom"))};
    });
    append_each(c.volume_mounts, array_at(j, "volumeMounts"), [](const auto& m) {
      return VolumeMount{string_at(m, "name"), string_at(m, "mountPath"), string_at(m, "subPath"), bool_at(m, "readOnly")};
    });
  }
  const auto& resources = object_at(j, "resources");
  c.requests = resource_list(object_at(resources, "requests"));
  c.limits = resource_list(object_at(resources, "limits"));
  return c;
}

template <class J> Volume volume(const J& j) {
  Volume v;
  v.name = string_at(j, "name");
  const auto& config_map = object_at(j, "configMap");
  v.config_map = string_at(config_map, "name");
  append_each(v.items, array_at(config_map, "items"), [](const auto& item) { return string_at(item, "key"); });
  v.host_path = string_at(object_at(j, "hostPath"), "path");
  return v;
}

template <class J> PodSpec pod_spec(const J& spec, Fields fields = Fields::all) {
  PodSpec s;
  s.node_name = string_at(spec, "nodeName");
  s.scheduler_name = string_at(spec, "schedulerName");
  if (s.scheduler_name.empty()) s.scheduler_name = "default-scheduler";
  s.service_account = string_at(spec, "serviceAccountName");
  s.priority_class = string_at(spec, "priorityClassName");
  s.runtime_class = string_at(spec, "runtimeClassName");
  s.node_selector = string_map_at(spec, "nodeSelector");
  const auto& node_affinity = object_at(object_at(spec, "affinity"), "nodeAffinity");
  if (auto required = field(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
    // An affinity the API would reject still constrains nothing we can judge: keep it absent.
    Parsed<NodeSelector> parsed = node_selector(*required);
    if (parsed) s.required_affinity = std::move(*parsed.value);
  }
  append_each(s.tolerations, array_at(spec, "tolerations"), [](const auto& t) { return toleration(t); });
  auto to_container = [fields](const auto& c) { return container(c, fields); };
  append_each(s.init_containers, array_at(spec, "initContainers"), to_container);
  append_each(s.containers, array_at(spec, "containers"), to_container);
  if (fields == Fields::all) append_each(s.volumes, array_at(spec, "volumes"), [](const auto& v) { return volume(v); });
  s.overhead = resource_list(object_at(spec, "overhead"));
  append_each(s.resource_claims, array_at(spec, "resourceClaims"), [](const auto& c) {
    return PodResourceClaim{string_at(c, "name"), string_at(c, "resourceClaimName"),
                            string_at(c, "resourceClaimTemplateName")};
  });
  return s;
}

template <class J> PodTemplate pod_template(const J& template_json) {
  const auto& metadata = object_at(template_json, "metadata");
  return {string_map_at(metadata, "labels"), string_map_at(metadata, "annotations"),
          pod_spec(object_at(template_json, "spec"))};
}

template <class J> ContainerStatus container_status(const J& j) {
  ContainerStatus s;
  s.name = string_at(j, "name");
  s.ready = bool_at(j, "ready");
  s.started = bool_at(j, "started");
  s.restart_count = static_cast<int>(int_at(j, "restartCount"));
  const auto& state = object_at(j, "state");
  for (const char* name : {"waiting", "running", "terminated"}) {
    if (!field(state, name)) continue;
    const auto& detail = object_at(state, name);
    s.state = name;
    s.reason = string_at(detail, "reason");
    s.message = string_at(detail, "message");
    break;
  }
  s.last_terminated_reason = string_at(object_at(object_at(j, "lastState"), "terminated"), "reason");
  return s;
}

template <class J> Pod pod(const J& j) {
  Pod p;
  p.meta = meta(object_at(j, "metadata"), Fields::pod);
  p.spec = pod_spec(object_at(j, "spec"), Fields::pod);
  const auto& status = object_at(j, "status");
  p.phase = string_at(status, "phase");
  p.reason = string_at(status, "reason");
  p.message = string_at(status, "message");
  p.nominated_node_name = string_at(status, "nominatedNodeName");
  p.start_time = string_at(status, "startTime");
  // Of a pod's conditions only PodScheduled is read (why it is Pending); the other four of a
  // running pod were ~13 MB at 17,000 pods.
  for (const auto& c : array_at(status, "conditions"))
    if (string_at(c, "type") == "PodScheduled") p.conditions.push_back(condition(c));
  append_each(p.init_container_statuses, array_at(status, "initContainerStatuses"),
              [](const auto& s) { return container_status(s); });
  append_each(p.container_statuses, array_at(status, "containerStatuses"),
              [](const auto& s) { return container_status(s); });
  append_each(p.claim_statuses, array_at(status, "resourceClaimStatuses"), [](const auto& c) {
    return PodResourceClaimStatus{string_at(c, "name"), string_at(c, "resourceClaimName")};
  });
  p.extended_resource_claim = string_at(object_at(status, "extendedResourceClaimStatus"), "resourceClaimName");
  return p;
}

template <class J> Node node(const J& j) {
  Node n;
  n.meta = meta(object_at(j, "metadata"));
  const auto& spec = object_at(j, "spec");
  append_each(n.taints, array_at(spec, "taints"), [](const auto& t) { return taint(t); });
  n.unschedulable = bool_at(spec, "unschedulable");
  n.provider_id = string_at(spec, "providerID");
  const auto& status = object_at(j, "status");
  n.capacity = resource_list(object_at(status, "capacity"));
  n.allocatable = resource_list(object_at(status, "allocatable"));
  append_each(n.conditions, array_at(status, "conditions"), [](const auto& c) { return condition(c); });
  const auto& info = object_at(status, "nodeInfo");
  n.os_image = string_at(info, "osImage");
  n.kubelet_version = string_at(info, "kubeletVersion");
  return n;
}

// The first non-empty text among the members.
template <class J> std::string first_of(const J& j, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    std::string value = string_at(j, key);
    if (!value.empty()) return value;
  }
  return {};
}

template <class J> ObjectReference object_reference(const J& j) {
  return {string_at(j, "kind"), string_at(j, "namespace"), string_at(j, "name"), string_at(j, "uid"),
          string_at(j, "apiVersion"), string_at(j, "fieldPath")};
}

// Either Event API version, decided by the fields present (see event.cpp).
template <class J> Event event(const J& j) {
  Event e;
  e.meta = meta(object_at(j, "metadata"));
  e.reason = string_at(j, "reason");
  e.type = string_at(j, "type");
  e.message = first_of(j, {"message", "note"});
  e.action = string_at(j, "action");
  e.regarding = object_reference(field(j, "involvedObject") ? object_at(j, "involvedObject")
                                                            : object_at(j, "regarding"));
  e.source_component = string_at(object_at(j, "source"), "component");
  if (e.source_component.empty()) e.source_component = string_at(object_at(j, "deprecatedSource"), "component");
  e.reporting_controller = first_of(j, {"reportingComponent", "reportingController"});
  e.reporting_instance = string_at(j, "reportingInstance");
  e.count = field(j, "count") ? int_at(j, "count") : int_at(j, "deprecatedCount");
  e.first_timestamp = first_of(j, {"firstTimestamp", "deprecatedFirstTimestamp"});
  e.last_timestamp = first_of(j, {"lastTimestamp", "deprecatedLastTimestamp"});
  e.event_time = string_at(j, "eventTime");
  const auto& series = object_at(j, "series");
  e.series_count = int_at(series, "count");
  e.series_last_observed = string_at(series, "lastObservedTime");
  return e;
}

template <class J> std::optional<LabelSelector> workload_selector(const J& spec) {
  auto selector = field(spec, "selector");
  if (!selector) return std::nullopt;
  return label_selector(*selector).value;
}

template <class J> DaemonSet daemonset(const J& j) {
  DaemonSet d;
  d.meta = meta(object_at(j, "metadata"));
  const auto& spec = object_at(j, "spec");
  d.selector = workload_selector(spec);
  d.pod_template = pod_template(object_at(spec, "template"));
  d.update_strategy = string_at(object_at(spec, "updateStrategy"), "type");
  const auto& s = object_at(j, "status");
  d.status = {int_at(s, "desiredNumberScheduled"), int_at(s, "currentNumberScheduled"), int_at(s, "numberReady"),
              int_at(s, "numberMisscheduled"),     int_at(s, "updatedNumberScheduled"), int_at(s, "numberAvailable"),
              int_at(s, "numberUnavailable"),      int_at(s, "observedGeneration")};
  return d;
}

template <class J> Workload workload(const J& j, std::string_view default_kind) {
  Workload w;
  w.kind = string_at(j, "kind");
  if (w.kind.empty()) w.kind = std::string(default_kind);
  w.meta = meta(object_at(j, "metadata"));
  const auto& spec = object_at(j, "spec");
  w.replicas = int_at(spec, "replicas", 1);
  w.selector = workload_selector(spec);
  w.pod_template = pod_template(object_at(spec, "template"));
  const auto& s = object_at(j, "status");
  w.status_replicas = int_at(s, "replicas");
  w.ready_replicas = int_at(s, "readyReplicas");
  w.available_replicas = int_at(s, "availableReplicas");
  w.updated_replicas = int_at(s, "updatedReplicas");
  w.observed_generation = int_at(s, "observedGeneration");
  append_each(w.conditions, array_at(s, "conditions"), [](const auto& c) { return condition(c); });
  return w;
}

template <class J> ConfigMap configmap(const J& j) {
  return {meta(object_at(j, "metadata")), string_map_at(j, "data")};
}

template <class J> ClusterPolicy cluster_policy(const J& j) {
  ClusterPolicy p;
  p.meta = meta(object_at(j, "metadata"));
  const auto& device_plugin = object_at(object_at(j, "spec"), "devicePlugin");
  p.device_plugin_enabled = bool_at(device_plugin, "enabled", true);
  const auto& config = object_at(device_plugin, "config");
  p.config_name = string_at(config, "name");
  p.config_default = string_at(config, "default");
  const auto& status = object_at(j, "status");
  p.state = string_at(status, "state");
  p.operator_namespace = string_at(status, "namespace");
  return p;
}

} // namespace gpuslice::model::decode
