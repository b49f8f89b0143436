// SPDX-License-Identifier: Apache-2.0
// Events the simulated components write about pods, read back through core/v1 the way the
// real recorders' events look there (reference/scheduling.md §1.5, §2.1).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memory.hpp"

namespace fakekube::sim {

// The scheduler's FailedScheduling (events.k8s.io series semantics): one event per pod whose
// note stays the first message; a repeat after `every` ticks bumps series.count.
void scheduler_failed_event(TickContext& context, const nlohmann::json& pod,
                            const std::string& message);

// A cluster-autoscaler event (core/v1 recorder, spam-filtered): per (pod, reason) at most one
// write per `every` ticks; the same message bumps count, a new message is a new event.
void autoscaler_event(TickContext& context, const nlohmann::json& pod, const std::string& type,
                      const std::string& reason, const std::string& message);

} // namespace fakekube::sim
