// SPDX-License-Identifier: Apache-2.0
// The remedy run shared by `apply` and the step subcommands: nothing is sent before the
// non-TTY check, nothing is written before the preflight, and every write is journaled.
#include "cli/apply_run.hpp"

#include <atomic>
#include <csignal>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/remedy/verify_settings.hpp>
#include <gpuslice/report.hpp>

#include "cli/keep_until_exit.hpp"
#include "cli/output_flags.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

std::atomic<bool> g_stop_signal{false};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_stop_signal(int) {
  g_stop_signal.store(true);
}

bool confirm_on_terminal(Env& env) {
  env.err << "Apply these changes? [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

void print_remedy_plan(const remedy::Plan& plan, const remedy::ExecuteResult* live, report::Format format, bool dry,
                Env& env) {
  if (format == report::Format::json) {
    env.out << remedy::plan_to_json(plan, dry).dump(2) << "\n";
  } else if (format == report::Format::yaml) {
    env.out << report::to_yaml(remedy::plan_to_json(plan, dry));
  } else {
    env.out << render_plan_text(plan, live);
  }
}

void print_remedy_result(const remedy::ExecuteResult& result, const std::string& journal, report::Format format, Env& env) {
  if (format == report::Format::json) {
    env.out << remedy::result_to_json(result, journal).dump(2) << "\n";
  } else if (format == report::Format::yaml) {
    env.out << report::to_yaml(remedy::result_to_json(result, journal));
  } else {
    env.out << render_result_text(result, journal);
  }
}

} // namespace

bool stop_signal_received() {
  return g_stop_signal.load();
}

StopSignals::StopSignals() {
  g_stop_signal.store(false);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART; // let the request in flight finish; we stop between requests
  sigaction(SIGINT, &action, &g_old_int);
  sigaction(SIGTERM, &action, &g_old_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

void add_remedy_flags(CLI::App& sub, RemedyFlags& flags) {
  sub.add_option("--dry-run", flags.dry_run,
                 "none: change the cluster; client: print the plan and a diff per object, send no "
                 "change; server: send every change with dryRun=All and show the server's verdicts")
      ->default_str("none");
  sub.add_flag("-y,--yes", flags.yes, "Do not ask for confirmation (required when stdin is not a terminal)");
  sub.add_option("-o,--output", flags.output, "Output format: table, json or yaml")->default_str("table");
  sub.add_option("--journal-dir", flags.journal_dir, "Where the undo journal is written (default ~/.kube/gpuslice)");
}

remedy::DryRun parse_dry_run(const std::string& value) {
  if (value == "none" || value.empty() || value == "false") return remedy::DryRun::none;
  if (value == "client" || value == "true") return remedy::DryRun::client;
  if (value == "server") return remedy::DryRun::server;
  throw UsageError(fmt::format("--dry-run \"{}\": must be none, client or server", value));
}

ExitCode run_remedy(const std::string& command, const RemedyFlags& flags, const GlobalFlags& global, Env& env,
                    const Planner& planner, const Prefetch& prefetch, const WaitGoal* goal,
                    const std::function<void(const Snapshot&)>& after_changes) {
  const remedy::DryRun dry_run = parse_dry_run(flags.dry_run);
  const report::Format format = output_format(flags.output);
  const std::chrono::seconds timeout = parse_timeout(flags.timeout);
  if (dry_run == remedy::DryRun::none && !flags.yes && ::isatty(STDIN_FILENO) == 0) {
    throw UsageError(fmt::format("{}: refusing to change the cluster without --yes when stdin is not a "
                                 "terminal (add --dry-run=client to see the plan)",
                                 command));
  }
  // From here on SIGINT/SIGTERM only sets a flag, so a signal while the cluster is read is not
  // lost (a background job of a script inherits SIGINT ignored) and stops the run before the
  // first change; the executor checks it between requests.
  auto signals = std::make_unique<StopSignals>();
  std::unique_ptr<kube::Client> client = open_client(global, env.err);
  // Not freed before the exit (keep_until_exit.hpp): at 5,000 nodes that took ~0.08 s.
  const KeptUntilExit<Snapshot> kept(std::make_unique<Snapshot>(collect::collect(*client, live_scope(false, global))));
  Snapshot& snapshot = *kept;
  if (prefetch) prefetch(*client, snapshot);
  const remedy::Plan plan = planner(snapshot);

  if (plan.platform) {
    print_remedy_plan(plan, nullptr, format, dry_run != remedy::DryRun::none, env);
    if (dry_run != remedy::DryRun::none) return ExitCode::ok;
    throw RuntimeError(fmt::format("{}: nothing was changed: {}", command, plan.platform->why));
  }
  if (dry_run == remedy::DryRun::client) {
    remedy::ExecuteOptions options;
    options.dry_run = remedy::DryRun::client;
    const remedy::ExecuteResult live = remedy::execute(plan, *client, options);
    print_remedy_plan(plan, &live, format, true, env);
    if (!live.failure.empty()) throw RuntimeError(live.failure);
    return ExitCode::ok;
  }
  if (!plan.has_changes()) {
    print_remedy_plan(plan, nullptr, format, false, env);
    if (format == report::Format::table) env.out << "Nothing to change: the cluster is already as planned.\n";
    return ExitCode::ok;
  }

  const std::vector<std::string> denied = remedy::denied_permissions(*client, remedy::permissions_needed(plan));
  if (!denied.empty()) {
    std::string list;
    for (const std::string& permission : denied) list += "\n  " + permission;
    throw RuntimeError(fmt::format("{}: nothing was changed: you lack {} permission(s) the plan needs:{}", command,
                                   denied.size(), list));
  }

  if (dry_run == remedy::DryRun::server) {
    remedy::ExecuteOptions options;
    options.dry_run = remedy::DryRun::server;
    const remedy::ExecuteResult verdicts = remedy::execute(plan, *client, options);
    print_remedy_result(verdicts, "", format, env);
    for (const remedy::ChangeOutcome& outcome : verdicts.outcomes) {
      if (outcome.status == "failed") return ExitCode::runtime;
    }
    return ExitCode::ok;
  }

  if (!flags.yes) {
    env.out << render_plan_text(plan, nullptr);
    const bool stopped = stop_signal_received();
    signals.reset(); // Ctrl-C at the prompt ends the program, as it would anywhere else
    if (stopped || !confirm_on_terminal(env)) {
      env.err << "Nothing was changed.\n";
      return ExitCode::ok;
    }
    signals = std::make_unique<StopSignals>();
  } else if (format == report::Format::table) {
    env.out << render_plan_text(plan, nullptr);
  }

  remedy::Journal journal(flags.journal_dir.empty() ? remedy::default_journal_dir() : flags.journal_dir,
                          {{"command", command},
                           {"context", snapshot.meta.context},
                           {"server", snapshot.meta.server},
                           {"startedAt", snapshot.meta.collected_at},
                           {"settings", remedy::plan_settings(plan)}}); // what verify checks by default
  remedy::ExecuteOptions options;
  options.journal = &journal;
  options.stop_requested = stop_signal_received;
  const remedy::ExecuteResult result = remedy::execute(plan, *client, options);
  print_remedy_result(result, journal.path(), format, env);
  if (result.interrupted) {
    throw ApplyIncomplete(fmt::format("{}: interrupted after {} change(s); the journal holds what was done",
                                      command, result.mutations),
                          journal.path());
  }
  if (!result.failure.empty()) {
    if (result.mutations == 0 && result.unconfirmed == 0) throw RuntimeError(result.failure + " (nothing was changed)");
    const std::string unknown = result.unconfirmed > 0 ? "; that change may have been made all the same" : "";
    throw ApplyIncomplete(fmt::format("{} (after {} change(s){})", result.failure, result.mutations, unknown),
                          journal.path());
  }
  if (after_changes) {
    try {
      after_changes(snapshot); // e.g. helm, after the API changes: a failure leaves them made
    } catch (const RuntimeError& e) {
      throw ApplyIncomplete(fmt::format("{}: {} (after {} change(s))", command, e.what(), result.mutations),
                            journal.path());
    }
  }
  if (format == report::Format::table) {
    env.err << fmt::format("To undo: {} undo --journal {}\n", env.program, journal.path());
  }
  if (flags.wait && goal != nullptr) wait_for_goal(*client, global, env, snapshot, *goal, timeout, command, journal.path());
  // A signal during the last request: every change was made, but the user asked to stop before
  // the end of the command; say how to undo, as for any interruption.
  if (stop_signal_received()) {
    throw ApplyIncomplete(fmt::format("{}: interrupted after its last change; the cluster has every change", command),
                          journal.path());
  }
  return ExitCode::ok;
}

} // namespace gpuslice::cli
