// SPDX-License-Identifier: Apache-2.0
// diagnose across clusters: --contexts a,b or --all-contexts. Clusters are read in parallel;
// one that fails is reported in its row and does not stop the others.
#pragma once

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/diagnose_options.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

// The contexts to diagnose: --contexts as given, or every context of the kubeconfig for
// --all-contexts. Throws UsageError for a context the kubeconfig lacks (nothing sent yet).
std::vector<std::string> fleet_contexts(const DiagnoseOptions& options, const GlobalFlags& global);

// Diagnoses each context and prints one summary table (or a JSON/YAML array of Diagnosis
// objects, a failed cluster as kind DiagnosisError). Exit: 3 if any cluster could not be
// read, else 1 if any has a finding at or above --fail-on, else 0.
ExitCode run_fleet(const DiagnoseOptions& options, const ValidDiagnoseOptions& valid,
                   const GlobalFlags& global, Env& env);

} // namespace gpuslice::cli
