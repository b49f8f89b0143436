// SPDX-License-Identifier: Apache-2.0
// `verify`'s flags and their validation, apart from running, so argv → options is testable.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/remedy/verify.hpp>
#include <gpuslice/report.hpp>

namespace gpuslice::cli {

struct VerifyFlags {
  int replicas = 0;
  std::string taint;                       // KEY=VALUE:EFFECT, "" = not checked
  std::vector<std::string> was_pending;    // ns/name of pods Pending before the change
  std::string output = "table";
  std::vector<std::string> from_files;
};

// Adds --replicas, --taint, --was-pending, -o, -f to sub.
void add_verify_flags(CLI::App& sub, VerifyFlags& flags);

struct ValidVerifyFlags {
  remedy::VerifyOptions options;
  report::Format format = report::Format::table;
};

// Throws UsageError naming the flag: --replicas missing or < 1, a --taint kubectl would refuse
// (no key or an effect other than NoSchedule, PreferNoSchedule, NoExecute), a --was-pending
// entry not of the form ns/name, an unknown -o.
ValidVerifyFlags validate_verify_flags(const VerifyFlags& flags);

} // namespace gpuslice::cli
