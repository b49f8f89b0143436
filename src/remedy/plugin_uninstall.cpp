// SPDX-License-Identifier: Apache-2.0
// Removing the installed device plugin the way its installer would (kubeclient.md §6 `helm
// uninstall`), or — where deleting does not work — re-pointing it (nvidia.md §5.3, §7.2).
#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

// Helm's UninstallOrder (pkg/releaseutil/kind_sorter.go; kubeclient.md §6 step 5).
constexpr std::array<std::string_view, 37> k_helm_uninstall_order = {
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "APIService", "Ingress", "IngressClass",
    "Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler", "Deployment", "ReplicaSet",
    "ReplicationController", "Pod", "DaemonSet", "RoleBindingList", "RoleBinding", "RoleList", "Role",
    "ClusterRoleBindingList", "ClusterRoleBinding", "ClusterRoleList", "ClusterRole", "CustomResourceDefinition",
    "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList", "Secret",
    "ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy",
    "Namespace"};
// PriorityClass comes after Namespace in newer Helm; kept here so it is not "unknown".
constexpr std::string_view k_helm_uninstall_last = "PriorityClass";

// helm.sh/resource-policy of the live object, when the snapshot holds it.
std::optional<std::string> resource_policy(const Snapshot& snapshot, const ObjectKey& key) {
  auto policy_of = [](const model::ObjectMeta& meta) -> std::optional<std::string> {
    const std::optional<std::string_view> value = meta.annotation("helm.sh/resource-policy");
    if (!value) return std::nullopt;
    std::string text(*value);
    text.erase(0, text.find_first_not_of(" \t"));
    text.erase(text.find_last_not_of(" \t") + 1);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  };
  auto same = [&key](const model::ObjectMeta& meta) { return meta.ns == key.ns && meta.name == key.name; };
  if (key.kind == "DaemonSet")
    for (const model::DaemonSet& o : snapshot.daemonsets)
      if (same(o.meta)) return policy_of(o.meta);
  if (key.kind == "ConfigMap")
    for (const model::ConfigMap& o : snapshot.configmaps)
      if (same(o.meta)) return policy_of(o.meta);
  if (key.kind == "Deployment" || key.kind == "StatefulSet")
    for (const auto* list : {&snapshot.deployments, &snapshot.statefulsets})
      for (const model::Workload& o : *list)
        if (o.kind == key.kind && same(o.meta)) return policy_of(o.meta);
  return std::nullopt;
}

void plan_helm(const DevicePluginInstall& install, const Snapshot& snapshot, UninstallPlan& plan) {
  std::vector<ObjectKey> objects = install.objects;
  std::stable_sort(objects.begin(), objects.end(), [](const ObjectKey& a, const ObjectKey& b) {
    const int ra = helm_uninstall_rank(a.kind);
    const int rb = helm_uninstall_rank(b.kind);
    if (ra != rb) return ra < rb;
    return ra == helm_uninstall_rank("") && a.kind < b.kind; // unknown kinds: alphabetically
  });
  for (ObjectKey& key : objects) {
    const std::optional<std::string> policy = resource_policy(snapshot, key);
    if (!policy) {
      plan.deletions.push_back(std::move(key));
    } else if (*policy == "keep") {
      plan.notes.push_back(fmt::format("{} {} is kept: helm.sh/resource-policy=keep", key.kind, key.name));
      plan.kept.push_back(std::move(key));
    } else {
      // Helm neither deletes nor reports these (pkg/action/resource_policy.go); say so.
      plan.notes.push_back(fmt::format("{} {} is left in place, as Helm does: helm.sh/resource-policy={}", key.kind,
                                       key.name, *policy));
    }
  }
  // Then the release history, every revision, so `helm list` no longer shows the release.
  const model::HelmRelease& release = *install.release;
  std::vector<const model::HelmRelease*> revisions;
  for (const model::HelmRelease& r : snapshot.helm_releases)
    if (r.name == release.name && r.ns == release.ns) revisions.push_back(&r);
  std::sort(revisions.begin(), revisions.end(),
            [](const model::HelmRelease* a, const model::HelmRelease* b) { return a->revision < b->revision; });
  for (const model::HelmRelease* r : revisions) {
    const std::string secret = r->secret_name.empty()
                                   ? fmt::format("sh.helm.release.v1.{}.v{}", r->name, r->revision)
                                   : r->secret_name;
    plan.deletions.push_back({"v1", "Secret", r->ns, secret});
  }
  if (revisions.empty())
    plan.notes.push_back(fmt::format("the release Secrets of {} in {} were not in the snapshot: delete them with "
                                     "kubectl -n {} delete secrets -l owner=helm,name={}",
                                     release.name, release.ns, release.ns, release.name));
  plan.notes.push_back(fmt::format("Helm release {}/{} is removed the way `helm uninstall` does", release.ns, release.name));
}

// Bottlerocket settings for time-slicing (nvidia.md §7.2; the plural setting name).
std::string host_settings_text(int replicas) {
  return fmt::format("[settings.kubelet-device-plugins.nvidia]\n"
                     "device-sharing-strategy = \"time-slicing\"\n"
                     "[settings.kubelet-device-plugins.nvidia.time-slicing]\n"
                     "replicas = {}\n"
                     "rename-by-default = false\n"
                     "fail-requests-greater-than-one = false\n",
                     replicas);
}

} // namespace

int helm_uninstall_rank(std::string_view kind) {
  for (std::size_t i = 0; i < k_helm_uninstall_order.size(); ++i)
    if (k_helm_uninstall_order[i] == kind) return static_cast<int>(i);
  if (kind == k_helm_uninstall_last) return static_cast<int>(k_helm_uninstall_order.size());
  return static_cast<int>(k_helm_uninstall_order.size()) + 1;
}

UninstallPlan uninstall_plan(const DevicePluginInstall& install, const Snapshot& snapshot,
                             const PluginConfigTarget& target) {
  UninstallPlan plan;
  plan.kind = install.kind;
  switch (install.kind) {
  case PluginInstallKind::helm:
    if (install.release) {
      plan_helm(install, snapshot, plan);
    } else {
      plan.deletions = install.objects;
    }
    break;
  case PluginInstallKind::static_daemonset:
    plan.deletions.push_back({"apps/v1", "DaemonSet", install.ns, install.daemonset});
    plan.notes.push_back(fmt::format("static DaemonSet {}/{} (no owner, no Helm release) is deleted", install.ns,
                                     install.daemonset));
    break;
  case PluginInstallKind::gpu_operator:
    // The operator re-creates a deleted DaemonSet and overwrites edits: change its ClusterPolicy.
    plan.patch_target = ObjectKey{"nvidia.com/v1", "ClusterPolicy", "", install.cluster_policy};
    plan.patch = {{"spec", {{"devicePlugin", {{"config", {{"name", target.configmap},
                                                          {"default", target.default_config}}}}}}}};
    plan.notes.push_back(fmt::format("the device plugin belongs to the GPU Operator: nothing is deleted; "
                                     "ClusterPolicy {} is patched, and the ConfigMap must be in {}",
                                     install.cluster_policy, install.ns));
    plan.notes.push_back(fmt::format("the operator does not watch the ConfigMap: after changing it, run "
                                     "kubectl -n {} rollout restart daemonset/{}",
                                     install.ns, install.daemonset));
    break;
  case PluginInstallKind::host:
    plan.host_settings = host_settings_text(target.replicas);
    plan.notes.push_back(fmt::format("{} node(s) run the device plugin on the host (Bottlerocket): nothing is "
                                     "deleted; apply these settings in the node group's user data or with "
                                     "apiclient, and install no DaemonSet plugin beside it",
                                     install.host_nodes.size()));
    plan.notes.push_back("EKS Auto Mode node classes take no user data: time-slicing is not configurable there");
    break;
  }
  return plan;
}

} // namespace gpuslice::remedy
