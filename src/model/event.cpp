// SPDX-License-Identifier: Apache-2.0
// One Event view over core/v1 and events.k8s.io/v1. The scheduler writes events/v1 (note,
// regarding, reportingController, series) and the API converts for core/v1 readers, so files
// may hold either shape, and a core/v1 read of a v1 event has both sets partly filled.
#include <gpuslice/model/event.hpp>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {

using namespace json_fields;

const std::string& Event::component() const {
  return source_component.empty() ? reporting_controller : source_component;
}

long long Event::occurrences() const {
  if (series_count > 0) return series_count;
  return count > 0 ? count : 1;
}

const std::string& Event::last_seen() const {
  for (const std::string* time : {&series_last_observed, &last_timestamp, &event_time, &first_timestamp})
    if (!time->empty()) return *time;
  return first_timestamp;
}

Event event_from_json(const nlohmann::json& j) { return decode::event(j); }

nlohmann::json to_json(const Event& e) {
  nlohmann::json regarding = nlohmann::json::object();
  put_string(regarding, "kind", e.regarding.kind);
  put_string(regarding, "namespace", e.regarding.ns);
  put_string(regarding, "name", e.regarding.name);
  put_string(regarding, "uid", e.regarding.uid);
  put_string(regarding, "apiVersion", e.regarding.api_version);
  put_string(regarding, "fieldPath", e.regarding.field_path);
  nlohmann::json out = {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", to_json(e.meta)},
                        {"involvedObject", regarding}, {"reason", e.reason}, {"message", e.message}};
  put_string(out, "type", e.type);
  put_string(out, "action", e.action);
  if (!e.source_component.empty()) out["source"] = {{"component", e.source_component}};
  put_string(out, "reportingComponent", e.reporting_controller);
  put_string(out, "reportingInstance", e.reporting_instance);
  if (e.count != 0) out["count"] = e.count;
  put_string(out, "firstTimestamp", e.first_timestamp);
  put_string(out, "lastTimestamp", e.last_timestamp);
  put_string(out, "eventTime", e.event_time);
  if (e.series_count != 0 || !e.series_last_observed.empty()) {
    out["series"] = {{"count", e.series_count}};
    put_string(out["series"], "lastObservedTime", e.series_last_observed);
  }
  return out;
}

} // namespace gpuslice::model
