// SPDX-License-Identifier: Apache-2.0
// `verify --smoke` against the cluster: preflight, create the smoke Deployment, watch its pods
// (progress on a terminal), and delete it in every outcome.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <gpuslice/kube/client.hpp>
#include <gpuslice/remedy/verify_smoke.hpp>

#include "cli/app.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

// Returns the smoke rows (remedy::judge_smoke). Throws RuntimeError before creating anything
// when a permission is denied or an earlier smoke Deployment is still in the namespace. Once
// created, the Deployment is deleted (and its pods waited for) whatever happens: pods Running,
// the timeout, SIGINT/SIGTERM, or an API error (rethrown after the deletion). Its creation is
// journaled in journal_dir ("" = the default) first; the journal is removed with the Deployment,
// so one is left only when the run was killed or could not delete it (`undo --smoke`).
std::vector<remedy::CheckRow> run_smoke(kube::Client& client, const Snapshot& snapshot,
                                        const remedy::SmokeOptions& options, std::chrono::seconds timeout,
                                        const std::string& journal_dir, const GlobalFlags& global, Env& env);

} // namespace gpuslice::cli
