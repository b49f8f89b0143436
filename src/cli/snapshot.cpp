// SPDX-License-Identifier: Apache-2.0
// `snapshot`: everything diagnose reads, in one kubectl-style List, for offline diagnosis and
// bug reports. Secrets are reduced to metadata and the Helm release summary; mode 0600.
#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>

#include "cli/commands.hpp"
#include "cli/private_file.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

struct SnapshotOptions {
  std::string output_file;
  bool all_namespaces = false;
};

ExitCode run_snapshot(const SnapshotOptions& options, const GlobalFlags& global, Env& env) {
  if (options.output_file.empty()) {
    throw UsageError("--output: name the file to write, e.g. -o snapshot.json (\"-\" for stdout)");
  }
  const Snapshot snapshot = read_snapshot({}, options.all_namespaces, global, env);
  const std::string text = write_snapshot(snapshot);
  if (options.output_file == "-") {
    env.out << text;
    return ExitCode::ok;
  }
  write_private_file(options.output_file, text);
  env.err << fmt::format("wrote {} ({} nodes, {} pods, {} events); diagnose it with: {} diagnose --from-file {}\n",
                         options.output_file, snapshot.nodes.size(), snapshot.pods.size(),
                         snapshot.events.size(), env.program, options.output_file);
  return ExitCode::ok;
}

} // namespace

void add_snapshot(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "snapshot", "Save everything diagnose reads to a file, for offline diagnosis or a bug report.");
  sub->footer(fmt::format("The file holds no Secret data: Helm release Secrets keep only their metadata and\n"
                          "release summary. Pods hold only what diagnose reads of them: no env, command, args,\n"
                          "volumes or annotations, only the PodScheduled condition. It is written with mode 0600.\n\n"
                          "Examples:\n"
                          "  {0} snapshot -o incident.json\n"
                          "  {0} diagnose --from-file incident.json",
                          env.program));
  auto options = std::make_shared<SnapshotOptions>();
  sub->add_option("-o,--output", options->output_file, "File to write (\"-\" for stdout)")->required();
  sub->add_flag("-A,--all-namespaces", options->all_namespaces,
                "Pending pods in all namespaces (the default unless -n is given)");
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_snapshot(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
