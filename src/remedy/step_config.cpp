// SPDX-License-Identifier: Apache-2.0
// `config apply`: the time-slicing ConfigMap, validated against the plugin's schema before it
// is ever sent (the plugin silently ignores misplaced keys and crash-loops on replicas < 2).
#include <gpuslice/remedy/plan.hpp>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/model.hpp>
#include <gpuslice/timeslicing.hpp>

namespace gpuslice::remedy {

namespace {

constexpr std::string_view k_default_config_namespace = "nvidia-device-plugin";

bool looks_like_plugin_daemonset(const model::DaemonSet& daemonset) {
  for (const model::Container& container : daemonset.pod_template.spec.containers) {
    if (container.image.find("k8s-device-plugin") != std::string::npos &&
        daemonset.meta.name.find("feature-discovery") == std::string::npos &&
        daemonset.meta.name.find("mps-control") == std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string config_problems_text(const diagnose::ConfigCheck& check, const std::string& origin) {
  std::string text = origin + " is not a valid device-plugin config:";
  for (const diagnose::ConfigProblem& problem : check.problems) {
    text += fmt::format("\n  {}: {}", problem.path.empty() ? "(document)" : problem.path, problem.message);
  }
  return text;
}

const model::ConfigMap* find_time_slicing_configmap(const Snapshot& snapshot, std::string_view ns, std::string_view name) {
  for (const model::ConfigMap& configmap : snapshot.configmaps) {
    if (configmap.meta.ns == ns && configmap.meta.name == name) return &configmap;
  }
  return nullptr;
}

nlohmann::json configmap_display(const model::ConfigMap& configmap) {
  nlohmann::json out = model::to_json(configmap);
  out["metadata"].erase("resourceVersion");
  return out;
}

} // namespace

std::string time_slicing_config_text(const ConfigApplyOptions& options) {
  if (!options.from_file_text.empty()) return options.from_file_text;
  return fmt::format("version: v1\n"
                     "flags:\n"
                     "  migStrategy: none\n"
                     "sharing:\n"
                     "  timeSlicing:\n"
                     "    renameByDefault: {}\n"
                     "    failRequestsGreaterThanOne: {}\n"
                     "    resources:\n"
                     "      - name: {}\n"
                     "        replicas: {}\n",
                     options.rename_by_default, options.fail_requests_greater_than_one, options.resource,
                     options.replicas);
}

std::string config_namespace(const Snapshot& snapshot, const ConfigApplyOptions& options) {
  if (!options.ns.empty()) return options.ns;
  // The GPU Operator reads the ConfigMap only from its own namespace.
  for (const model::ClusterPolicy& policy : snapshot.cluster_policies) {
    if (!policy.operator_namespace.empty()) return policy.operator_namespace;
  }
  // A Helm or static plugin mounts ConfigMaps of its own namespace only (eksctl's: kube-system).
  for (const model::DaemonSet& daemonset : snapshot.daemonsets) {
    if (looks_like_plugin_daemonset(daemonset)) return daemonset.meta.ns;
  }
  return std::string(k_default_config_namespace);
}

Step plan_config_apply(const Snapshot& snapshot, const ConfigApplyOptions& options) {
  if (options.from_file_text.empty() && options.replicas < 2) {
    throw UsageError(fmt::format("--replicas {}: must be at least 2 (the device plugin refuses 1; "
                                 "to turn sharing off, remove the sharing section)",
                                 options.replicas));
  }
  if (options.key.empty() || options.name.empty()) {
    throw UsageError("--config-name and --config-key must not be empty");
  }
  const std::string text = time_slicing_config_text(options);
  const diagnose::ConfigCheck check = diagnose::check_time_slicing_config(text);
  if (!check.problems.empty()) {
    throw UsageError(config_problems_text(
        check, options.from_file_name.empty() ? "the generated config" : options.from_file_name));
  }
  if (check.config.strategy != "time-slicing") {
    throw UsageError(fmt::format("{}: configures no time-slicing (sharing.timeSlicing.resources with "
                                 "replicas >= 2 is required)",
                                 options.from_file_name.empty() ? "the config" : options.from_file_name));
  }

  const std::string ns = config_namespace(snapshot, options);
  Step step;
  step.name = "config apply";
  const int replicas = check.config.resources.empty() ? 0 : check.config.resources.front().replicas;
  step.summary = fmt::format("time-slicing config \"{}\" ({} replicas) in ConfigMap {}/{}", options.key,
                             replicas, ns, options.name);

  if (!options.namespace_exists) {
    Change create_ns;
    create_ns.action = Action::create;
    create_ns.target = target_for("Namespace", "", ns);
    create_ns.object = {{"apiVersion", "v1"},
                        {"kind", "Namespace"},
                        {"metadata", {{"name", ns}, {"labels", {{"app.kubernetes.io/managed-by", "kubectl-gpuslice"}}}}}};
    create_ns.after = create_ns.object;
    create_ns.edit = Edit{EditKind::merge, nlohmann::json::object()}; // created meanwhile: keep it
    create_ns.changed = true;
    step.changes.push_back(std::move(create_ns));
  }
  Change change;
  change.target = target_for("ConfigMap", ns, options.name);
  change.edit = Edit{EditKind::merge, {{"data", {{options.key, text}}}}};
  if (const model::ConfigMap* existing = find_time_slicing_configmap(snapshot, ns, options.name)) {
    change.action = Action::patch;
    change.before = configmap_display(*existing);
    change.after = apply_edit(*change.edit, change.before);
    const auto current = existing->data.find(options.key);
    change.changed = current == existing->data.end() || current->second != text;
    if (change.changed && existing->data.size() > (current == existing->data.end() ? 0U : 1U)) {
      step.notes.push_back(fmt::format("ConfigMap {}/{} has other keys; they are kept", ns, options.name));
    }
  } else {
    change.action = Action::create;
    change.object = {{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata",
                      {{"name", options.name},
                       {"namespace", ns},
                       {"labels", {{"app.kubernetes.io/managed-by", "kubectl-gpuslice"}}}}},
                     {"data", {{options.key, text}}}};
    change.after = change.object;
    change.changed = true;
  }
  if (options.rename_by_default) {
    step.notes.push_back(fmt::format(
        "renameByDefault: GPU nodes will advertise {0}.shared and no {0}. cluster-autoscaler takes a node with its GPU "
        "label but no {0} allocatable for not ready (ResourceUnready) and its templates have no {0}.shared; "
        "Karpenter's instance types offer no {0}.shared either: neither scales up for pods that request it "
        "(without renameByDefault pods keep requesting {0})",
        options.resource));
  }
  step.notes.push_back("the device plugin reads its config only at start: its pods must be restarted "
                       "after this ConfigMap changes");
  step.changes.push_back(std::move(change));
  return step;
}

} // namespace gpuslice::remedy
