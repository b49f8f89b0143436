// SPDX-License-Identifier: Apache-2.0
// The steps as their own subcommands, for runbooks that go one step at a time:
// `config apply`, `nodes label`, `nodes taint`, `workloads tolerate`.
#include <fmt/format.h>

#include "cli/apply_run.hpp"
#include "cli/commands.hpp"
#include "cli/step_flags.hpp"

namespace gpuslice::cli {

namespace {

struct ConfigCommand {
  remedy::ConfigApplyOptions config;
  RemedyFlags remedy;
};

struct NodesCommand {
  remedy::NodeSelection nodes;
  remedy::TaintOptions taint;
  RemedyFlags remedy;
};

struct WorkloadsCommand {
  remedy::WorkloadSelection workloads;
  remedy::TaintOptions taint;
  RemedyFlags remedy;
};

void add_config_apply(CLI::App& parent, Commands& commands, Env& env) {
  CLI::App* sub = parent.add_subcommand("apply", "Create or update the time-slicing ConfigMap (validated first).");
  sub->footer(fmt::format("Examples:\n"
                          "  # Four replicas per GPU, shown as a diff first\n"
                          "  {0} config apply --replicas 4 --dry-run=client\n\n"
                          "  # A full device-plugin config of your own, validated before it is sent\n"
                          "  {0} config apply --from-file time-slicing.yaml --yes",
                          env.program));
  auto options = std::make_shared<ConfigCommand>();
  add_config_flags(*sub, options->config);
  add_remedy_flags(*sub, options->remedy);
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] {
      auto run = std::make_shared<ConfigCommand>(*options);
      load_config_file(run->config);
      validate_config_flags(run->config);
      return run_remedy(
          "config apply", run->remedy, commands.global, env,
          [run](const Snapshot& snapshot) {
            return plugin_step_plan(snapshot, run->config.replicas,
                                    [&] { return remedy::plan_config_apply(snapshot, run->config); });
          },
          [run](kube::Client& client, Snapshot& snapshot) {
            remedy::read_config_target(client, snapshot, run->config);
          });
    };
  });
}

void add_node_selection(CLI::App& sub, remedy::NodeSelection& nodes) {
  sub.add_option("--selector,-l", nodes.selector, "Label selector of the nodes (default: every GPU node)");
  sub.add_option("--node", nodes.nodes, "Node names (repeatable)");
}

void add_nodes(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* nodes = app.add_subcommand("nodes", "Label or taint the GPU nodes.");
  nodes->require_subcommand(1);
  CLI::App* label = nodes->add_subcommand("label", "Label the GPU nodes nvidia.com/gpu.present=true.");
  label->footer(fmt::format("Examples:\n"
                            "  # Every GPU node\n"
                            "  {0} nodes label --yes\n\n"
                            "  # Only one instance type\n"
                            "  {0} nodes label -l node.kubernetes.io/instance-type=g4dn.xlarge --dry-run=client",
                            env.program));
  auto label_options = std::make_shared<NodesCommand>();
  add_node_selection(*label, label_options->nodes);
  add_remedy_flags(*label, label_options->remedy);
  label->callback([&commands, &env, label_options] {
    commands.chosen = [&commands, &env, label_options] {
      const remedy::NodeSelection selection = label_options->nodes;
      validate_selector_flag("--selector", selection.selector);
      return run_remedy("nodes label", label_options->remedy, commands.global, env, [selection](const Snapshot& s) {
        return single_step_plan(remedy::plan_nodes_label(s, selection));
      });
    };
  });

  CLI::App* taint = nodes->add_subcommand("taint", "Taint the GPU nodes (default nvidia.com/gpu=true:NoSchedule).");
  taint->footer(fmt::format("Examples:\n"
                            "  # nvidia.com/gpu=true:NoSchedule on every GPU node; other taints are kept\n"
                            "  {0} nodes taint --yes\n\n"
                            "  # Two named nodes, with the server's verdict only\n"
                            "  {0} nodes taint --node gpu-1 --node gpu-2 --dry-run=server",
                            env.program));
  auto taint_options = std::make_shared<NodesCommand>();
  add_node_selection(*taint, taint_options->nodes);
  add_taint_flags(*taint, taint_options->taint);
  add_remedy_flags(*taint, taint_options->remedy);
  taint->callback([&commands, &env, taint_options] {
    commands.chosen = [&commands, &env, taint_options] {
      const remedy::NodeSelection selection = taint_options->nodes;
      const remedy::TaintOptions wanted = taint_options->taint;
      validate_selector_flag("--selector", selection.selector);
      validate_taint_flags(wanted);
      return run_remedy("nodes taint", taint_options->remedy, commands.global, env,
                        [selection, wanted](const Snapshot& s) {
                          return single_step_plan(remedy::plan_nodes_taint(s, selection, wanted));
                        });
    };
  });
}

void add_workloads(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* workloads = app.add_subcommand("workloads", "Change GPU Deployments and StatefulSets.");
  workloads->require_subcommand(1);
  CLI::App* tolerate = workloads->add_subcommand(
      "tolerate", "Add the GPU taint's toleration where the pods lack it (each patch rolls the pods).");
  tolerate->footer(fmt::format("Examples:\n"
                               "  # Every GPU Deployment and StatefulSet that lacks the toleration\n"
                               "  {0} workloads tolerate --dry-run=client\n\n"
                               "  # One Deployment\n"
                               "  {0} workloads tolerate --deployment ml/trainer --yes",
                               env.program));
  auto options = std::make_shared<WorkloadsCommand>();
  tolerate->add_option("--selector,-l", options->workloads.selector, "Label selector of the workloads");
  tolerate->add_option("--deployment", options->workloads.deployments, "namespace/name of a Deployment (repeatable)");
  add_taint_flags(*tolerate, options->taint);
  add_remedy_flags(*tolerate, options->remedy);
  tolerate->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] {
      const remedy::WorkloadSelection selection = options->workloads;
      const remedy::TaintOptions wanted = options->taint;
      validate_selector_flag("--selector", selection.selector);
      validate_taint_flags(wanted);
      return run_remedy("workloads tolerate", options->remedy, commands.global, env,
                        [selection, wanted](const Snapshot& s) {
                          return single_step_plan(remedy::plan_workloads_tolerate(s, selection, wanted));
                        });
    };
  });
}

} // namespace

void add_steps(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* config = app.add_subcommand("config", "The time-slicing ConfigMap.");
  config->require_subcommand(1);
  add_config_apply(*config, commands, env);
  add_nodes(app, commands, env);
  add_workloads(app, commands, env);
  add_plugin_commands(app, commands, env);
}

} // namespace gpuslice::cli
