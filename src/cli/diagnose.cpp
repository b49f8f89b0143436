// SPDX-License-Identifier: Apache-2.0
// `diagnose`: why are GPU pods Pending? collect (live or from files) → analyze → render, and
// the exit code from --fail-on (DESIGN §4.1).
#include <algorithm>
#include <memory>
#include <set>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/diagnose.hpp>
#include <gpuslice/report.hpp>

#include "cli/commands.hpp"
#include "cli/diagnose_options.hpp"
#include "cli/fleet.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/output_flags.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

ExitCode run_diagnose(const DiagnoseOptions& options, const GlobalFlags& global, Env& env) {
  const ValidDiagnoseOptions valid = validate_diagnose_options(options, global.kube.context);
  if (options.all_contexts || !options.contexts.empty()) {
    return run_fleet(options, valid, global, env);
  }
  const KeptUntilExit<const Snapshot> kept(
      std::make_unique<const Snapshot>(read_snapshot(options.from_files, options.all_namespaces, global, env)));
  const Snapshot& snapshot = *kept;

  diagnose::AnalyzeOptions analyze_options;
  analyze_options.replicas = options.replicas;
  diagnose::Diagnosis diagnosis = diagnose::analyze(snapshot, analyze_options);
  drop_ignored(diagnosis, valid.ignored);

  const report::ClusterInfo cluster{snapshot.meta.context, snapshot.meta.server};
  if (valid.document) {
    env.out << report::render_diagnosis_document(diagnosis, cluster, *valid.document);
  } else {
    report::print_diagnosis(env.out, diagnosis, cluster, valid.format, output_style(env, global.no_color));
  }
  return exit_code_for(diagnosis, valid.fail_on);
}

} // namespace

void add_diagnose(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "diagnose", "Explain why GPU pods are Pending, with the command that fixes each cause.");
  sub->footer(fmt::format("Examples:\n"
                          "  # Why are GPU pods Pending anywhere in the cluster?\n"
                          "  {0} diagnose\n\n"
                          "  # Only in namespace ml, as JSON for a script\n"
                          "  {0} diagnose -n ml -o json\n\n"
                          "  # A summary to paste into the incident ticket, or JUnit XML for CI\n"
                          "  {0} diagnose -o markdown\n"
                          "  {0} diagnose -o junit > gpuslice-junit.xml\n\n"
                          "  # Offline, from a snapshot or kubectl get -o json output\n"
                          "  {0} diagnose --from-file snapshot.json\n\n"
                          "  # Every cluster of the kubeconfig, one row each\n"
                          "  {0} diagnose --all-contexts\n\n"
                          "  # Fail a CI gate on warnings too, ignoring GS303\n"
                          "  {0} diagnose --fail-on warning --ignore GS303",
                          env.program));
  auto options = std::make_shared<DiagnoseOptions>();
  add_diagnose_flags(*sub, *options);
  sub->callback([&commands, &env, options] {
    commands.chosen = [&commands, &env, options] {
      return run_diagnose(*options, commands.global, env);
    };
  });
}

} // namespace gpuslice::cli
