// SPDX-License-Identifier: Apache-2.0
// The subcommand table: each cli/<cmd>.cpp adds its CLI11 subcommand and, when chosen, sets
// the runner that app.cpp calls after parsing succeeds (so validation precedes any I/O).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

struct Commands {
  std::function<ExitCode()> chosen; // set by the parsed subcommand's callback
  GlobalFlags global;                // --kubeconfig, --context, -n, -v … (cli/global_flags.hpp)
  ExitCode run() const { return chosen ? chosen() : ExitCode::usage; }
};

// Registers every subcommand on app.
void add_commands(CLI::App& app, Commands& commands, Env& env);

// The whole CLI (name, description, global flags, every subcommand) without parsing: what
// run() parses and what completion, the man page test and the help checks walk.
void build_app(CLI::App& app, Commands& commands, Env& env);

void add_diagnose(CLI::App& app, Commands& commands, Env& env);
void add_snapshot(CLI::App& app, Commands& commands, Env& env);
void add_status(CLI::App& app, Commands& commands, Env& env);
void add_version(CLI::App& app, Commands& commands, Env& env);
void add_apply(CLI::App& app, Commands& commands, Env& env); // cli/apply.cpp
void add_steps(CLI::App& app, Commands& commands, Env& env); // cli/step_commands.cpp: config, nodes, workloads
void add_undo(CLI::App& app, Commands& commands, Env& env);  // cli/undo.cpp
void add_verify(CLI::App& app, Commands& commands, Env& env);
void add_completion(CLI::App& app, Commands& commands, Env& env);
void add_explain(CLI::App& app, Commands& commands, Env& env);
void add_alerts(CLI::App& app, Commands& commands, Env& env);

} // namespace gpuslice::cli
