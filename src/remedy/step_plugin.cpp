// SPDX-License-Identifier: Apache-2.0
// `plugin install` / `plugin uninstall` and apply's plugin step: bring the device plugin to read
// the time-slicing config the way its installer allows (reference/nvidia.md §2.6, §3, §5, §7.2).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gpuslice/error.hpp>
#include <gpuslice/model/addons.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/remedy/plugin.hpp>

namespace gpuslice::remedy {

namespace {

bool installed_by_us(const DevicePluginInstall& install, const Snapshot& snapshot) {
  for (const model::DaemonSet& ds : snapshot.daemonsets)
    if (ds.meta.ns == install.ns && ds.meta.name == install.daemonset)
      return ds.meta.label("app.kubernetes.io/managed-by") == "kubectl-gpuslice";
  return false;
}

const model::DaemonSet* find_plugin_daemonset(const Snapshot& snapshot, const DevicePluginInstall& install) {
  for (const model::DaemonSet& ds : snapshot.daemonsets)
    if (ds.meta.ns == install.ns && ds.meta.name == install.daemonset) return &ds;
  return nullptr;
}

// What identifies an object in a plan shown before the live read (the executor reads it).
nlohmann::json object_stub(const TargetObject& target) {
  nlohmann::json meta = {{"name", target.name}};
  if (!target.ns.empty()) meta["namespace"] = target.ns;
  return {{"apiVersion", target.api_version}, {"kind", target.kind}, {"metadata", meta}};
}

struct PluginTarget {
  std::string ns;
  std::string configmap;
  std::string key;
  std::string text;
  std::string checksum;
};

PluginTarget plugin_target(const Snapshot& snapshot, const ConfigApplyOptions& config) {
  PluginTarget target{config_namespace(snapshot, config), config.name, config.key, time_slicing_config_text(config), ""};
  target.checksum = config_checksum(target.text);
  return target;
}

PluginInstallOptions native_options(const PluginTarget& target, const PluginStepOptions& options) {
  PluginInstallOptions install;
  install.ns = target.ns;
  install.release = options.release;
  install.image = options.image;
  install.version = options.version;
  install.configmap = target.configmap;
  install.default_config = target.key;
  install.config_text = target.text;
  install.gfd_enabled = options.gfd_enabled;
  return install;
}

// Whether the DaemonSet (plugin or GFD) already reads the target config with this content:
// the checksum, and the ConfigMap it reads (`reads`) or the one our mount edit put there.
bool daemonset_wired(const model::DaemonSet& ds, const std::optional<PluginConfigRef>& reads, const PluginTarget& target) {
  const auto checksum = ds.pod_template.annotations.find(std::string(k_config_checksum_annotation));
  if (checksum == ds.pod_template.annotations.end() || checksum->second != target.checksum) return false;
  if (reads && reads->ns == target.ns && reads->configmap == target.configmap && reads->default_config == target.key)
    return true;
  return std::any_of(ds.pod_template.spec.volumes.begin(), ds.pod_template.spec.volumes.end(), [&](const model::Volume& v) {
    return v.name == k_mounted_config_volume && v.config_map == target.configmap &&
           v.items == std::vector<std::string>{target.key};
  });
}

// The patch that mounts the target config into DaemonSet ns/name (`ds` as read; null when the
// snapshot lacks it, and the executor reads it), changed unless it is wired already.
Change mount_change(const std::string& ns, const std::string& name, const model::DaemonSet* ds,
                    const std::optional<PluginConfigRef>& reads, const PluginTarget& target) {
  Change change;
  change.action = Action::patch;
  change.target = target_for("DaemonSet", ns, name);
  change.edit = Edit{EditKind::mount_plugin_config,
                     {{"configmap", target.configmap}, {"key", target.key}, {"checksum", target.checksum}}};
  if (ds != nullptr) {
    change.before = model::to_json(*ds);
    change.before["metadata"].erase("resourceVersion");
    change.before.erase("status");
    change.changed = !daemonset_wired(*ds, reads, target);
  } else {
    change.before = object_stub(change.target);
    change.changed = true;
  }
  change.after = apply_edit(*change.edit, change.before);
  return change;
}

bool step_removes(const Step& step, const model::DaemonSet& ds) {
  return std::any_of(step.changes.begin(), step.changes.end(), [&](const Change& c) {
    return c.action == Action::remove && c.target.kind == "DaemonSet" && c.target.ns == ds.meta.ns &&
           c.target.name == ds.meta.name;
  });
}

// Patches every GFD DaemonSet the plan keeps (not the operator's: its ClusterPolicy config is
// GFD's too) to read the target; one in another namespace cannot mount it and is named.
void add_gfd_repoints(Step& step, const Snapshot& snapshot, const PluginTarget& target) {
  for (const model::DaemonSet& ds : snapshot.daemonsets) {
    // Ours (a native install with --gfd) is wired by its manifest, which the install step re-applies.
    if (model::recognise_gpu_addon(ds) != model::GpuAddon::feature_discovery || model::is_operator_managed(ds.meta) ||
        ds.meta.label("app.kubernetes.io/managed-by") == "kubectl-gpuslice" || step_removes(step, ds))
      continue;
    if (ds.meta.ns != target.ns) {
      step.notes.push_back(fmt::format("GFD DaemonSet {}/{} cannot mount the ConfigMap in {}: its nvidia.com/gpu.replicas "
                                       "labels keep the old count (pass --config-namespace {} to re-point it too)",
                                       ds.meta.ns, ds.meta.name, target.ns, ds.meta.ns));
      continue;
    }
    // GFD reads the same config file as the plugin (the chart wires both to config.name).
    step.changes.push_back(mount_change(ds.meta.ns, ds.meta.name, &ds, daemonset_config(ds), target));
    step.notes.push_back(fmt::format("GFD DaemonSet {}/{} reads the same ConfigMap {} key {}, so its "
                                     "nvidia.com/gpu.replicas and sharing-strategy labels follow the plugin's",
                                     ds.meta.ns, ds.meta.name, target.configmap, target.key));
  }
}

void add_reconfigure(Step& step, const Snapshot& snapshot, const DevicePluginInstall& install, const PluginTarget& target,
                     const PluginStepOptions& options) {
  step.changes.push_back(
      mount_change(install.ns, install.daemonset, find_plugin_daemonset(snapshot, install), install.config, target));
  step.notes.push_back(fmt::format("DaemonSet {}/{} ({}) reads ConfigMap {} key {} from {}; its pods restart on "
                                   "the new checksum",
                                   install.ns, install.daemonset, to_string(install.kind), target.configmap, target.key,
                                   k_mounted_config_dir));
  if (install.kind == PluginInstallKind::helm && install.release) {
    step.notes.push_back("a later `helm upgrade` of the release reverts this patch: make the release itself read "
                         "the config with " +
                         helm_upgrade_command(*install.release, native_options(target, options)));
  }
}

void add_operator_patch(Step& step, const Snapshot& snapshot, const DevicePluginInstall& install,
                        const PluginTarget& target) {
  const UninstallPlan uninstall = uninstall_plan(install, snapshot, {target.ns, target.configmap, target.key, target.text, 0});
  Change change;
  change.action = Action::patch;
  change.target = target_for("ClusterPolicy", "", install.cluster_policy);
  change.edit = Edit{EditKind::merge, uninstall.patch};
  change.before = object_stub(change.target);
  bool wired = false;
  for (const model::ClusterPolicy& policy : snapshot.cluster_policies) {
    if (policy.meta.name != install.cluster_policy) continue;
    change.before = model::to_json(policy);
    change.before["metadata"].erase("resourceVersion");
    change.before.erase("status");
    wired = policy.config_name == target.configmap && policy.config_default == target.key;
  }
  change.after = apply_edit(*change.edit, change.before);
  change.changed = !wired;
  step.changes.push_back(std::move(change));
  for (const std::string& note : uninstall.notes) step.notes.push_back(note);
  if (target.ns != install.ns)
    step.notes.push_back(fmt::format("the GPU Operator reads the ConfigMap only from its namespace {}, not {}: "
                                     "pass --config-namespace {}",
                                     install.ns, target.ns, install.ns));
}

void add_deletions(Step& step, const Snapshot& snapshot, const DevicePluginInstall& install) {
  const UninstallPlan uninstall = uninstall_plan(install, snapshot, {});
  for (const ObjectKey& key : uninstall.deletions) {
    if (!resource_for_kind(key.kind)) {
      step.notes.push_back(fmt::format("{} {} is left in place: kubectl-gpuslice does not delete that kind", key.kind,
                                       key.name));
      continue;
    }
    Change change;
    change.action = Action::remove;
    change.target = target_for(key.kind, key.ns, key.name);
    change.before = object_stub(change.target);
    change.changed = true;
    step.changes.push_back(std::move(change));
  }
  for (const std::string& note : uninstall.notes) step.notes.push_back(note);
}

void add_native_install(Step& step, const PluginTarget& target, const PluginStepOptions& options) {
  for (const nlohmann::json& object : install_manifests(native_options(target, options))) {
    Change change;
    change.action = Action::create;
    change.target = target_for(object["kind"].get<std::string>(), object["metadata"].value("namespace", ""),
                               object["metadata"]["name"].get<std::string>());
    change.object = object;
    change.after = object;
    change.edit = Edit{EditKind::merge, nlohmann::json::object()}; // already there (a re-run): keep it
    change.changed = true;
    step.changes.push_back(std::move(change));
  }
  step.notes.push_back(fmt::format("native install of {}:{} equal to chart 0.20.0 with config.name={} "
                                   "config.default={}; it runs on nodes labelled nvidia.com/gpu.present=true",
                                   options.image, options.version, target.configmap, target.key));
}

// The helm command for the target, whether or not the plan installs with helm.
std::vector<std::string> helm_command(const Snapshot& snapshot, const ConfigApplyOptions& config,
                                      const PluginStepOptions& options) {
  const PluginTarget target = plugin_target(snapshot, config);
  std::string version = options.version.starts_with('v') ? options.version.substr(1) : options.version;
  std::vector<std::string> argv = {"helm", "upgrade", "--install", options.release, "nvidia-device-plugin",
                                   "--repo", "https://nvidia.github.io/k8s-device-plugin", "--version", version,
                                   "--namespace", target.ns, "--set", "config.name=" + target.configmap,
                                   "--set", "config.default=" + target.key};
  if (options.gfd_enabled) {
    argv.push_back("--set");
    argv.push_back("gfd.enabled=true");
  }
  return argv;
}

// plan_plugin_install, also saying whether the plan ends in a helm install (rather than a
// re-point, a ClusterPolicy patch or a host plugin, where running helm would be a change the
// plan never showed).
Step plan_plugin_step(const Snapshot& snapshot, const ConfigApplyOptions& config, const PluginStepOptions& options,
                      bool& installs_with_helm) {
  installs_with_helm = false;
  const PluginTarget target = plugin_target(snapshot, config);
  Step step;
  step.name = "plugin install";
  const std::vector<DevicePluginInstall> installs = detect_device_plugins(snapshot);
  bool install_native = true;
  bool removed_any = false;
  std::vector<std::string> how;
  for (const DevicePluginInstall& install : installs) {
    if (install.kind == PluginInstallKind::host) {
      const UninstallPlan host = uninstall_plan(install, snapshot, {target.ns, target.configmap, target.key, target.text,
                                                                    config.replicas});
      for (const std::string& note : host.notes) step.notes.push_back(note);
      step.notes.push_back("node settings:\n" + host.host_settings);
      install_native = false;
      how.push_back("host plugin: node settings");
      continue;
    }
    if (install.kind == PluginInstallKind::gpu_operator) {
      add_operator_patch(step, snapshot, install, target);
      install_native = false;
      how.push_back("GPU Operator: ClusterPolicy " + install.cluster_policy);
      continue;
    }
    const bool ours = installed_by_us(install, snapshot);
    const bool same_ns = install.ns == target.ns;
    const bool replace = !ours && (options.strategy == PluginStrategy::replace || !same_ns);
    if (!replace) {
      add_reconfigure(step, snapshot, install, target, options);
      install_native = false;
      how.push_back(fmt::format("reconfigure {}/{}", install.ns, install.daemonset));
      continue;
    }
    if (options.strategy == PluginStrategy::reconfigure) {
      throw UsageError(fmt::format("--strategy reconfigure: the plugin DaemonSet {}/{} cannot read a ConfigMap in {} "
                                   "(a pod mounts ConfigMaps of its own namespace only); pass --config-namespace {}",
                                   install.ns, install.daemonset, target.ns, install.ns));
    }
    if (!same_ns && options.strategy != PluginStrategy::replace)
      step.notes.push_back(fmt::format("the plugin in {} cannot mount a ConfigMap in {}: it is replaced by a native "
                                       "install in {} (or pass --config-namespace {} to re-point it)",
                                       install.ns, target.ns, target.ns, install.ns));
    add_deletions(step, snapshot, install);
    removed_any = true;
    how.push_back(fmt::format("replace {} {}/{}", to_string(install.kind), install.ns, install.daemonset));
  }
  if (install_native && options.strategy == PluginStrategy::reconfigure && !removed_any) {
    step.notes.push_back("--strategy reconfigure: no installed plugin to re-point; nothing is installed");
    install_native = false;
  }
  // GFD follows the plugin where we wire the plugin through a DaemonSet (not on the host, not the
  // operator's: its ClusterPolicy config is GFD's too).
  const bool via_daemonset = std::none_of(installs.begin(), installs.end(), [](const DevicePluginInstall& i) {
    return i.kind == PluginInstallKind::host || i.kind == PluginInstallKind::gpu_operator;
  });
  if (via_daemonset && (install_native || !how.empty())) add_gfd_repoints(step, snapshot, target);
  if (install_native) {
    if (options.helm_installer) {
      installs_with_helm = true;
      step.notes.push_back("installed with helm after the API changes: " +
                           fmt::format("{}", fmt::join(helm_command(snapshot, config, options), " ")));
      how.push_back("helm install");
    } else {
      add_native_install(step, target, options);
      how.push_back(fmt::format("native install in {}", target.ns));
    }
  }
  step.summary = fmt::format("device plugin reads ConfigMap {}/{} key {} ({})", target.ns, target.configmap, target.key,
                             fmt::join(how, "; "));
  return step;
}

} // namespace

Step plan_plugin_install(const Snapshot& snapshot, const ConfigApplyOptions& config, const PluginStepOptions& options) {
  bool installs_with_helm = false;
  return plan_plugin_step(snapshot, config, options, installs_with_helm);
}

Step plan_plugin_uninstall(const Snapshot& snapshot) {
  Step step;
  step.name = "plugin uninstall";
  std::vector<std::string> what;
  for (const DevicePluginInstall& install : detect_device_plugins(snapshot)) {
    if (install.kind == PluginInstallKind::gpu_operator) {
      step.notes.push_back(fmt::format("DaemonSet {}/{} belongs to the GPU Operator (ClusterPolicy {}): it is never "
                                       "deleted (the operator re-creates it); use `plugin install` to re-point it",
                                       install.ns, install.daemonset, install.cluster_policy));
      continue;
    }
    if (install.kind == PluginInstallKind::host) {
      step.notes.push_back(fmt::format("{} node(s) run the plugin on the host (Bottlerocket); nothing to delete",
                                       install.host_nodes.size()));
      continue;
    }
    add_deletions(step, snapshot, install);
    what.push_back(fmt::format("{} {}/{}", to_string(install.kind), install.ns, install.daemonset));
  }
  step.summary = what.empty() ? "no device plugin to remove" : fmt::format("remove {}", fmt::join(what, ", "));
  return step;
}

std::vector<std::string> helm_install_argv(const Snapshot& snapshot, const ConfigApplyOptions& config,
                                           const PluginStepOptions& options) {
  if (!options.helm_installer) return {};
  bool installs_with_helm = false;
  plan_plugin_step(snapshot, config, options, installs_with_helm);
  return installs_with_helm ? helm_command(snapshot, config, options) : std::vector<std::string>{};
}

} // namespace gpuslice::remedy
