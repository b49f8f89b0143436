// SPDX-License-Identifier: Apache-2.0
#include "cli/step_flags.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <gpuslice/error.hpp>
#include <gpuslice/model.hpp>

#include "cli/taint_spec.hpp"

namespace gpuslice::cli {

namespace {

constexpr int k_max_config_replicas = 128; // as diagnose --replicas: beyond it, a typo

} // namespace

void validate_config_flags(const remedy::ConfigApplyOptions& options) {
  if (options.from_file_text.empty() && (options.replicas < 2 || options.replicas > k_max_config_replicas)) {
    throw UsageError(fmt::format("--replicas {}: must be from 2 to {} (the device plugin refuses 1; "
                                 "or give a whole config with --from-file)",
                                 options.replicas, k_max_config_replicas));
  }
  (void)remedy::plan_config_apply(Snapshot{}, options);
}

void validate_taint_flags(const remedy::TaintOptions& taint) {
  const std::pair<std::string, std::string> problems[] = {
      {"--taint-key \"" + taint.key + "\": ", taint_key_problem(taint.key)},
      {"--taint-value \"" + taint.value + "\": ", taint_value_problem(taint.value)},
      {"--taint-effect \"" + taint.effect + "\": ", taint_effect_problem(taint.effect)}};
  for (const auto& [flag_and_input, problem] : problems) {
    if (!problem.empty()) throw UsageError(flag_and_input + problem);
  }
}

void validate_selector_flag(const std::string& flag, const std::string& selector) {
  if (selector.empty()) return;
  const model::Parsed<model::LabelSelector> parsed = model::parse_selector_string(selector);
  if (!parsed) throw UsageError(fmt::format("{} \"{}\": {}", flag, selector, parsed.error));
}

void add_config_flags(CLI::App& sub, remedy::ConfigApplyOptions& options) {
  sub.add_option("--replicas", options.replicas, "Time-slicing replicas per GPU (at least 2)");
  sub.add_option("--config-name", options.name, "Name of the time-slicing ConfigMap")->default_str(options.name);
  sub.add_option("--config-namespace", options.ns,
                 "Namespace of the ConfigMap (default: the device plugin's namespace, else nvidia-device-plugin)");
  sub.add_option("--config-key", options.key, "ConfigMap key: the config name the plugin selects")
      ->default_str(options.key);
  sub.add_flag("--rename-by-default", options.rename_by_default,
               "Advertise shared GPUs as <resource>.shared (pods must request nvidia.com/gpu.shared)");
  sub.add_flag("--fail-requests-greater-than-one", options.fail_requests_greater_than_one,
               "Reject pods that request more than one shared GPU");
  sub.add_option("--resource", options.resource, "The resource to share")->default_str(options.resource);
  sub.add_option("--from-file", options.from_file_name, "A full device-plugin config file to apply instead");
}

void load_config_file(remedy::ConfigApplyOptions& options) {
  if (options.from_file_name.empty()) return;
  std::ifstream in(options.from_file_name);
  if (!in) throw UsageError("--from-file " + options.from_file_name + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  options.from_file_text = text.str();
  if (options.from_file_text.empty()) throw UsageError("--from-file " + options.from_file_name + ": the file is empty");
}

void add_taint_flags(CLI::App& sub, remedy::TaintOptions& taint) {
  sub.add_option("--taint-key", taint.key, "Key of the GPU taint")->default_str(taint.key);
  sub.add_option("--taint-value", taint.value, "Value of the GPU taint")->default_str(taint.value);
  sub.add_option("--taint-effect", taint.effect, "Effect: NoSchedule, PreferNoSchedule or NoExecute")
      ->default_str(taint.effect);
}

remedy::Plan single_step_plan(remedy::Step step) {
  remedy::Plan plan;
  plan.steps.push_back(std::move(step));
  return plan;
}

remedy::Plan plugin_step_plan(const Snapshot& snapshot, int replicas, const std::function<remedy::Step()>& make) {
  if (std::optional<remedy::Plan> refused = remedy::plan_platform_refusal(snapshot, replicas)) return *refused;
  return single_step_plan(make());
}

void add_plugin_flags(CLI::App& sub, PluginFlags& flags) {
  sub.add_option("--strategy", flags.strategy,
                 "auto: re-point an installed plugin, install one when there is none; reconfigure: only re-point; "
                 "replace: uninstall the installed plugin and install natively")
      ->default_str(flags.strategy);
  sub.add_option("--installer", flags.installer,
                 "native: the chart-equivalent DaemonSet, ServiceAccount and RBAC; helm: run helm with the "
                 "nvidia-device-plugin chart")
      ->default_str(flags.installer);
  sub.add_option("--plugin-image", flags.options.image, "Device plugin image repository")->default_str(flags.options.image);
  sub.add_option("--plugin-version", flags.options.version, "Device plugin image tag (pinned default)")
      ->default_str(flags.options.version);
  sub.add_option("--release", flags.options.release, "Release name of a new install (objects <release>-nvidia-device-plugin)")
      ->default_str(flags.options.release);
  sub.add_flag("--gfd", flags.options.gfd_enabled, "Also install gpu-feature-discovery (as the chart's gfd.enabled)");
}

remedy::PluginStepOptions resolve_plugin_flags(const PluginFlags& flags) {
  remedy::PluginStepOptions options = flags.options;
  if (flags.strategy == "auto") {
    options.strategy = remedy::PluginStrategy::automatic;
  } else if (flags.strategy == "reconfigure") {
    options.strategy = remedy::PluginStrategy::reconfigure;
  } else if (flags.strategy == "replace") {
    options.strategy = remedy::PluginStrategy::replace;
  } else {
    throw UsageError("--strategy \"" + flags.strategy + "\": must be auto, reconfigure or replace");
  }
  if (flags.installer != "native" && flags.installer != "helm")
    throw UsageError("--installer \"" + flags.installer + "\": must be native or helm");
  options.helm_installer = flags.installer == "helm";
  if (options.image.empty() || options.version.empty())
    throw UsageError("--plugin-image and --plugin-version must not be empty");
  return options;
}

} // namespace gpuslice::cli
