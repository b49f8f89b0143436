// SPDX-License-Identifier: Apache-2.0
// diagnose's flags, their validation (before any request: exit 2), and the pure decisions
// made from them after analysis (which findings to drop, which exit code).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/report.hpp>

namespace gpuslice::cli {

struct DiagnoseOptions {
  bool all_namespaces = false;         // -A; the default when -n is not given
  std::string output = "table";
  std::string fail_on = "error";       // error | warning | info | never
  std::vector<std::string> ignore;     // finding codes, comma-separated or repeated
  std::vector<std::string> from_files; // diagnose offline
  int replicas = 0;                    // the sharing factor to recommend; 0 = derive
  bool replicas_given = false;         // --replicas was on the command line (an explicit 0 is refused)
  std::vector<std::string> contexts;   // fleet: diagnose these kubeconfig contexts
  bool all_contexts = false;           // fleet: every context of the kubeconfig
};

// The options once checked: typed values only.
struct ValidDiagnoseOptions {
  report::Format format = report::Format::table;
  std::optional<report::DocumentFormat> document; // -o markdown|junit (one cluster only)
  std::optional<diagnose::Severity> fail_on; // nullopt = never
  std::set<diagnose::FindingCode> ignored;
};

void add_diagnose_flags(CLI::App& sub, DiagnoseOptions& options);

// Throws UsageError naming the flag and value. `context_flag` is the global --context, which
// the fleet flags exclude.
ValidDiagnoseOptions validate_diagnose_options(const DiagnoseOptions& options,
                                               const std::string& context_flag = "");

// Removes findings whose code is ignored.
void drop_ignored(diagnose::Diagnosis& diagnosis, const std::set<diagnose::FindingCode>& ignored);

// 1 when any finding is at or above fail_on (error is the most severe), else 0.
ExitCode exit_code_for(const diagnose::Diagnosis& diagnosis,
                       const std::optional<diagnose::Severity>& fail_on);

} // namespace gpuslice::cli
