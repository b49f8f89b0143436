// SPDX-License-Identifier: Apache-2.0
// core/v1 and events.k8s.io/v1 Events, unified into one view.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/meta.hpp>

namespace gpuslice::model {

// involvedObject (core/v1) / regarding (events.k8s.io/v1).
struct ObjectReference {
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string field_path;
  bool operator==(const ObjectReference&) const = default;
};

// One Event with both API versions' fields mapped onto the same names (core/v1 message ==
// events/v1 note, source.component == deprecatedSource.component, count == deprecatedCount).
struct Event {
  ObjectMeta meta;
  std::string reason;
  std::string type;    // Normal | Warning
  std::string message; // message / note
  std::string action;
  ObjectReference regarding;
  std::string source_component;     // source.component / deprecatedSource.component
  std::string reporting_controller; // reportingComponent / reportingController
  std::string reporting_instance;
  long long count = 0;              // count / deprecatedCount
  long long series_count = 0;       // series.count
  std::string first_timestamp;      // firstTimestamp / deprecatedFirstTimestamp
  std::string last_timestamp;       // lastTimestamp / deprecatedLastTimestamp
  std::string event_time;           // eventTime (MicroTime)
  std::string series_last_observed; // series.lastObservedTime
  bool operator==(const Event&) const = default;

  // Who reported it, as kubectl describe shows "From": source.component, else reportingController.
  const std::string& component() const;
  // How many times it happened: series.count, else count, else 1.
  long long occurrences() const;
  // When it was last seen: series.lastObservedTime, lastTimestamp, eventTime, then firstTimestamp.
  const std::string& last_seen() const;
};

// Reads either API version (decided by the fields present, not by apiVersion alone).
Event event_from_json(const nlohmann::json& event);
// Writes core/v1 form ("apiVersion: v1"), which every kubectl reads.
nlohmann::json to_json(const Event& event);

} // namespace gpuslice::model
