// SPDX-License-Identifier: Apache-2.0
// `--wait` of apply: after the changes, poll the cluster until the plugin has rolled out, the GPU
// nodes advertise physical × replicas and no GPU pod is Pending — or the timeout passes.
#include <thread>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/remedy/verify.hpp>

#include "cli/apply_run.hpp"
#include "cli/progress.hpp"
#include "cli/snapshot_source.hpp"

namespace gpuslice::cli {

namespace {

constexpr auto k_wait_poll = std::chrono::milliseconds(1000);

// "ns/name" of the GPU pods Pending before the change: they must be scheduled (or replaced).
std::vector<std::string> pending_gpu_pods(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const model::Pod& pod : snapshot.pods)
    if (pod.is_unscheduled() && model::gpu_units(model::effective_gpu_requests(pod.spec)) > 0)
      out.push_back(pod.meta.ns + "/" + pod.meta.name);
  return out;
}

} // namespace

void sleep_unless_stopped(std::chrono::milliseconds total) {
  const auto step = std::chrono::milliseconds(50);
  for (auto slept = std::chrono::milliseconds(0); slept < total && !stop_signal_received(); slept += step)
    std::this_thread::sleep_for(step);
}

void add_wait_flags(CLI::App& sub, RemedyFlags& flags) {
  sub.add_flag("--wait,!--no-wait", flags.wait,
               "After the changes, wait until the plugin has rolled out, every GPU node advertises physical × "
               "replicas and no GPU pod is Pending (--wait=false or --no-wait: do not wait)")
      ->default_str(flags.wait ? "true" : "false");
  sub.add_option("--timeout", flags.timeout, "How long --wait waits, e.g. 90s, 5m, 1h")->default_str(flags.timeout);
}

std::chrono::seconds parse_timeout(const std::string& value) {
  std::size_t used = 0;
  long long number = -1;
  try {
    number = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = value.substr(used);
  long long scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (used == 0 || number <= 0 || scale == 0 || number > 7 * 24 * 3600)
    throw UsageError(fmt::format("--timeout \"{}\": must be a positive duration such as 90s, 5m or 1h", value));
  return std::chrono::seconds(number * scale);
}

void wait_for_goal(kube::Client& client, const GlobalFlags& global, Env& env, const Snapshot& before,
                   const WaitGoal& goal, std::chrono::seconds timeout, const std::string& command,
                   const std::string& journal) {
  remedy::VerifyOptions options;
  options.replicas = goal.replicas;
  options.resource = goal.resource;
  options.changed_at = before.meta.collected_at; // nodes that join while we wait are checked too
  options.formerly_pending = pending_gpu_pods(before);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  Progress progress(env, global);
  remedy::RolloutStatus status;
  for (;;) {
    const Snapshot now = collect::collect(client, live_scope(false, global));
    status = remedy::rollout_status(now, options);
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
    if (status.done()) {
      progress.clear();
      if (!global.quiet)
        env.err << fmt::format("Time-slicing is in effect after {}s: {}\n", elapsed.count(), status.line(goal.replicas));
      return;
    }
    progress.update(fmt::format("waiting {}s: {}", elapsed.count(), status.line(goal.replicas)));
    if (stop_signal_received()) {
      progress.clear();
      throw ApplyIncomplete(fmt::format("{}: interrupted while waiting; every change was made, but {}", command,
                                        status.waiting_for.front()),
                            journal);
    }
    if (std::chrono::steady_clock::now() + k_wait_poll > deadline) break;
    sleep_unless_stopped(k_wait_poll);
  }
  progress.clear();
  std::string missing;
  for (const std::string& line : status.waiting_for) missing += "\n  " + line;
  throw RuntimeError(fmt::format("{}: timed out after {}s waiting for time-slicing to take effect ({}); every change "
                                 "was made: check with '{} verify --replicas {}', undo with '{} undo --journal {}':{}",
                                 command, timeout.count(), status.line(goal.replicas), env.program, goal.replicas,
                                 env.program, journal, missing));
}

} // namespace gpuslice::cli
