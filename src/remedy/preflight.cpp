// SPDX-License-Identifier: Apache-2.0
// Preflight: ask before touching anything, so a user without RBAC for one step changes nothing.
#include <gpuslice/remedy/execute.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/model.hpp>

namespace gpuslice::remedy {

std::string Permission::display() const {
  const std::string what = group.empty() ? resource : resource + "." + group;
  return ns.empty() ? fmt::format("{} {}", verb, what) : fmt::format("{} {} in {}", verb, what, ns);
}

std::vector<Permission> permissions_needed(const Plan& plan) {
  std::set<Permission> needed;
  for (const Step& step : plan.steps) {
    for (const Change& change : step.changes) {
      if (!change.changed) continue;
      const kube::ResourceRef& type = change.target.type;
      const std::string ns = type.namespaced ? change.target.ns : "";
      needed.insert({"get", type.group, type.resource, ns});
      switch (change.action) {
      case Action::create:
        needed.insert({"create", type.group, type.resource, ns});
        if (change.edit) needed.insert({"update", type.group, type.resource, ns}); // exists by run time
        break;
      case Action::patch:
      case Action::replace: needed.insert({"update", type.group, type.resource, ns}); break;
      case Action::remove: needed.insert({"delete", type.group, type.resource, ns}); break;
      }
    }
  }
  return {needed.begin(), needed.end()};
}

std::vector<std::string> denied_permissions(kube::Client& client, const std::vector<Permission>& needed) {
  const kube::ResourceRef reviews{"authorization.k8s.io", "v1", "selfsubjectaccessreviews", false};
  std::vector<std::string> denied;
  for (const Permission& permission : needed) {
    nlohmann::json attributes = {{"verb", permission.verb}, {"group", permission.group},
                                 {"resource", permission.resource}};
    if (!permission.ns.empty()) attributes["namespace"] = permission.ns;
    const nlohmann::json review = {{"apiVersion", "authorization.k8s.io/v1"},
                                   {"kind", "SelfSubjectAccessReview"},
                                   {"spec", {{"resourceAttributes", attributes}}}};
    const nlohmann::json answer = client.create(reviews, "", review);
    const nlohmann::json status = answer.value("status", nlohmann::json::object());
    if (!status.value("allowed", false)) {
      const std::string reason = status.value("reason", "");
      denied.push_back(reason.empty() ? permission.display() : permission.display() + " (" + reason + ")");
    }
  }
  return denied;
}

} // namespace gpuslice::remedy

namespace gpuslice::remedy {

void read_config_target(kube::Client& client, Snapshot& snapshot, ConfigApplyOptions& options) {
  const std::string ns = config_namespace(snapshot, options);
  try {
    client.get(target_for("Namespace", "", ns).ref());
    options.namespace_exists = true;
  } catch (const kube::ApiError& e) {
    if (e.is_forbidden()) {
      options.namespace_exists = true; // cannot tell: assume it is there, as before
    } else if (e.is_not_found()) {
      options.namespace_exists = false;
    } else {
      throw;
    }
  }
  for (const model::ConfigMap& configmap : snapshot.configmaps) {
    if (configmap.meta.ns == ns && configmap.meta.name == options.name) return;
  }
  try {
    snapshot.configmaps.push_back(model::configmap_from_json(client.get(target_for("ConfigMap", ns, options.name).ref())));
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  }
}

} // namespace gpuslice::remedy
