// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/workload.hpp>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

namespace gpuslice::model {
namespace {

using namespace json_fields;

std::optional<LabelSelector> selector_from(const nlohmann::json& spec) {
  const nlohmann::json* selector = field(spec, "selector");
  if (!selector) return std::nullopt;
  Parsed<LabelSelector> parsed = parse_label_selector(*selector);
  return parsed.value;
}

} // namespace

DaemonSet daemonset_from_json(const nlohmann::json& j) {
  DaemonSet d;
  d.meta = meta_from_json(object_at(j, "metadata"));
  const nlohmann::json& spec = object_at(j, "spec");
  d.selector = selector_from(spec);
  d.pod_template = pod_template_from_json(object_at(spec, "template"));
  d.update_strategy = string_at(object_at(spec, "updateStrategy"), "type");
  const nlohmann::json& s = object_at(j, "status");
  d.status = {int_at(s, "desiredNumberScheduled"), int_at(s, "currentNumberScheduled"), int_at(s, "numberReady"),
              int_at(s, "numberMisscheduled"),     int_at(s, "updatedNumberScheduled"), int_at(s, "numberAvailable"),
              int_at(s, "numberUnavailable"),      int_at(s, "observedGeneration")};
  return d;
}

nlohmann::json to_json(const DaemonSet& d) {
  nlohmann::json spec = {{"template", to_json(d.pod_template)}};
  if (d.selector) spec["selector"] = label_selector_json(*d.selector);
  if (!d.update_strategy.empty()) spec["updateStrategy"] = {{"type", d.update_strategy}};
  const DaemonSetStatus& s = d.status;
  // The first four are always serialised by the API, the rest are omitempty.
  nlohmann::json status = {{"desiredNumberScheduled", s.desired_number_scheduled},
                           {"currentNumberScheduled", s.current_number_scheduled},
                           {"numberReady", s.number_ready},
                           {"numberMisscheduled", s.number_misscheduled}};
  if (s.updated_number_scheduled != 0) status["updatedNumberScheduled"] = s.updated_number_scheduled;
  if (s.number_available != 0) status["numberAvailable"] = s.number_available;
  if (s.number_unavailable != 0) status["numberUnavailable"] = s.number_unavailable;
  if (s.observed_generation != 0) status["observedGeneration"] = s.observed_generation;
  return {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"metadata", to_json(d.meta)}, {"spec", spec},
          {"status", status}};
}

Workload workload_from_json(const nlohmann::json& j, std::string_view default_kind) {
  Workload w;
  w.kind = string_at(j, "kind");
  if (w.kind.empty()) w.kind = std::string(default_kind);
  w.meta = meta_from_json(object_at(j, "metadata"));
  const nlohmann::json& spec = object_at(j, "spec");
  w.replicas = int_at(spec, "replicas", 1);
  w.selector = selector_from(spec);
  w.pod_template = pod_template_from_json(object_at(spec, "template"));
  const nlohmann::json& s = object_at(j, "status");
  w.status_replicas = int_at(s, "replicas");
  w.ready_replicas = int_at(s, "readyReplicas");
  w.available_replicas = int_at(s, "availableReplicas");
  w.updated_replicas = int_at(s, "updatedReplicas");
  w.observed_generation = int_at(s, "observedGeneration");
  for (const nlohmann::json& c : array_at(s, "conditions")) w.conditions.push_back(condition_from_json(c));
  return w;
}

nlohmann::json to_json(const Workload& w) {
  nlohmann::json spec = {{"replicas", w.replicas}, {"template", to_json(w.pod_template)}};
  if (w.selector) spec["selector"] = label_selector_json(*w.selector);
  nlohmann::json status = nlohmann::json::object();
  auto put = [&](const char* key, long long value) {
    if (value != 0) status[key] = value;
  };
  put("replicas", w.status_replicas);
  put("readyReplicas", w.ready_replicas);
  put("availableReplicas", w.available_replicas);
  put("updatedReplicas", w.updated_replicas);
  put("observedGeneration", w.observed_generation);
  for (const Condition& c : w.conditions) status["conditions"].push_back(to_json(c));
  return {{"apiVersion", "apps/v1"}, {"kind", w.kind}, {"metadata", to_json(w.meta)}, {"spec", spec},
          {"status", status}};
}

} // namespace gpuslice::model
