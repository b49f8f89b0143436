// SPDX-License-Identifier: Apache-2.0
#include "resources.hpp"

#include <algorithm>
#include <stdexcept>

namespace fakekube {
namespace {

const std::vector<std::string> k_all_verbs = {"create", "delete", "deletecollection", "get",
                                              "list",   "patch",  "update",           "watch"};

ResourceInfo builtin(std::string group, std::string plural, std::string singular, std::string kind,
                     bool namespaced, std::vector<std::string> short_names,
                     std::vector<std::string> subresources, bool in_all = false) {
  ResourceInfo info;
  info.group = std::move(group);
  info.version = "v1";
  info.plural = std::move(plural);
  info.singular = std::move(singular);
  info.kind = std::move(kind);
  info.namespaced = namespaced;
  info.verbs = k_all_verbs;
  info.short_names = std::move(short_names);
  info.subresources = std::move(subresources);
  if (in_all) {
    info.categories = {"all"};
  }
  return info;
}

ResourceInfo review(std::string group, std::string plural, std::string singular, std::string kind) {
  ResourceInfo info = builtin(std::move(group), std::move(plural), std::move(singular),
                              std::move(kind), false, {}, {});
  info.verbs = {"create"};
  info.create_only = true;
  return info;
}

ResourceInfo review_v1beta1(std::string group, std::string plural, std::string singular,
                            std::string kind) {
  ResourceInfo info = review(std::move(group), std::move(plural), std::move(singular),
                             std::move(kind));
  info.version = "v1beta1";
  return info;
}

} // namespace

std::string ResourceInfo::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceInfo::group_resource() const {
  return group.empty() ? plural : plural + "." + group;
}

bool ResourceInfo::has_subresource(const std::string& name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

ResourceTable::ResourceTable() {
  ResourceInfo ns = builtin("", "namespaces", "namespace", "Namespace", false, {"ns"}, {"status"});
  // The real server serves no deletecollection for namespaces.
  ns.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  m_resources = {
      ns,
      builtin("", "nodes", "node", "Node", false, {"no"}, {"status"}),
      builtin("", "pods", "pod", "Pod", true, {"po"}, {"status"}, true),
      builtin("", "events", "event", "Event", true, {"ev"}, {}),
      builtin("", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}),
      builtin("", "secrets", "secret", "Secret", true, {}, {}),
      builtin("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {}),
      builtin("", "services", "service", "Service", true, {"svc"}, {"status"}, true),
      builtin("apps", "daemonsets", "daemonset", "DaemonSet", true, {"ds"}, {"status"}, true),
      builtin("apps", "deployments", "deployment", "Deployment", true, {"deploy"},
              {"scale", "status"}, true),
      builtin("apps", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"scale", "status"},
              true),
      builtin("apps", "statefulsets", "statefulset", "StatefulSet", true, {"sts"},
              {"scale", "status"}, true),
      builtin("", "resourcequotas", "resourcequota", "ResourceQuota", true, {"quota"}, {"status"}),
      builtin("batch", "jobs", "job", "Job", true, {}, {"status"}),
      builtin("batch", "cronjobs", "cronjob", "CronJob", true, {"cj"}, {"status"}),
      builtin("scheduling.k8s.io", "priorityclasses", "priorityclass", "PriorityClass", false,
              {"pc"}, {}),
      builtin("events.k8s.io", "events", "event", "Event", true, {}, {}),
      review("authentication.k8s.io", "selfsubjectreviews", "selfsubjectreview",
             "SelfSubjectReview"),
      review_v1beta1("authentication.k8s.io", "selfsubjectreviews", "selfsubjectreview",
                     "SelfSubjectReview"), // kubectl 1.27's `auth whoami` asks for v1beta1
      review("authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectaccessreview",
             "SelfSubjectAccessReview"),
      review("authorization.k8s.io", "selfsubjectrulesreviews", "selfsubjectrulesreview",
             "SelfSubjectRulesReview"),
      builtin("rbac.authorization.k8s.io", "clusterrolebindings", "clusterrolebinding",
              "ClusterRoleBinding", false, {}, {}),
      builtin("rbac.authorization.k8s.io", "clusterroles", "clusterrole", "ClusterRole", false, {},
              {}),
      builtin("rbac.authorization.k8s.io", "rolebindings", "rolebinding", "RoleBinding", true, {},
              {}),
      builtin("rbac.authorization.k8s.io", "roles", "role", "Role", true, {}, {}),
      // Dynamic Resource Allocation, at v1 only (Kubernetes 1.34+, where it is on by default; a
      // server of an older version withdraws it): objects are stored as written, with no
      // conversion to serve v1beta2 or v1beta1 as well.
      builtin("resource.k8s.io", "deviceclasses", "deviceclass", "DeviceClass", false, {}, {}),
      builtin("resource.k8s.io", "resourceclaims", "resourceclaim", "ResourceClaim", true, {}, {"status"}),
      builtin("resource.k8s.io", "resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate", true, {},
              {}),
      builtin("resource.k8s.io", "resourceslices", "resourceslice", "ResourceSlice", false, {}, {}),
      builtin("apiextensions.k8s.io", "customresourcedefinitions", "customresourcedefinition",
              "CustomResourceDefinition", false, {"crd", "crds"}, {"status"}),
  };
  m_resources.back().categories = {"api-extensions"};
}

const ResourceInfo* ResourceTable::find(const std::string& group, const std::string& version,
                                        const std::string& plural) const {
  for (const ResourceInfo& info : m_resources) {
    if (info.group == group && info.version == version && info.plural == plural) {
      return &info;
    }
  }
  return nullptr;
}

const ResourceInfo* ResourceTable::find_kind(const std::string& api_version,
                                             const std::string& kind) const {
  for (const ResourceInfo& info : m_resources) {
    if (info.kind == kind && info.api_version() == api_version && !info.create_only) {
      return &info;
    }
  }
  return nullptr;
}

void ResourceTable::register_crd(const nlohmann::json& crd) {
  const std::string name =
      crd.value("metadata", nlohmann::json::object()).value("name", std::string());
  const nlohmann::json& spec = crd.value("spec", nlohmann::json::object());
  const nlohmann::json names = spec.value("names", nlohmann::json::object());
  if (!spec.contains("group") || !names.contains("plural") || !names.contains("kind") ||
      !spec.contains("versions") || !spec["versions"].is_array()) {
    throw std::invalid_argument("customresourcedefinition \"" + name +
                                "\": spec.group, spec.names.plural, spec.names.kind and "
                                "spec.versions are required");
  }
  unregister_crd(name);
  for (const nlohmann::json& version : spec["versions"]) {
    if (!version.value("served", true)) {
      continue;
    }
    ResourceInfo info;
    info.group = spec["group"].get<std::string>();
    info.version = version.value("name", std::string());
    info.plural = names["plural"].get<std::string>();
    info.singular = names.value("singular", std::string());
    if (info.singular.empty()) {
      info.singular = info.plural;
    }
    info.kind = names["kind"].get<std::string>();
    info.namespaced = spec.value("scope", std::string("Namespaced")) == "Namespaced";
    info.verbs = k_all_verbs;
    info.short_names = names.value("shortNames", std::vector<std::string>());
    info.categories = names.value("categories", std::vector<std::string>());
    const nlohmann::json subresources = version.value("subresources", nlohmann::json::object());
    if (subresources.contains("status")) {
      info.subresources.push_back("status");
    }
    if (subresources.contains("scale")) {
      info.subresources.push_back("scale");
    }
    info.custom = true;
    m_resources.push_back(std::move(info));
  }
}

void ResourceTable::unregister_crd(const std::string& name) {
  m_resources.remove_if([&](const ResourceInfo& info) {
    return info.custom && info.plural + "." + info.group == name;
  });
}

void ResourceTable::set_group_served(const std::string& group, bool served) {
  std::list<ResourceInfo>& from = served ? m_withdrawn : m_resources;
  std::list<ResourceInfo>& to = served ? m_resources : m_withdrawn;
  for (auto it = from.begin(); it != from.end();) {
    const auto next = std::next(it);
    if (it->group == group && !it->custom) to.splice(to.end(), from, it);
    it = next;
  }
}

std::vector<std::pair<std::string, std::vector<std::string>>> ResourceTable::groups() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> result;
  for (const ResourceInfo& info : m_resources) {
    auto it = std::find_if(result.begin(), result.end(),
                           [&](const auto& entry) { return entry.first == info.group; });
    if (it == result.end()) {
      result.push_back({info.group, {info.version}});
    } else if (std::find(it->second.begin(), it->second.end(), info.version) == it->second.end()) {
      it->second.push_back(info.version);
    }
  }
  return result;
}

} // namespace fakekube
