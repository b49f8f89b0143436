// SPDX-License-Identifier: Apache-2.0
// The flags of each remedy step, shared by the step's own subcommand and `apply`.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/remedy/plan.hpp>

#include "cli/commands.hpp"

namespace gpuslice::cli {

// --replicas, --config-name, --config-namespace, --config-key, --rename-by-default,
// --fail-requests-greater-than-one, --resource, --from-file (path kept in options.from_file_name).
void add_config_flags(CLI::App& sub, remedy::ConfigApplyOptions& options);
// Reads --from-file into options.from_file_text; UsageError naming the file when unreadable.
void load_config_file(remedy::ConfigApplyOptions& options);
// --taint-key, --taint-value, --taint-effect.
void add_taint_flags(CLI::App& sub, remedy::TaintOptions& taint);

// A plan of one step (a step subcommand's plan).
remedy::Plan single_step_plan(remedy::Step step);
// The one step `make` plans, or the platform's refusal when the platform owns the device plugin
// (GKE, EKS Auto Mode, an addon manager): the steps that configure the plugin change nothing there.
remedy::Plan plugin_step_plan(const Snapshot& snapshot, int replicas, const std::function<remedy::Step()>& make);

// The plugin flags as given; resolve_plugin_flags() turns the words into options.
struct PluginFlags {
  remedy::PluginStepOptions options;
  std::string strategy = "auto"; // auto | reconfigure | replace
  std::string installer = "native"; // native | helm
};
// --strategy, --installer, --plugin-image, --plugin-version, --release, --gfd.
void add_plugin_flags(CLI::App& sub, PluginFlags& flags);
// The options with strategy and installer parsed; UsageError naming the flag for a bad word.
remedy::PluginStepOptions resolve_plugin_flags(const PluginFlags& flags);

// `plugin install` and `plugin uninstall` (cli/plugin_commands.cpp), registered by add_steps.
void add_plugin_commands(CLI::App& app, Commands& commands, Env& env);
// Whether an executable `helm` is on PATH.
bool helm_on_path();
// Runs argv (no shell), its output going to ours, against the cluster we talk to (--kubeconfig and
// --context passed on as helm's --kubeconfig and --kube-context); RuntimeError when it fails.
// Nothing for empty argv.
void run_helm(std::vector<std::string> argv, const GlobalFlags& global, Env& env);

// What the planners would refuse, checked before anything is sent (DESIGN §4.1: exit 2 sends
// nothing). Each throws UsageError naming the flag and quoting its value.
// --replicas from 2 to 128 unless --from-file gives the whole config; then the config text is
// checked by the config planner itself (pure, on an empty snapshot).
void validate_config_flags(const remedy::ConfigApplyOptions& options);
// A taint key that is a Kubernetes qualified name, a label-value value, and a known effect.
void validate_taint_flags(const remedy::TaintOptions& taint);
// A label selector flag's syntax; "" (no selector) is fine.
void validate_selector_flag(const std::string& flag, const std::string& selector);

} // namespace gpuslice::cli
