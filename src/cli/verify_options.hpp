// SPDX-License-Identifier: Apache-2.0
// `verify`'s flags and their validation, apart from running, so argv → options is testable.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/remedy/verify.hpp>
#include <gpuslice/remedy/verify_settings.hpp>
#include <gpuslice/remedy/verify_smoke.hpp>
#include <gpuslice/report.hpp>

namespace gpuslice::cli {

struct VerifyFlags {
  std::optional<int> replicas;             // unset: from the apply journal or the cluster's config
  std::string taint;                       // KEY=VALUE:EFFECT, "" = not checked
  std::vector<std::string> was_pending;    // ns/name of pods Pending before the change
  std::vector<std::string> nodes;          // --node: the nodes to check; empty: apply's, else every GPU node
  std::string output = "table";
  std::vector<std::string> from_files;
  bool smoke = false;
  std::string smoke_image = std::string(remedy::k_smoke_default_image);
  std::string smoke_namespace = "default";
  std::string timeout = "3m"; // how long the smoke waits for its pods
  std::string journal_dir;    // "" = ~/.kube/gpuslice: apply journals read, smoke journal written
  std::string watch;          // --watch DURATION: "" = one round
};

// Adds --replicas, --taint, --node, --was-pending, -o, -f, --smoke, --smoke-image, --smoke-namespace,
// --timeout, --journal-dir and --watch to sub.
void add_verify_flags(CLI::App& sub, VerifyFlags& flags);

struct ValidVerifyFlags {
  remedy::VerifyOptions options;
  report::Format format = report::Format::table;
  std::optional<remedy::SmokeOptions> smoke; // --smoke (run_id left empty: chosen at run time)
  std::chrono::seconds timeout{180};
  remedy::SettingFlags given; // --replicas, --taint and --node as given; the rest comes from the cluster
  std::optional<std::chrono::seconds> watch; // --watch: re-check for this long
};

// Throws UsageError naming the flag: --replicas < 1 or > 128, a --taint kubectl would refuse
// (no key or an effect other than NoSchedule, PreferNoSchedule, NoExecute), a --was-pending
// entry not of the form ns/name, an unknown -o, --smoke with --from-file (it writes to a live
// cluster), an empty or spaced --smoke-image, a --smoke-namespace that is no namespace name,
// a bad --timeout, a bad --watch or one with --from-file (files do not change) or --smoke.
ValidVerifyFlags validate_verify_flags(const VerifyFlags& flags);

// Puts the chosen replicas, taint, resource and nodes into the check options, replicas and taint
// into the smoke options.
void use_verify_settings(ValidVerifyFlags& valid, const remedy::VerifySettings& settings);

} // namespace gpuslice::cli
