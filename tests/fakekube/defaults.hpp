// SPDX-License-Identifier: Apache-2.0
// What the real server's create strategies and admission add to a new object: pod spec
// defaults and status, namespace finalizers and phase, CRD acceptance conditions.
#pragma once

#include <nlohmann/json.hpp>

#include "resources.hpp"

namespace fakekube {

// Applies create-time defaults and status resets of an API create (not of Api::load, whose
// objects are taken as the cluster already holds them).
void apply_create_defaults(const ResourceInfo& info, nlohmann::json& object);
// Status the server keeps current regardless of writer: namespace phase, CRD conditions.
void apply_server_status(const ResourceInfo& info, nlohmann::json& object);
// Guaranteed, Burstable or BestEffort, by the real QoS rules.
std::string pod_qos_class(const nlohmann::json& pod);

} // namespace fakekube
