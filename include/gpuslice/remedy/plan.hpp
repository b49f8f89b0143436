// SPDX-License-Identifier: Apache-2.0
// The remediation Plan (DESIGN §2, §4.3): ordered steps, each a list of changes to API objects
// with their before/after, computed by pure planners over a Snapshot. The executor
// (execute.hpp) carries a Plan out; nothing here does I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/remedy/platform.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::remedy {

enum class Action { create, patch, replace, remove };
// "create" | "patch" | "replace" | "delete".
std::string_view to_string(Action action);

// The object a change is about, and how the API addresses it.
struct TargetObject {
  std::string api_version;
  std::string kind;
  std::string ns; // "" for cluster-scoped kinds
  std::string name;
  kube::ResourceRef type;
  // Same object: apiVersion, kind, namespace and name (type follows from the kind).
  bool operator==(const TargetObject& other) const {
    return api_version == other.api_version && kind == other.kind && ns == other.ns && name == other.name;
  }
  // The object's URL path, e.g. /api/v1/nodes/n1.
  std::string path() const;
  // "Node/n1" or "ConfigMap/ns/name", for messages.
  std::string display() const;
  kube::ObjectRef ref() const { return {type, ns, name, ""}; }
};

// The resource of the kinds the steps touch (Node, ConfigMap, Deployment, StatefulSet,
// DaemonSet, ServiceAccount, Secret, ClusterRole, ClusterRoleBinding, Role, RoleBinding,
// Service, Namespace, ClusterPolicy); nullopt for others.
std::optional<kube::ResourceRef> resource_for_kind(std::string_view kind);
// A TargetObject for kind/ns/name; throws std::invalid_argument for a kind we do not know.
TargetObject target_for(std::string_view kind, std::string ns, std::string name);

// How a patch changes the live object, re-applied to what the server returns at run time so
// that a concurrent writer's changes are kept (read-modify-write with resourceVersion).
enum class EditKind {
  merge,          // value: a JSON merge patch (RFC 7386) applied to the object
  add_taint,      // value: a taint; appended to spec.taints unless one with key+effect is there
  add_toleration, // value: a toleration; appended to spec.template.spec.tolerations unless tolerated
  mount_plugin_config, // value: {"configmap","key","checksum"}; see mount_plugin_config() in plugin.hpp
};
struct Edit {
  EditKind kind = EditKind::merge;
  nlohmann::json value;
  bool operator==(const Edit&) const = default;
};

// The object with the edit applied (pure; the input is not modified).
nlohmann::json apply_edit(const Edit& edit, const nlohmann::json& object);

struct Change {
  Action action = Action::patch;
  TargetObject target;
  nlohmann::json before; // null when the object does not exist yet
  nlohmann::json after;  // null when the object goes away
  bool changed = false;  // false: already as wanted, nothing will be sent
  std::optional<Edit> edit; // patch: what to re-apply to the live object
  nlohmann::json object;    // create/replace: the object to send
  bool operator==(const Change&) const = default;
};

struct Step {
  std::string name;    // "config apply", "nodes label", "nodes taint", "workloads tolerate", …
  std::string summary; // one line: what the step does here
  std::vector<Change> changes;
  std::vector<std::string> notes; // facts the user must know (pods NoSchedule keeps, node-group settings, …)
  bool operator==(const Step&) const = default;
};

struct Plan {
  std::vector<Step> steps;
  // Set when the platform owns the device plugin: no steps, and apply changes nothing.
  std::optional<ManagedPlatform> platform;
  // Some change would send a request.
  bool has_changes() const;
  bool operator==(const Plan&) const = default;
};

// apply -o json: {"apiVersion":"gpuslice/v1alpha1","kind":"Plan","steps":[{"name","summary",
// "notes","changes":[{"action","object":{apiVersion,kind,namespace,name,path},"changed",
// "before","after"}]}]}; before/after only when with_objects (dry-run).
nlohmann::ordered_json plan_to_json(const Plan& plan, bool with_objects);

// ---- Step options and planners (pure: Snapshot + options → Step) ----

// `config apply`: the time-slicing ConfigMap.
struct ConfigApplyOptions {
  std::string name = "time-slicing-config";
  std::string ns;          // "" = the namespace of the installed device plugin, else nvidia-device-plugin
  std::string key = "any"; // the config name: a ConfigMap key, as NVIDIA's samples use
  int replicas = 0;
  bool rename_by_default = false;
  bool fail_requests_greater_than_one = false;
  std::string resource = "nvidia.com/gpu";
  std::string from_file_text; // a full config given with --from-file (replaces the generated one)
  std::string from_file_name; // for error messages
  bool namespace_exists = true; // false: the config step creates the namespace first (see read_config_target)
};

// The plugin config text the options describe (--from-file's text, or a generated one).
std::string time_slicing_config_text(const ConfigApplyOptions& options);
// The namespace the ConfigMap goes to when options.ns is empty.
std::string config_namespace(const Snapshot& snapshot, const ConfigApplyOptions& options);
// Creates the ConfigMap or patches its key. Throws UsageError when the config fails the
// plugin's schema (the message names the path of the bad key) or replicas < 2.
Step plan_config_apply(const Snapshot& snapshot, const ConfigApplyOptions& options);

// Which GPU nodes a node step touches.
struct NodeSelection {
  std::string selector;            // label selector, e.g. node.kubernetes.io/instance-type=g4dn.xlarge
  std::vector<std::string> nodes;  // names; with neither: every GPU node (model::is_gpu_node)
};
// The selected nodes, in snapshot order. Throws UsageError for a bad selector or an unknown name.
std::vector<const model::Node*> select_nodes(const Snapshot& snapshot, const NodeSelection& selection);

// `nodes label`: nvidia.com/gpu.present=true on the selected nodes.
Step plan_nodes_label(const Snapshot& snapshot, const NodeSelection& selection);

struct TaintOptions {
  std::string key = "nvidia.com/gpu";
  std::string value = "true";
  std::string effect = "NoSchedule";
};
// `nodes taint`: the taint on the selected nodes; notes list the non-GPU pods already there and
// the node-group settings (eksctl, EKS managed node group, ASG tags) new nodes need.
Step plan_nodes_taint(const Snapshot& snapshot, const NodeSelection& selection, const TaintOptions& taint);

struct WorkloadSelection {
  std::string selector;                 // label selector on the workloads
  std::vector<std::string> deployments; // "ns/name"
};
// `workloads tolerate`: adds the toleration of `taint` to GPU Deployments and StatefulSets whose
// pods (as the API returned them) or, without pods, whose template does not tolerate it.
Step plan_workloads_tolerate(const Snapshot& snapshot, const WorkloadSelection& selection,
                             const TaintOptions& taint);

// How `plugin install` (and apply's plugin step) brings the plugin to read the config.
enum class PluginStrategy {
  automatic,   // reconfigure an installed plugin in place; install natively when there is none
  reconfigure, // only re-point installed plugins; install none
  replace,     // uninstall installed plugins (not the GPU Operator's, not ours), then install natively
};
struct PluginStepOptions {
  PluginStrategy strategy = PluginStrategy::automatic;
  bool helm_installer = false; // --installer helm: the install is the helm command, run by the CLI
  std::string image = "nvcr.io/nvidia/k8s-device-plugin";
  std::string version = "v0.20.0"; // pinned: chart 0.20.0's appVersion
  std::string release = "nvdp";    // names as the chart's: <release>-nvidia-device-plugin
  bool gfd_enabled = false;
};

// `plugin install`: the device plugin wired to the config of `config`. GPU Operator: a
// ClusterPolicy patch of spec.devicePlugin.config (its DaemonSet is never touched); a Helm or
// static DaemonSet: re-pointed in place (the ConfigMap mounted, CONFIG_FILE, a pod-template
// checksum so the pods restart), with the helm upgrade command as a note for Helm; none (or
// strategy replace): a native install (ServiceAccount, RBAC, DaemonSet) after deleting the old
// one; a host plugin (Bottlerocket): no change, the node settings as notes. A plugin already
// reading this config with this content plans no change.
Step plan_plugin_install(const Snapshot& snapshot, const ConfigApplyOptions& config, const PluginStepOptions& options);
// `plugin uninstall`: deletes the installed plugins as their installer would (Helm release
// objects in Helm's order and the release Secrets; a static DaemonSet); the GPU Operator's and
// host plugins are reported, never deleted.
Step plan_plugin_uninstall(const Snapshot& snapshot);
// The helm command `--installer helm` runs (argv, without a shell) for this plan's install,
// empty when the plan installs nothing with helm.
std::vector<std::string> helm_install_argv(const Snapshot& snapshot, const ConfigApplyOptions& config,
                                           const PluginStepOptions& options);

// `apply`: every step in a safe order (labels before the plugin, config before the plugin).
struct ApplyOptions {
  ConfigApplyOptions config;
  PluginStepOptions plugin;
  bool configure_plugin = true;
  NodeSelection nodes;
  TaintOptions taint;
  WorkloadSelection workloads;
  bool taint_nodes = true;
  bool tolerate_workloads = true;
};
Plan plan_apply(const Snapshot& snapshot, const ApplyOptions& options);
// The plan of a step that configures the device plugin where the platform owns it: no step,
// `platform` set (apply, plugin install|uninstall, config apply). nullopt where it is ours.
std::optional<Plan> plan_platform_refusal(const Snapshot& snapshot, int replicas);

} // namespace gpuslice::remedy
