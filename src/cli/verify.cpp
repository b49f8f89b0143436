// SPDX-License-Identifier: Apache-2.0
// `verify`: is time-slicing in effect? Reads the cluster (or files), runs the check matrix (and
// with --smoke, the smoke Deployment), prints it; exit 0 when no check failed, 1 otherwise
// (DESIGN §4.1). With --watch it keeps checking as nodes join and judges the last round.
#include <fmt/format.h>

#include <gpuslice/remedy/verify.hpp>
#include <gpuslice/report/verify.hpp>

#include "cli/apply_run.hpp"
#include "cli/commands.hpp"
#include "cli/output_flags.hpp"
#include "cli/snapshot_source.hpp"
#include "cli/verify_options.hpp"
#include "cli/verify_settings.hpp"
#include "cli/verify_smoke.hpp"

namespace gpuslice::cli {

namespace {

// The check matrix as the format asks, with where its settings came from ("settingsFrom" in
// JSON and YAML, one line on stderr otherwise).
void print_verify(const remedy::VerifyReport& result, const ValidVerifyFlags& valid,
                  const remedy::VerifySettings& settings, const Snapshot& snapshot, bool no_color, Env& env) {
  const report::ClusterInfo cluster{snapshot.meta.context, snapshot.meta.server};
  if (valid.format == report::Format::table) {
    env.err << settings_from_line(settings);
    env.out << report::render_verify(result, valid.options, cluster, valid.format, output_style(env, no_color));
    return;
  }
  nlohmann::ordered_json out = report::verify_to_json(result, valid.options, cluster);
  out["settingsFrom"] = settings_from_json(settings);
  env.out << (valid.format == report::Format::json ? out.dump(2) + "\n" : report::to_yaml(out));
}

// --watch: re-reads the cluster every k_watch_poll until the duration is over (or SIGINT/SIGTERM),
// saying on stderr what changed each round; returns the last round's snapshot and report.
constexpr std::chrono::seconds k_watch_poll{5};

remedy::VerifyReport watch_verify(Snapshot& snapshot, remedy::VerifyReport report, const ValidVerifyFlags& valid,
                                  const GlobalFlags& global, Env& env) {
  const StopSignals signals;
  const auto deadline = std::chrono::steady_clock::now() + *valid.watch;
  const auto stamp = [] { return model::format_time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())); };
  if (!global.quiet)
    env.err << fmt::format("{} watching for {}s: {} failed, {} passed\n", stamp(), valid.watch->count(),
                           report.count(remedy::CheckResult::fail), report.count(remedy::CheckResult::pass));
  while (!stop_signal_received() && std::chrono::steady_clock::now() + k_watch_poll <= deadline) {
    sleep_unless_stopped(k_watch_poll);
    if (stop_signal_received()) break;
    snapshot = read_snapshot({}, false, global, env);
    remedy::VerifyReport next = remedy::verify(snapshot, valid.options);
    if (!global.quiet)
      for (const std::string& line : remedy::report_changes(report, next)) env.err << stamp() << " " << line << "\n";
    report = std::move(next);
  }
  return report;
}

ExitCode run_verify(const VerifyFlags& flags, const GlobalFlags& global, Env& env) {
  ValidVerifyFlags valid = validate_verify_flags(flags); // before any request
  // All namespaces unless -n: GPU workloads anywhere share the GPU nodes.
  Snapshot snapshot = read_snapshot(flags.from_files, false, global, env);
  const remedy::VerifySettings settings = resolve_verify_settings(valid.given, snapshot, flags.journal_dir);
  use_verify_settings(valid, settings);
  remedy::VerifyReport result = remedy::verify(snapshot, valid.options);
  if (valid.watch) result = watch_verify(snapshot, std::move(result), valid, global, env);
  if (valid.smoke) {
    std::unique_ptr<kube::Client> client = open_client(global, env.err);
    const std::vector<remedy::CheckRow> smoke =
        run_smoke(*client, snapshot, *valid.smoke, valid.timeout, flags.journal_dir, global, env);
    result.rows.insert(result.rows.end(), smoke.begin(), smoke.end());
  }
  print_verify(result, valid, settings, snapshot, global.no_color, env);
  return result.passed() ? ExitCode::ok : ExitCode::findings;
}

} // namespace

void add_verify(CLI::App& app, Commands& commands, Env& env) {
  CLI::App* sub = app.add_subcommand(
      "verify", "Check that time-slicing is in effect: plugin Ready, slots advertised, labels, taints, pods placed.");
  sub->footer(fmt::format("Examples:\n"
                          "  # After `apply`: is every GPU node advertising what it configured? (replicas and taint\n"
                          "  # from the newest apply journal of this cluster, else the plugin's time-slicing config)\n"
                          "  {0} verify\n\n"
                          "  # Against 4 replicas per GPU, whatever was applied\n"
                          "  {0} verify --replicas 4\n\n"
                          "  # Also check the GPU taint on nodes and that GPU workloads tolerate it\n"
                          "  {0} verify --replicas 4 --taint nvidia.com/gpu=present:NoSchedule\n\n"
                          "  # Check that pods which were Pending are now scheduled, as JSON for a script\n"
                          "  {0} verify --replicas 4 --was-pending ml/train-0,ml/train-1 -o json\n\n"
                          "  # During a scale-up: keep checking for 10 minutes, saying each node that joins\n"
                          "  {0} verify --watch 10m\n\n"
                          "  # Offline, from a snapshot\n"
                          "  {0} verify --replicas 4 --from-file snapshot.json\n\n"
                          "  # Also fill every GPU node's free slots with throw-away one-GPU pods, then remove them\n"
                          "  {0} verify --replicas 4 --smoke --smoke-namespace gpu-smoke --timeout 5m",
                          env.program));
  auto flags = std::make_shared<VerifyFlags>();
  add_verify_flags(*sub, *flags);
  sub->callback([&commands, &env, flags] {
    commands.chosen = [&commands, &env, flags] { return run_verify(*flags, commands.global, env); };
  });
}

} // namespace gpuslice::cli
