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

// What the planners would refuse, checked before anything is sent (DESIGN §4.1: exit 2 sends
// nothing). Each throws UsageError naming the flag and quoting its value.
// --replicas from 2 to 128 unless --from-file gives the whole config; then the config text is
// checked by the config planner itself (pure, on an empty snapshot).
void validate_config_flags(const remedy::ConfigApplyOptions& options);
// A taint key that is a Kubernetes qualified name, a label-value value, and a known effect.
void validate_taint_flags(const remedy::TaintOptions& taint);
// A label selector flag's syntax; "" (no selector) is fine.
void validate_selector_flag(const std::string& flag, const std::string& selector);

} // namespace gpuslice::cli
