// SPDX-License-Identifier: Apache-2.0
// `undo`: restore the cluster from the journal of an earlier apply or step run.
#include <unistd.h>

#include <fmt/format.h>

#include <gpuslice/report.hpp>

#include "cli/apply_run.hpp"
#include "cli/commands.hpp"
#include "cli/output_flags.hpp"

namespace gpuslice::cli {

namespace {

struct UndoCommand {
  std::string journal;
  std::string journal_dir;
  bool smoke = false; // the newest `verify --smoke` journal instead of the newest change journal
  bool force = false;
  bool dry_run = false;
  bool yes = false;
  std::string output = "table";
};

nlohmann::ordered_json undo_to_json(const remedy::UndoResult& result, const std::string& journal) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "gpuslice/v1alpha1";
  out["kind"] = "UndoResult";
  out["journal"] = journal;
  out["refused"] = result.refused;
  out["complete"] = !result.refused && !result.interrupted && result.failure.empty();
  out["objects"] = nlohmann::ordered_json::array();
  for (const remedy::UndoOutcome& outcome : result.outcomes) {
    out["objects"].push_back({{"kind", outcome.target.kind},
                              {"namespace", outcome.target.ns},
                              {"name", outcome.target.name},
                              {"status", outcome.status},
                              {"message", outcome.message}});
  }
  return out;
}

// The newest journal of an apply, step or plugin run; with --smoke, of a `verify --smoke` run
// (a smoke run removes its journal once its Deployment is gone, so one left was killed).
std::string chosen_journal(const UndoCommand& options) {
  const std::string dir = options.journal_dir.empty() ? remedy::default_journal_dir() : options.journal_dir;
  const std::string path = remedy::newest_journal(dir, [&](const nlohmann::json& header) {
    return (header.value("command", "") == remedy::k_smoke_journal_command) == options.smoke;
  });
  if (path.empty())
    throw UsageError(fmt::format("no {} journal in {}: nothing to undo (or pass --journal FILE)",
                                 options.smoke ? "verify --smoke" : "apply", dir));
  return path;
}

ExitCode run_undo(const UndoCommand& options, const GlobalFlags& global, Env& env) {
  const report::Format format = output_format(options.output);
  std::string path = options.journal;
  if (!path.empty() && options.smoke) throw UsageError("--smoke and --journal: give one (--journal names the file)");
  if (path.empty()) path = chosen_journal(options);
  const remedy::JournalFile journal = remedy::read_journal(path);
  if (!options.dry_run && !options.yes && ::isatty(STDIN_FILENO) == 0) {
    throw UsageError("undo: refusing to change the cluster without --yes when stdin is not a terminal");
  }
  std::unique_ptr<kube::Client> client = open_client(global, env.err);
  StopSignals signals;
  remedy::UndoOptions undo_options;
  undo_options.force = options.force;
  undo_options.dry_run = options.dry_run;
  undo_options.stop_requested = stop_signal_received;
  const remedy::UndoResult result = remedy::undo(journal, *client, undo_options);
  if (format == report::Format::json) {
    env.out << undo_to_json(result, path).dump(2) << "\n";
  } else if (format == report::Format::yaml) {
    env.out << report::to_yaml(undo_to_json(result, path));
  } else {
    env.out << fmt::format("Undoing {} ({} object(s))\n", path, result.outcomes.size());
    for (const remedy::UndoOutcome& outcome : result.outcomes) {
      env.out << fmt::format("  {} {}: {}\n", outcome.status, outcome.target.display(), outcome.message);
    }
  }
  if (result.refused) {
    throw RuntimeError("undo refused: objects were changed by someone else since the run (see 'conflict' "
                       "above); nothing was changed. Re-run with --force to restore them anyway");
  }
  if (result.interrupted) throw ApplyIncomplete("undo interrupted", path);
  if (!result.failure.empty()) throw ApplyIncomplete("undo failed: " + result.failure, path);
  return ExitCode::ok;
}

} // namespace

void add_undo(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand("undo", "Restore the cluster from the journal of an earlier apply or step run.");
  sub->footer(fmt::format("Examples:\n"
                          "  # Undo the newest apply (or step, or plugin) run\n"
                          "  {0} undo --yes\n\n"
                          "  # Remove the Deployment of a `verify --smoke` run that was killed\n"
                          "  {0} undo --smoke --yes\n\n"
                          "  # See what undo would do\n"
                          "  {0} undo --dry-run --journal ~/.kube/gpuslice/journal-20261202T180000Z-42.jsonl",
                          env.program));
  auto options = std::make_shared<UndoCommand>();
  sub->add_option("--journal", options->journal,
                  "The journal to undo (default: the newest of an apply, step or plugin run)");
  sub->add_flag("--smoke", options->smoke, "Undo the newest `verify --smoke` journal instead (a killed smoke run)");
  sub->add_option("--journal-dir", options->journal_dir, "Where journals are (default ~/.kube/gpuslice)");
  sub->add_flag("--force", options->force, "Restore objects even when someone changed them since");
  sub->add_flag("--dry-run", options->dry_run, "Show what would be restored; change nothing");
  sub->add_flag("-y,--yes", options->yes, "Do not ask (required when stdin is not a terminal)");
  sub->add_option("-o,--output", options->output, "Output format: table, json or yaml")->default_str("table");
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_undo(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
