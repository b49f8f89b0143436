// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/workload.hpp>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {

using namespace json_fields;

DaemonSet daemonset_from_json(const nlohmann::json& j) { return decode::daemonset(j); }

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
  return decode::workload(j, default_kind);
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
