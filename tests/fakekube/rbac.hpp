// SPDX-License-Identifier: Apache-2.0
// RBAC evaluated over the stored ClusterRoles, Roles and their bindings, with the real
// Forbidden wording and the rules every authenticated user has (system:discovery,
// system:basic-user).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <fakekube/api.hpp>

#include "api_state.hpp"
#include "status_errors.hpp"

namespace fakekube {

struct Attributes {
  std::string verb;
  bool resource_request = true;
  std::string group;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path; // non-resource requests
};

struct Decision {
  bool allowed = false;
  std::string reason; // "RBAC: allowed by ClusterRoleBinding ..." or ""
};

Decision authorize(const ApiState& state, const Identity& identity, const Attributes& attributes);
// 403 Forbidden with the real message for a denied request.
StatusError forbidden(const Identity& identity, const Attributes& attributes);
// SelfSubjectRulesReview's status for `ns`: resourceRules, nonResourceRules, incomplete.
nlohmann::json rules_review_status(const ApiState& state, const Identity& identity,
                                   const std::string& ns);
// The verb of a request, e.g. "list" for a collection GET, "deletecollection".
std::string request_verb(const ApiRequest& request, bool has_name);

} // namespace fakekube
