// SPDX-License-Identifier: Apache-2.0
// What `apply` and every step subcommand share: the safety flags (--dry-run, --yes, -o) and the
// run itself — collect, plan, show, preflight, confirm, journal, execute.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include <gpuslice/remedy/execute.hpp>
#include <gpuslice/remedy/plan.hpp>
#include <gpuslice/snapshot.hpp>

#include "cli/app.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

struct RemedyFlags {
  std::string dry_run = "none"; // none | client | server
  std::string output = "table";
  bool yes = false;
  std::string journal_dir; // "" = ~/.kube/gpuslice
  bool wait = false;          // after the changes, wait until time-slicing is in effect
  std::string timeout = "5m"; // how long --wait waits
};

// Adds --dry-run, --yes/-y, -o and --journal-dir to a remedy subcommand.
void add_remedy_flags(CLI::App& sub, RemedyFlags& flags);
// Adds --wait (also --wait=false) / --no-wait and --timeout; `flags.wait` is the default.
void add_wait_flags(CLI::App& sub, RemedyFlags& flags);
// --timeout's value: a number with unit s, m or h (bare number: seconds); UsageError otherwise.
std::chrono::seconds parse_timeout(const std::string& value);

// What --wait waits for after the changes: the plugin DaemonSets rolled out, every GPU node
// advertising physical × replicas, and no GPU pod Pending (those Pending before included).
struct WaitGoal {
  int replicas = 0;
  std::string resource; // the shares' resource name ("" = nvidia.com/gpu)
};
// Polls the cluster (progress on stderr when it is a terminal) until the goal holds. Returns
// normally when it does; throws RuntimeError naming what is missing on timeout (exit 3), and
// ApplyIncomplete on SIGINT/SIGTERM (exit 4), both with the undo command of `journal`.
void wait_for_goal(kube::Client& client, const GlobalFlags& global, Env& env, const Snapshot& before,
                   const WaitGoal& goal, std::chrono::seconds timeout, const std::string& command,
                   const std::string& journal);

// --dry-run's value; UsageError naming the flag for anything but none/client/server.
remedy::DryRun parse_dry_run(const std::string& value);

// The steps' planner, given the live snapshot.
using Planner = std::function<remedy::Plan(const Snapshot&)>;
// Objects a planner needs that the diagnosis query plan may not read (e.g. our ConfigMap
// before the plugin refers to it): fetched and merged into the snapshot before planning.
using Prefetch = std::function<void(kube::Client&, Snapshot&)>;

// The whole run. Exit codes: 0 done (or nothing to do, or a dry run), 2 usage (non-TTY without
// --yes is refused before any request), 3 preflight denied / runtime error with nothing
// changed, 4 interrupted or failed part-way (ApplyIncomplete with the journal path).
// With flags.wait and a goal, a run that changed something then waits (wait_for_goal).
// `after_changes` (e.g. running helm) runs after the API changes of a real run.
ExitCode run_remedy(const std::string& command, const RemedyFlags& flags, const GlobalFlags& global, Env& env,
                    const Planner& planner, const Prefetch& prefetch = {}, const WaitGoal* goal = nullptr,
                    const std::function<void(const Snapshot&)>& after_changes = {});

// Text of a plan (steps, changes, notes) with, for dry runs, a unified diff per changed object
// from the executor's live before/after.
std::string render_plan_text(const remedy::Plan& plan, const remedy::ExecuteResult* live);
// Text of a finished (or stopped) run.
std::string render_result_text(const remedy::ExecuteResult& result, const std::string& journal_path);

// Whether SIGINT or SIGTERM arrived since install_stop_signals().
bool stop_signal_received();
// Sleeps up to `total`, waking early on SIGINT/SIGTERM.
void sleep_unless_stopped(std::chrono::milliseconds total);
// Installs the SIGINT/SIGTERM handlers that set the flag (and restores the old ones on destruction).
class StopSignals {
public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

} // namespace gpuslice::cli
