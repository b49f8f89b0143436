// SPDX-License-Identifier: Apache-2.0
// Plan values: targets, resource names, edits re-applied to live objects, and the JSON shape.
#include <gpuslice/remedy/plan.hpp>

#include <array>
#include <stdexcept>

#include <gpuslice/model.hpp>
#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

struct KindResource {
  std::string_view kind;
  std::string_view api_version;
  kube::ResourceRef type;
};

const std::array<KindResource, 14>& kind_table() {
  static const std::array<KindResource, 14> table = {{
      {"Node", "v1", {"", "v1", "nodes", false}},
      {"ConfigMap", "v1", {"", "v1", "configmaps", true}},
      {"Secret", "v1", {"", "v1", "secrets", true}},
      {"ServiceAccount", "v1", {"", "v1", "serviceaccounts", true}},
      {"Service", "v1", {"", "v1", "services", true}},
      {"Namespace", "v1", {"", "v1", "namespaces", false}},
      {"Deployment", "apps/v1", {"apps", "v1", "deployments", true}},
      {"StatefulSet", "apps/v1", {"apps", "v1", "statefulsets", true}},
      {"DaemonSet", "apps/v1", {"apps", "v1", "daemonsets", true}},
      {"ClusterRole", "rbac.authorization.k8s.io/v1", {"rbac.authorization.k8s.io", "v1", "clusterroles", false}},
      {"ClusterRoleBinding", "rbac.authorization.k8s.io/v1",
       {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false}},
      {"Role", "rbac.authorization.k8s.io/v1", {"rbac.authorization.k8s.io", "v1", "roles", true}},
      {"RoleBinding", "rbac.authorization.k8s.io/v1", {"rbac.authorization.k8s.io", "v1", "rolebindings", true}},
      {"ClusterPolicy", "nvidia.com/v1", {"nvidia.com", "v1", "clusterpolicies", false}},
  }};
  return table;
}

const KindResource* find_kind(std::string_view kind) {
  for (const KindResource& entry : kind_table()) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

// Whether a taint with this key and effect is already on the list (its value may differ: then
// it belongs to someone else's setup and we leave it alone).
bool has_taint_key_effect(const nlohmann::json& taints, const nlohmann::json& taint) {
  for (const nlohmann::json& existing : taints) {
    if (existing.value("key", "") == taint.value("key", "") &&
        existing.value("effect", "") == taint.value("effect", "")) {
      return true;
    }
  }
  return false;
}

// Whether the tolerations tolerate the taint the toleration was made for.
bool tolerations_cover(const nlohmann::json& tolerations, const nlohmann::json& toleration) {
  model::Taint taint;
  taint.key = toleration.value("key", "");
  taint.value = toleration.value("value", "");
  taint.effect = toleration.value("effect", "");
  std::vector<model::Toleration> list;
  for (const nlohmann::json& t : tolerations) list.push_back(model::toleration_from_json(t));
  return model::tolerated(list, taint);
}

} // namespace

std::string_view to_string(Action action) {
  switch (action) {
  case Action::create: return "create";
  case Action::patch: return "patch";
  case Action::replace: return "replace";
  case Action::remove: return "delete";
  }
  return "patch";
}

std::string TargetObject::path() const {
  return kube::object_path(ref());
}

std::string TargetObject::display() const {
  return ns.empty() ? kind + "/" + name : kind + "/" + ns + "/" + name;
}

std::optional<kube::ResourceRef> resource_for_kind(std::string_view kind) {
  const KindResource* entry = find_kind(kind);
  if (entry == nullptr) return std::nullopt;
  return entry->type;
}

TargetObject target_for(std::string_view kind, std::string ns, std::string name) {
  const KindResource* entry = find_kind(kind);
  if (entry == nullptr) throw std::invalid_argument("no API resource known for kind " + std::string(kind));
  TargetObject target;
  target.api_version = std::string(entry->api_version);
  target.kind = std::string(kind);
  target.ns = entry->type.namespaced ? std::move(ns) : "";
  target.name = std::move(name);
  target.type = entry->type;
  return target;
}

nlohmann::json apply_edit(const Edit& edit, const nlohmann::json& object) {
  nlohmann::json out = object;
  switch (edit.kind) {
  case EditKind::merge:
    out.merge_patch(edit.value);
    break;
  case EditKind::add_taint: {
    nlohmann::json& taints = out["spec"]["taints"];
    if (!taints.is_array()) taints = nlohmann::json::array();
    if (!has_taint_key_effect(taints, edit.value)) taints.push_back(edit.value);
    break;
  }
  case EditKind::add_toleration: {
    nlohmann::json& tolerations = out["spec"]["template"]["spec"]["tolerations"];
    if (!tolerations.is_array()) tolerations = nlohmann::json::array();
    if (!tolerations_cover(tolerations, edit.value)) tolerations.push_back(edit.value);
    break;
  }
  case EditKind::mount_plugin_config:
    out = mount_plugin_config(object, edit.value);
    break;
  }
  return out;
}

bool Plan::has_changes() const {
  for (const Step& step : steps) {
    for (const Change& change : step.changes) {
      if (change.changed) return true;
    }
  }
  return false;
}

nlohmann::ordered_json plan_to_json(const Plan& plan, bool with_objects) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "gpuslice/v1alpha1";
  out["kind"] = "Plan";
  out["changes"] = plan.has_changes();
  if (plan.platform) {
    out["refused"] = {{"platform", plan.platform->name},
                      {"reason", plan.platform->why},
                      {"commands", plan.platform->commands},
                      {"notes", plan.platform->notes}};
  }
  out["steps"] = nlohmann::ordered_json::array();
  for (const Step& step : plan.steps) {
    nlohmann::ordered_json s;
    s["name"] = step.name;
    s["summary"] = step.summary;
    s["notes"] = step.notes;
    s["changes"] = nlohmann::ordered_json::array();
    for (const Change& change : step.changes) {
      nlohmann::ordered_json c;
      c["action"] = std::string(to_string(change.action));
      c["object"] = {{"apiVersion", change.target.api_version},
                     {"kind", change.target.kind},
                     {"namespace", change.target.ns},
                     {"name", change.target.name},
                     {"path", change.target.path()}};
      c["changed"] = change.changed;
      if (with_objects && change.changed) {
        c["before"] = change.before;
        c["after"] = change.after;
      }
      s["changes"].push_back(c);
    }
    out["steps"].push_back(s);
  }
  return out;
}

} // namespace gpuslice::remedy
