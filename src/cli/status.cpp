// SPDX-License-Identifier: Apache-2.0
// `status`: the GPU inventory alone — physical GPUs, time-slicing replicas, slots, requested
// and free per GPU node — from the same pipeline as diagnose.
#include <fmt/format.h>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/report.hpp>

#include "cli/commands.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/output_flags.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

struct StatusOptions {
  bool all_namespaces = false;
  std::string output = "table";
  std::vector<std::string> from_files;
};

ExitCode run_status(const StatusOptions& options, const GlobalFlags& global, Env& env) {
  const report::Format format = output_format(options.output); // validate before any request
  const KeptUntilExit<const Snapshot> kept(
      std::make_unique<const Snapshot>(read_snapshot(options.from_files, options.all_namespaces, global, env)));
  const Snapshot& snapshot = *kept;
  const diagnose::Diagnosis diagnosis = diagnose::analyze(snapshot);
  env.out << report::render_inventory(diagnosis, {snapshot.meta.context, snapshot.meta.server},
                                      format, output_style(env, global.no_color));
  return ExitCode::ok;
}

} // namespace

void add_status(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "status", "Show GPU capacity per node: physical GPUs, time-slicing replicas, slots in use.");
  sub->footer(fmt::format("Examples:\n"
                          "  {0} status\n"
                          "  {0} status -o json\n"
                          "  {0} status --from-file snapshot.json",
                          env.program));
  auto options = std::make_shared<StatusOptions>();
  sub->add_flag("-A,--all-namespaces", options->all_namespaces,
                "Count pods in all namespaces (the default unless -n is given)");
  add_output_flag(*sub, options->output);
  sub->add_option("-f,--from-file", options->from_files, "Read a snapshot or kubectl output instead of the cluster")
      ->delimiter(',');
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] { return run_status(*options, commands.global, env); };
  });
}

} // namespace gpuslice::cli
