// SPDX-License-Identifier: Apache-2.0
// The flags of each remedy step, shared by the step's own subcommand and `apply`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include <gpuslice/remedy/plan.hpp>

namespace gpuslice::cli {

// --replicas, --config-name, --config-namespace, --config-key, --rename-by-default,
// --fail-requests-greater-than-one, --resource, --from-file (path kept in options.from_file_name).
void add_config_flags(CLI::App& sub, remedy::ConfigApplyOptions& options);
// Reads --from-file into options.from_file_text; UsageError naming the file when unreadable.
void load_config_file(remedy::ConfigApplyOptions& options);
// --taint-key, --taint-value, --taint-effect.
void add_taint_flags(CLI::App& sub, remedy::TaintOptions& taint);

} // namespace gpuslice::cli
