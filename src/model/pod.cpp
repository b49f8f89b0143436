// SPDX-License-Identifier: Apache-2.0
// Pod view: spec (pod_spec.cpp) plus status, conditions and container states.
#include <gpuslice/model/pod.hpp>

#include <algorithm>
#include <numeric>

#include <nlohmann/json.hpp>

#include <gpuslice/model/json_fields.hpp>

#include "decode.hpp"

namespace gpuslice::model {
namespace {

using namespace json_fields;

nlohmann::json to_json(const ContainerStatus& s) {
  nlohmann::json out = {{"name", s.name}, {"ready", s.ready}, {"restartCount", s.restart_count}};
  if (s.started) out["started"] = true;
  if (!s.state.empty()) {
    nlohmann::json detail = nlohmann::json::object();
    put_string(detail, "reason", s.reason);
    put_string(detail, "message", s.message);
    out["state"][s.state] = detail;
  }
  if (!s.last_terminated_reason.empty())
    out["lastState"]["terminated"] = {{"reason", s.last_terminated_reason}};
  return out;
}

} // namespace

const Condition* Pod::condition(std::string_view type) const {
  auto it = std::find_if(conditions.begin(), conditions.end(), [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

bool Pod::is_unscheduled() const { return phase == "Pending" && spec.node_name.empty(); }

bool Pod::failed_admission() const { return phase == "Failed" && reason == "UnexpectedAdmissionError"; }

bool Pod::is_ready() const {
  return !container_statuses.empty() && std::all_of(container_statuses.begin(), container_statuses.end(),
                                                    [](const ContainerStatus& s) { return s.ready; });
}

int Pod::restarts() const {
  auto add = [](int total, const ContainerStatus& s) { return total + s.restart_count; };
  return std::accumulate(container_statuses.begin(), container_statuses.end(),
                         std::accumulate(init_container_statuses.begin(), init_container_statuses.end(), 0, add),
                         add);
}

Condition condition_from_json(const nlohmann::json& j) { return decode::condition(j); }

nlohmann::json to_json(const Condition& c) {
  nlohmann::json out = {{"type", c.type}, {"status", c.status}};
  put_string(out, "reason", c.reason);
  put_string(out, "message", c.message);
  put_string(out, "lastTransitionTime", c.last_transition_time);
  return out;
}

Pod pod_from_json(const nlohmann::json& pod) { return decode::pod(pod); }

nlohmann::json to_json(const Pod& p) {
  nlohmann::json status = nlohmann::json::object();
  put_string(status, "phase", p.phase);
  put_string(status, "reason", p.reason);
  put_string(status, "message", p.message);
  put_string(status, "nominatedNodeName", p.nominated_node_name);
  put_string(status, "startTime", p.start_time);
  for (const Condition& c : p.conditions) status["conditions"].push_back(to_json(c));
  for (const ContainerStatus& s : p.init_container_statuses) status["initContainerStatuses"].push_back(to_json(s));
  for (const ContainerStatus& s : p.container_statuses) status["containerStatuses"].push_back(to_json(s));
  for (const PodResourceClaimStatus& c : p.claim_statuses) {
    nlohmann::json claim = {{"name", c.name}};
    put_string(claim, "resourceClaimName", c.claim_name);
    status["resourceClaimStatuses"].push_back(std::move(claim));
  }
  if (!p.extended_resource_claim.empty())
    status["extendedResourceClaimStatus"] = {{"resourceClaimName", p.extended_resource_claim}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", to_json(p.meta)}, {"spec", to_json(p.spec)},
          {"status", status}};
}

} // namespace gpuslice::model
