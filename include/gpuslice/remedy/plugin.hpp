// SPDX-License-Identifier: Apache-2.0
// The NVIDIA device plugin as the remedy steps see it (reference/nvidia.md §2–§7): how it is
// installed now, how to remove it, and the manifests of a native install wired to a
// time-slicing ConfigMap. Pure functions over a Snapshot: values in, JSON values out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

// How the device plugin got onto the cluster.
enum class PluginInstallKind {
  helm,             // a Helm release of the nvidia-device-plugin chart
  static_daemonset, // a DaemonSet applied by hand or by eksctl (no owner, no Helm metadata)
  gpu_operator,     // the GPU Operator's DaemonSet (controller owner: ClusterPolicy)
  host,             // on the node itself: Bottlerocket NVIDIA variants, EKS Auto Mode
};
std::string_view to_string(PluginInstallKind kind);

// An API object by identity, with the apiVersion a client needs to address it.
struct ObjectKey {
  std::string api_version;
  std::string kind;
  std::string ns; // "" for cluster-scoped kinds
  std::string name;
  bool operator==(const ObjectKey&) const = default;
};

// Which time-slicing config the plugin reads: ConfigMap (in the plugin's namespace) and the
// key used on nodes without the nvidia.com/device-plugin.config label.
struct PluginConfigRef {
  std::string ns;
  std::string configmap;
  std::string default_config; // "" when the plugin leaves it to its fallbacks
  bool operator==(const PluginConfigRef&) const = default;
};

// One installed device plugin.
struct DevicePluginInstall {
  PluginInstallKind kind = PluginInstallKind::static_daemonset;
  std::string ns;                          // namespace of the DaemonSet / release ("" for host)
  std::string daemonset;                   // the plugin DaemonSet ("" for host)
  std::optional<model::HelmRelease> release; // helm: the latest revision
  std::string cluster_policy;              // gpu_operator: the ClusterPolicy's name
  std::vector<std::string> host_nodes;     // host: the GPU nodes running it on the host
  std::optional<PluginConfigRef> config;   // the config it reads now, if any
  std::vector<ObjectKey> objects;          // what makes up the install (helm: the manifest)
  bool operator==(const DevicePluginInstall&) const = default;
};

// Every device plugin in the snapshot, DaemonSet-based ones sorted by namespace/name, then one
// `host` entry for the GPU nodes that run it on the host (if any). Empty when none is found.
std::vector<DevicePluginInstall> detect_device_plugins(const Snapshot& snapshot);

// What the time-slicing setup wants from the plugin.
struct PluginConfigTarget {
  std::string ns = "nvidia-device-plugin"; // where our ConfigMap and a native install live
  std::string configmap = "nvidia-device-plugin-config";
  std::string default_config = "any";      // the ConfigMap key (a config name, never YAML)
  std::string config_text;                 // the key's content, for the pod-template checksum
  int replicas = 0;                        // for host-level settings text
};

// Removing (or, for the operator and the host, re-pointing) an installed plugin.
struct UninstallPlan {
  PluginInstallKind kind = PluginInstallKind::static_daemonset;
  std::vector<ObjectKey> deletions;  // in the order to delete them
  std::vector<ObjectKey> kept;       // helm.sh/resource-policy: keep — left in place, as Helm does
  std::optional<ObjectKey> patch_target;  // gpu_operator: the ClusterPolicy
  nlohmann::json patch;                   // gpu_operator: merge patch of spec.devicePlugin.config
  std::string host_settings;              // host: the Bottlerocket settings (TOML) to apply on nodes
  std::vector<std::string> notes;         // why, in one line each, for the plan's output
};

// The uninstall plan of one install. helm: the release's manifest objects in Helm's
// UninstallOrder (unknown kinds last, by name), minus those whose live object in the snapshot
// carries helm.sh/resource-policy=keep, then every revision's release Secret; static: the
// DaemonSet; gpu_operator: nothing deleted, a ClusterPolicy patch to `target` instead; host:
// nothing deleted, the settings text for `target.replicas`.
UninstallPlan uninstall_plan(const DevicePluginInstall& install, const Snapshot& snapshot,
                             const PluginConfigTarget& target);

// Helm's uninstall rank of a kind (lower is deleted first); unknown kinds rank after all.
int helm_uninstall_rank(std::string_view kind);
// The apiVersion of the kinds a device-plugin install holds (apps/v1 for DaemonSet, …); "v1"
// for anything unknown.
std::string api_version_of(std::string_view kind);

// Options of a native (Helm-free) install equivalent to the official chart's rendering.
struct PluginInstallOptions {
  std::string ns = "nvidia-device-plugin";
  std::string release = "nvdp";              // names as the chart: <release>-nvidia-device-plugin
  std::string image = "nvcr.io/nvidia/k8s-device-plugin";
  std::string version = "v0.20.0";           // chart 0.20.0's appVersion
  std::string configmap;                     // config.name ("" = no config: plain plugin)
  std::string default_config;                // config.default
  std::string config_text;                   // content behind default_config, for the checksum
  bool gfd_enabled = false;                  // also the gpu-feature-discovery DaemonSet
};

inline constexpr std::string_view k_config_checksum_annotation = "gpuslice.dev/config-checksum";
inline constexpr std::string_view k_pinned_plugin_version = "v0.20.0";
// The volume and directory mount_plugin_config() adds to a re-pointed plugin DaemonSet.
inline constexpr std::string_view k_mounted_config_volume = "gpuslice-time-slicing-config";
inline constexpr std::string_view k_mounted_config_dir = "/etc/gpuslice/time-slicing";

// The objects to apply, in apply order: ServiceAccount, ClusterRole, ClusterRoleBinding,
// device-plugin DaemonSet, and the GFD DaemonSet when gfd_enabled. Throws UsageError for an
// empty namespace, the `default` namespace (the chart refuses it) or a default_config without
// configmap.
std::vector<nlohmann::json> install_manifests(const PluginInstallOptions& options);

// The `<release>-nvidia-device-plugin` name the chart gives (the release name alone when it
// already contains nvidia-device-plugin), cut to 63 characters.
std::string chart_fullname(std::string_view release);

// A stable hex digest of the config text (FNV-1a 64): the pod-template annotation value that
// changes when the ConfigMap content changes, so the DaemonSet rolls its pods.
std::string config_checksum(std::string_view config_text);

// A STRATEGIC-merge patch (Content-Type application/strategic-merge-patch+json; a JSON merge
// patch would replace the container list) of an existing plugin DaemonSet (static or
// Helm-installed) that points it at the ConfigMap the chart's way: config-manager init and
// sidecar containers, CONFIG_FILE, the available-configs/config volumes,
// shareProcessNamespace, and the checksum annotation. The main container is matched by its
// name in `daemonset`. Throws UsageError when options.configmap is empty.
nlohmann::json reconfigure_patch(const model::DaemonSet& daemonset, const PluginInstallOptions& options);

// The same edit applied to the live DaemonSet object (for a read-modify-write PUT): containers,
// init containers and volumes replaced or added by name, env by name, mounts by mountPath;
// everything else kept. The input is not modified. Same errors as reconfigure_patch.
nlohmann::json reconfigure_daemonset(const nlohmann::json& live_daemonset, const PluginInstallOptions& options);

// The live plugin (or GFD) DaemonSet re-pointed at a ConfigMap key without a config-manager:
// `edit` is {"configmap","key","checksum"}; the key is mounted as k_mounted_config_dir/config.yaml
// in the plugin container and in a gpu-feature-discovery container (GFD reads the same file the
// same way), CONFIG_FILE names it, and the pod template gets the checksum
// annotation (a new value rolls the pods). Entries that already hold what is wanted are kept
// as they are (server defaults included), so applying it twice changes nothing the second
// time. The input is not modified.
nlohmann::json mount_plugin_config(const nlohmann::json& live_daemonset, const nlohmann::json& edit);

// The ConfigMap a DaemonSet-run plugin or GFD reads its config from now: a configMap volume of a
// pod that reads a config file, with the config-manager's DEFAULT_CONFIG as the default key.
std::optional<PluginConfigRef> daemonset_config(const model::DaemonSet& ds);

// The helm command that reconfigures (or installs) a release on the official chart:
// `helm upgrade --install <release> nvdp/nvidia-device-plugin -n <ns> --version <chart>
//  --reuse-values --set config.name=<cm>,config.default=<key>` — never config.map.
std::string helm_upgrade_command(const model::HelmRelease& release, const PluginInstallOptions& options);

} // namespace gpuslice::remedy
