// SPDX-License-Identifier: Apache-2.0
// How the device plugin is installed (reference/nvidia.md §2.6, §3, §5.2, §7.2): by Helm,
// as a static DaemonSet, by the GPU Operator, or on the node's host.
#include <algorithm>

#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

constexpr std::string_view k_helm_release_name = "meta.helm.sh/release-name";
constexpr std::string_view k_helm_release_namespace = "meta.helm.sh/release-namespace";

bool managed_by_helm(const model::ObjectMeta& meta) {
  return meta.label("app.kubernetes.io/managed-by") == "Helm" || meta.annotation(k_helm_release_name).has_value();
}

// The newest revision of the release `name` in `ns`, if the snapshot holds its Secret.
std::optional<model::HelmRelease> latest_release(const Snapshot& snapshot, std::string_view name, std::string_view ns) {
  const model::HelmRelease* latest = nullptr;
  for (const model::HelmRelease& r : snapshot.helm_releases)
    if (r.name == name && r.ns == ns && (!latest || r.revision > latest->revision)) latest = &r;
  if (!latest) return std::nullopt;
  return *latest;
}

// A release whose manifest holds this DaemonSet (for objects that lost their Helm metadata).
const model::HelmRelease* release_holding(const Snapshot& snapshot, const model::DaemonSet& ds) {
  for (const model::HelmRelease& r : snapshot.helm_releases)
    for (const model::ManifestObject& o : r.manifest)
      if (o.kind == "DaemonSet" && o.name == ds.meta.name && (o.ns.empty() ? r.ns : o.ns) == ds.meta.ns) return &r;
  return nullptr;
}

// The env value of `name` on any container or init container ("" when unset).
std::string template_env(const model::PodSpec& spec, std::string_view name) {
  for (const auto* containers : {&spec.containers, &spec.init_containers})
    for (const model::Container& c : *containers)
      for (const model::EnvVar& e : c.env)
        if (e.name == name && !e.value.empty()) return e.value;
  return "";
}

ObjectKey manifest_key(const model::ManifestObject& o, const std::string& release_ns) {
  const bool cluster_scoped = api_version_of(o.kind).starts_with("rbac") && o.kind.starts_with("Cluster");
  const bool other_cluster_scoped = o.kind == "Namespace" || o.kind == "CustomResourceDefinition" ||
                                    o.kind == "PriorityClass" || o.kind == "PersistentVolume" ||
                                    o.kind == "StorageClass";
  std::string ns = (cluster_scoped || other_cluster_scoped) ? "" : (o.ns.empty() ? release_ns : o.ns);
  return {api_version_of(o.kind), o.kind, std::move(ns), o.name};
}

DevicePluginInstall install_from_daemonset(const Snapshot& snapshot, const model::DaemonSet& ds) {
  DevicePluginInstall install;
  install.ns = ds.meta.ns;
  install.daemonset = ds.meta.name;
  const ObjectKey self{"apps/v1", "DaemonSet", ds.meta.ns, ds.meta.name};
  if (model::is_operator_managed(ds.meta)) {
    install.kind = PluginInstallKind::gpu_operator;
    install.cluster_policy = ds.meta.controller()->name;
    install.objects = {self};
    for (const model::ClusterPolicy& p : snapshot.cluster_policies)
      if (p.meta.name == install.cluster_policy && !p.config_name.empty())
        install.config = PluginConfigRef{ds.meta.ns, p.config_name, p.config_default};
    return install;
  }
  install.config = daemonset_config(ds);
  const model::HelmRelease* holding = release_holding(snapshot, ds);
  if (managed_by_helm(ds.meta) || holding) {
    install.kind = PluginInstallKind::helm;
    std::string name(ds.meta.annotation(k_helm_release_name).value_or(ds.meta.label("app.kubernetes.io/instance").value_or("")));
    std::string ns(ds.meta.annotation(k_helm_release_namespace).value_or(ds.meta.ns));
    if (name.empty() && holding) name = holding->name;
    install.release = latest_release(snapshot, name, ns);
    if (!install.release) {
      // Helm metadata without the release Secret (unreadable, or deleted by hand): what we know.
      model::HelmRelease known;
      known.name = name;
      known.ns = ns;
      install.release = known;
    }
    for (const model::ManifestObject& o : install.release->manifest)
      install.objects.push_back(manifest_key(o, install.release->ns));
    if (install.objects.empty()) install.objects = {self};
    return install;
  }
  install.kind = PluginInstallKind::static_daemonset;
  install.objects = {self};
  return install;
}

} // namespace

std::optional<PluginConfigRef> daemonset_config(const model::DaemonSet& ds) {
  if (!model::reads_config_file(ds)) return std::nullopt;
  for (const model::Volume& v : ds.pod_template.spec.volumes) {
    if (v.config_map.empty()) continue;
    PluginConfigRef ref{ds.meta.ns, v.config_map, template_env(ds.pod_template.spec, "DEFAULT_CONFIG")};
    if (ref.default_config.empty() && v.items.size() == 1) ref.default_config = v.items.front();
    return ref;
  }
  return std::nullopt;
}

std::string_view to_string(PluginInstallKind kind) {
  switch (kind) {
  case PluginInstallKind::helm: return "helm";
  case PluginInstallKind::static_daemonset: return "static";
  case PluginInstallKind::gpu_operator: return "gpu-operator";
  case PluginInstallKind::host: return "host";
  }
  return "unknown";
}

std::vector<DevicePluginInstall> detect_device_plugins(const Snapshot& snapshot) {
  std::vector<DevicePluginInstall> found;
  std::vector<const model::DaemonSet*> plugins;
  for (const model::DaemonSet& ds : snapshot.daemonsets)
    if (model::recognise_gpu_addon(ds) == model::GpuAddon::device_plugin) plugins.push_back(&ds);
  std::sort(plugins.begin(), plugins.end(), [](const model::DaemonSet* a, const model::DaemonSet* b) {
    return std::tie(a->meta.ns, a->meta.name) < std::tie(b->meta.ns, b->meta.name);
  });
  for (const model::DaemonSet* ds : plugins) found.push_back(install_from_daemonset(snapshot, *ds));

  DevicePluginInstall host;
  host.kind = PluginInstallKind::host;
  for (const model::Node& node : snapshot.nodes)
    if (model::is_gpu_node(node) && model::runs_host_device_plugin(node)) host.host_nodes.push_back(node.name());
  std::sort(host.host_nodes.begin(), host.host_nodes.end());
  if (!host.host_nodes.empty()) found.push_back(std::move(host));
  return found;
}

std::string api_version_of(std::string_view kind) {
  if (kind == "DaemonSet" || kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") return "apps/v1";
  if (kind == "ClusterRole" || kind == "ClusterRoleBinding" || kind == "Role" || kind == "RoleBinding")
    return "rbac.authorization.k8s.io/v1";
  if (kind == "PriorityClass") return "scheduling.k8s.io/v1";
  if (kind == "CustomResourceDefinition") return "apiextensions.k8s.io/v1";
  if (kind == "StorageClass") return "storage.k8s.io/v1";
  if (kind == "Job") return "batch/v1";
  if (kind == "CronJob") return "batch/v1";
  if (kind == "PodDisruptionBudget") return "policy/v1";
  if (kind == "ClusterPolicy") return "nvidia.com/v1";
  if (kind == "NodeFeatureRule") return "nfd.k8s-sigs.io/v1alpha1";
  return "v1";
}

} // namespace gpuslice::remedy
