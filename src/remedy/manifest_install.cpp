// SPDX-License-Identifier: Apache-2.0
// A native install of the device plugin equal to what chart 0.20.0 renders for config.name /
// config.default / gfd.enabled (reference/nvidia.md §2.3, §2.6), without Helm.
#include <cstdint>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/remedy/plugin.hpp>

#include "remedy/manifest_parts.hpp"

namespace gpuslice::remedy {

namespace {

using nlohmann::json;

bool has_plugin_config(const PluginInstallOptions& options) {
  return !options.configmap.empty();
}

std::string chart_app_version(const PluginInstallOptions& options) {
  return options.version.starts_with('v') ? options.version.substr(1) : options.version;
}

json chart_selector_labels(const PluginInstallOptions& options) {
  return {{"app.kubernetes.io/name", "nvidia-device-plugin"}, {"app.kubernetes.io/instance", options.release}};
}

// The chart's labels, except managed-by: these objects are ours, not a Helm release's.
json chart_object_labels(const PluginInstallOptions& options) {
  json labels = chart_selector_labels(options);
  labels["app.kubernetes.io/version"] = chart_app_version(options);
  labels["app.kubernetes.io/managed-by"] = "kubectl-gpuslice";
  return labels;
}

json manifest_metadata(const PluginInstallOptions& options, const std::string& name, bool namespaced) {
  json meta = {{"name", name}, {"labels", chart_object_labels(options)}};
  if (namespaced) meta["namespace"] = options.ns;
  return meta;
}

std::string service_account_name(const PluginInstallOptions& options) {
  return chart_fullname(options.release) + "-service-account";
}

// Chart ≥ 0.15 places the plugin only on nodes with one of these labels (§2.2).
json gpu_node_affinity() {
  auto term = [](std::string_view key, std::string_view value) {
    return json{{"matchExpressions", json::array({{{"key", key}, {"operator", "In"}, {"values", {value}}}})}};
  };
  return {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms", json::array({term("feature.node.kubernetes.io/pci-10de.present", "true"),
                                                 term("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
                                                 term("nvidia.com/gpu.present", "true")})}}}}}};
}

json chart_tolerations() {
  return json::array({{{"key", "CriticalAddonsOnly"}, {"operator", "Exists"}},
                      {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
}

json manifest_host_path(std::string_view name, std::string_view path, std::string_view type = "") {
  json source = {{"path", path}};
  if (!type.empty()) source["type"] = type;
  return {{"name", name}, {"hostPath", std::move(source)}};
}

json manifest_env(std::string_view name, std::string_view value) {
  return {{"name", name}, {"value", value}};
}

json service_account(const PluginInstallOptions& options) {
  return {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", manifest_metadata(options, service_account_name(options), true)}};
}

json cluster_role(const PluginInstallOptions& options) {
  json rules = json::array({{{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"get", "list", "watch"}}}});
  if (options.gfd_enabled) {
    rules.push_back({{"apiGroups", {"nfd.k8s-sigs.io"}}, {"resources", {"nodefeatures"}},
                     {"verbs", {"get", "list", "watch", "create", "update"}}});
    rules.push_back({{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}});
  }
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
          {"metadata", manifest_metadata(options, chart_fullname(options.release) + "-role", false)}, {"rules", rules}};
}

json cluster_role_binding(const PluginInstallOptions& options) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", manifest_metadata(options, chart_fullname(options.release) + "-role-binding", false)},
          {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", service_account_name(options)},
                                     {"namespace", options.ns}}})},
          {"roleRef", {{"kind", "ClusterRole"}, {"name", chart_fullname(options.release) + "-role"},
                       {"apiGroup", "rbac.authorization.k8s.io"}}}};
}

// The DaemonSet frame both pods share: selector, update strategy, placement, service account,
// and with a config the checksum annotation and a shared PID namespace for the sidecar's signal.
json daemonset_frame(const PluginInstallOptions& options, const std::string& name, json selector) {
  json pod_meta = {{"labels", selector}};
  if (has_plugin_config(options))
    pod_meta["annotations"] = {{std::string(k_config_checksum_annotation), config_checksum(options.config_text)}};
  json spec = {{"priorityClassName", "system-node-critical"},
               {"serviceAccountName", service_account_name(options)},
               {"securityContext", json::object()},
               {"affinity", gpu_node_affinity()},
               {"tolerations", chart_tolerations()}};
  if (has_plugin_config(options)) spec["shareProcessNamespace"] = true;
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", manifest_metadata(options, name, true)},
          {"spec", {{"selector", {{"matchLabels", selector}}},
                    {"updateStrategy", {{"type", "RollingUpdate"}}},
                    {"template", {{"metadata", pod_meta}, {"spec", spec}}}}}};
}

json plugin_daemonset(const PluginInstallOptions& options) {
  const bool config = has_plugin_config(options);
  json ds = daemonset_frame(options, chart_fullname(options.release), chart_selector_labels(options));
  json& spec = ds["spec"]["template"]["spec"];
  json env = json::array({manifest_env("MPS_ROOT", "/run/nvidia/mps")});
  if (config) {
    env.push_back(manifest_env("CONFIG_FILE", manifest::k_config_file));
    env.push_back(manifest_env("NVIDIA_MIG_MONITOR_DEVICES", "all"));
  }
  env.push_back(manifest_env("NVIDIA_VISIBLE_DEVICES", "all"));
  env.push_back(manifest_env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"));
  // With a config the chart assumes MIG may be on and adds SYS_ADMIN (§2.3 securityContext).
  const json security = config ? json{{"capabilities", {{"add", {"SYS_ADMIN"}}}}}
                               : json{{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", {"ALL"}}}}};
  json mounts = json::array({{{"name", "kubelet-device-plugins-dir"}, {"mountPath", "/var/lib/kubelet/device-plugins"}},
                             {{"name", "mps-shm"}, {"mountPath", "/dev/shm"}},
                             {{"name", "mps-root"}, {"mountPath", "/mps"}},
                             {{"name", "cdi-root"}, {"mountPath", "/var/run/cdi"}}});
  json volumes = json::array({manifest_host_path("kubelet-device-plugins-dir", "/var/lib/kubelet/device-plugins", "Directory"),
                              manifest_host_path("mps-root", "/run/nvidia/mps", "DirectoryOrCreate"),
                              manifest_host_path("mps-shm", "/run/nvidia/mps/shm"),
                              manifest_host_path("cdi-root", "/var/run/cdi", "DirectoryOrCreate")});
  json containers = json::array();
  if (config) {
    for (const json& m : manifest::config_volume_mounts()) mounts.push_back(m);
    for (const json& v : manifest::config_volumes(options)) volumes.push_back(v);
    spec["initContainers"] = json::array(
        {manifest::config_manager_container(options, "nvidia-device-plugin-init", false, "")});
    containers.push_back(
        manifest::config_manager_container(options, "nvidia-device-plugin-sidecar", true, "nvidia-device-plugin"));
  }
  containers.push_back({{"name", "nvidia-device-plugin-ctr"},
                        {"image", manifest::image_ref(options)},
                        {"imagePullPolicy", "IfNotPresent"},
                        {"command", {"nvidia-device-plugin"}},
                        {"env", env},
                        {"securityContext", security},
                        {"volumeMounts", mounts}});
  spec["containers"] = containers;
  spec["volumes"] = volumes;
  return ds;
}

// GFD as the chart renders it with gfd.enabled. Its labels reach nodes through NFD (the chart's
// subchart, NodeFeature API by default since v0.19), which this manifest does not install.
json gfd_daemonset(const PluginInstallOptions& options) {
  const bool config = has_plugin_config(options);
  json selector = chart_selector_labels(options);
  selector["app.kubernetes.io/name"] = "gpu-feature-discovery";
  json ds = daemonset_frame(options, chart_fullname(options.release) + "-gpu-feature-discovery", selector);
  json& spec = ds["spec"]["template"]["spec"];
  json env = json::array({{{"name", "NODE_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}},
                          {{"name", "NAMESPACE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}}});
  if (config) env.push_back(manifest_env("CONFIG_FILE", manifest::k_config_file));
  json mounts = json::array({{{"name", "output-dir"}, {"mountPath", "/etc/kubernetes/node-feature-discovery/features.d"}},
                             {{"name", "host-sys"}, {"mountPath", "/sys"}}});
  json volumes = json::array({manifest_host_path("output-dir", "/etc/kubernetes/node-feature-discovery/features.d"),
                              manifest_host_path("host-sys", "/sys")});
  json containers = json::array();
  if (config) {
    for (const json& m : manifest::config_volume_mounts()) mounts.push_back(m);
    for (const json& v : manifest::config_volumes(options)) volumes.push_back(v);
    spec["initContainers"] = json::array(
        {manifest::config_manager_container(options, "gpu-feature-discovery-init", false, "")});
    containers.push_back(
        manifest::config_manager_container(options, "gpu-feature-discovery-sidecar", true, "gpu-feature-discovery"));
  }
  containers.push_back({{"name", "gpu-feature-discovery-ctr"},
                        {"image", manifest::image_ref(options)},
                        {"imagePullPolicy", "IfNotPresent"},
                        {"command", {"gpu-feature-discovery"}},
                        {"env", env},
                        {"securityContext", {{"privileged", true}}},
                        {"volumeMounts", mounts}});
  spec["containers"] = containers;
  spec["volumes"] = volumes;
  return ds;
}

} // namespace

std::string chart_fullname(std::string_view release) {
  std::string name = release.find("nvidia-device-plugin") != std::string_view::npos
                         ? std::string(release)
                         : fmt::format("{}-nvidia-device-plugin", release);
  if (name.size() > 63) name.resize(63);
  while (!name.empty() && name.back() == '-') name.pop_back(); // the chart's trimSuffix "-"
  return name;
}

std::string config_checksum(std::string_view config_text) {
  std::uint64_t hash = 14695981039346656037ULL; // FNV-1a 64: change detection, not security
  for (unsigned char c : config_text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::vector<nlohmann::json> install_manifests(const PluginInstallOptions& options) {
  if (options.ns.empty()) throw UsageError("device plugin namespace: must not be empty");
  if (options.ns == "default")
    throw UsageError("device plugin namespace \"default\": the chart refuses it; choose another namespace");
  if (options.release.empty()) throw UsageError("device plugin release name: must not be empty");
  if (!options.default_config.empty() && options.configmap.empty())
    throw UsageError(fmt::format("config default \"{}\": needs a ConfigMap name", options.default_config));
  std::vector<json> objects = {service_account(options), cluster_role(options), cluster_role_binding(options),
                               plugin_daemonset(options)};
  if (options.gfd_enabled) objects.push_back(gfd_daemonset(options));
  return objects;
}

} // namespace gpuslice::remedy
