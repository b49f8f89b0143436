// SPDX-License-Identifier: Apache-2.0
// `apply --replicas N`: the whole time-slicing runbook as one plan, in a safe order.
#include <fmt/format.h>

#include "cli/apply_run.hpp"
#include "cli/commands.hpp"
#include "cli/step_flags.hpp"

namespace gpuslice::cli {

namespace {

struct ApplyCommandOptions {
  remedy::ApplyOptions apply;
  PluginFlags plugin;
  RemedyFlags remedy;
  bool no_taint = false;
  bool no_tolerate = false;
  bool no_plugin = false;
};

ExitCode run_apply(ApplyCommandOptions options, const GlobalFlags& global, Env& env) {
  load_config_file(options.apply.config);
  options.apply.taint_nodes = !options.no_taint;
  options.apply.tolerate_workloads = !options.no_tolerate;
  validate_config_flags(options.apply.config);
  validate_selector_flag("--node-selector", options.apply.nodes.selector);
  validate_selector_flag("--workload-selector", options.apply.workloads.selector);
  if (options.apply.taint_nodes || options.apply.tolerate_workloads) validate_taint_flags(options.apply.taint);
  options.apply.configure_plugin = !options.no_plugin;
  options.apply.plugin = resolve_plugin_flags(options.plugin);
  if (options.apply.plugin.helm_installer && options.apply.configure_plugin &&
      parse_dry_run(options.remedy.dry_run) == remedy::DryRun::none && !helm_on_path())
    throw RuntimeError("--installer helm: no helm on PATH; nothing was changed");
  auto apply = std::make_shared<remedy::ApplyOptions>(options.apply);
  WaitGoal goal;
  goal.replicas = apply->config.replicas;
  goal.resource = apply->config.rename_by_default ? apply->config.resource + ".shared" : apply->config.resource;
  return run_remedy(
      "apply", options.remedy, global, env, [apply](const Snapshot& snapshot) { return remedy::plan_apply(snapshot, *apply); },
      [apply](kube::Client& client, Snapshot& snapshot) { remedy::read_config_target(client, snapshot, apply->config); },
      apply->config.replicas >= 2 ? &goal : nullptr, [apply, &global, &env](const Snapshot& snapshot) {
        if (apply->configure_plugin)
          run_helm(remedy::helm_install_argv(snapshot, apply->config, apply->plugin), global, env);
      });
}

} // namespace

void add_apply(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "apply", "Enable GPU time-slicing: config, node labels, device plugin, tolerations and taints; waits, idempotent, undoable.");
  sub->footer(fmt::format("Examples:\n"
                          "  # See the plan and a diff per object; nothing is changed\n"
                          "  {0} apply --replicas 4 --dry-run=client\n\n"
                          "  # Carry it out without a prompt (journaled; undo with '{0} undo')\n"
                          "  {0} apply --replicas 4 --yes\n\n"
                          "  # Only g4dn.xlarge nodes, no taint\n"
                          "  {0} apply --replicas 4 --node-selector node.kubernetes.io/instance-type=g4dn.xlarge --no-taint\n\n"
                          "  # Replace the installed plugin by a native install; do not wait for the rollout\n"
                          "  {0} apply --replicas 4 --strategy replace --yes --no-wait",
                          env.program));
  auto options = std::make_shared<ApplyCommandOptions>();
  add_config_flags(*sub, options->apply.config);
  sub->add_option("--node-selector", options->apply.nodes.selector, "Label selector of the GPU nodes to change");
  sub->add_option("--node", options->apply.nodes.nodes, "Node names to change (repeatable)");
  add_taint_flags(*sub, options->apply.taint);
  sub->add_option("--workload-selector", options->apply.workloads.selector,
                  "Label selector of the GPU Deployments/StatefulSets to tolerate the taint");
  sub->add_option("--deployment", options->apply.workloads.deployments, "namespace/name of a Deployment (repeatable)");
  sub->add_flag("--no-taint", options->no_taint, "Do not taint the GPU nodes");
  sub->add_flag("--no-tolerate", options->no_tolerate, "Do not add tolerations to GPU workloads");
  sub->add_flag("--no-plugin", options->no_plugin, "Do not change the device plugin (only the config, nodes, workloads)");
  add_plugin_flags(*sub, options->plugin);
  add_remedy_flags(*sub, options->remedy);
  options->remedy.wait = true; // apply waits unless --wait=false / --no-wait
  add_wait_flags(*sub, options->remedy);
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_apply(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
