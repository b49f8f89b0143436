// SPDX-License-Identifier: Apache-2.0
#include "events.hpp"

#include <algorithm>
#include <cstdio>

#include "../object_meta.hpp"

namespace fakekube::sim {
namespace {

using nlohmann::json;

// Like the recorders' "<pod>.<hex>" names, from a counter so runs are reproducible.
std::string event_name(TickContext& context, const json& pod) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(0x187d000000000000ULL + ++context.memory.serial));
  return pod["metadata"].value("name", std::string()) + "." + hex;
}

json involved(const json& pod) {
  const json& meta = pod["metadata"];
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", meta.value("namespace", "")},
          {"name", meta.value("name", "")}, {"uid", meta.value("uid", "")}};
}

// now with microseconds, as eventTime (MicroTime) is written.
std::string micro_now() {
  std::string now = timestamp_now();
  return now.substr(0, now.size() - 1) + ".000000Z";
}

} // namespace

void scheduler_failed_event(TickContext& context, const json& pod, const std::string& message) {
  const std::string uid = pod["metadata"].value("uid", std::string());
  auto it = context.memory.scheduler_events.find(uid);
  const int every = std::max(1, context.settings.scheduler_event_every_ticks);
  if (it != context.memory.scheduler_events.end()) {
    EventRecord& record = it->second;
    if (context.memory.tick - record.last_tick < static_cast<std::uint64_t>(every)) return;
    std::optional<json> event = context.store.get(k_events, record.ns, record.name);
    if (event) {
      record.last_tick = context.memory.tick;
      const int count = (*event).value("series", json::object()).value("count", 1) + 1;
      (*event)["series"] = {{"count", count}, {"lastObservedTime", micro_now()}};
      context.store.update(k_events, *event, "default-scheduler");
      return;
    }
  }
  const std::string ns = pod["metadata"].value("namespace", std::string("default"));
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", event_name(context, pod)}, {"namespace", ns}}},
                {"involvedObject", involved(pod)},
                {"reason", "FailedScheduling"},
                {"message", message},
                {"type", "Warning"},
                {"action", "Scheduling"},
                {"source", json::object()},
                {"firstTimestamp", nullptr},
                {"lastTimestamp", nullptr},
                {"eventTime", micro_now()},
                {"reportingComponent", "default-scheduler"},
                {"reportingInstance", "default-scheduler-fakekube"}};
  if (std::optional<json> stored = context.store.create(k_events, event, "default-scheduler"))
    context.memory.scheduler_events[uid] = {ns, (*stored)["metadata"].value("name", ""), message,
                                            context.memory.tick};
}

void autoscaler_event(TickContext& context, const json& pod, const std::string& type,
                      const std::string& reason, const std::string& message) {
  const std::string key = pod["metadata"].value("uid", std::string()) + "/" + reason;
  const int every = std::max(1, context.settings.autoscaler_event_every_ticks);
  auto it = context.memory.autoscaler_events.find(key);
  if (it != context.memory.autoscaler_events.end() &&
      context.memory.tick - it->second.last_tick < static_cast<std::uint64_t>(every))
    return;
  const std::string now = timestamp_now();
  if (it != context.memory.autoscaler_events.end() && it->second.message == message) {
    if (std::optional<json> event = context.store.get(k_events, it->second.ns, it->second.name)) {
      (*event)["count"] = (*event).value("count", 1) + 1;
      (*event)["lastTimestamp"] = now;
      context.store.update(k_events, *event, "cluster-autoscaler");
      it->second.last_tick = context.memory.tick;
      return;
    }
  }
  const std::string ns = pod["metadata"].value("namespace", std::string("default"));
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", event_name(context, pod)}, {"namespace", ns}}},
                {"involvedObject", involved(pod)},
                {"reason", reason},
                {"message", message},
                {"type", type},
                {"source", {{"component", "cluster-autoscaler"}}},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"count", 1},
                {"eventTime", nullptr},
                {"reportingComponent", "cluster-autoscaler"},
                {"reportingInstance", ""}};
  if (std::optional<json> stored = context.store.create(k_events, event, "cluster-autoscaler"))
    context.memory.autoscaler_events[key] = {ns, (*stored)["metadata"].value("name", ""), message,
                                             context.memory.tick};
}

} // namespace fakekube::sim
