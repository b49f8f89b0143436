// SPDX-License-Identifier: Apache-2.0
// `verify` without --replicas/--taint: finds the newest apply journal of the snapshot's cluster
// and the cluster's time-slicing config, and says which settings came from where.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <gpuslice/remedy/verify_settings.hpp>

namespace gpuslice::cli {

// Flags first, then the newest apply journal for this context in journal_dir ("" = the default
// directory), then the cluster's config. Throws UsageError when none gives the replicas.
remedy::VerifySettings resolve_verify_settings(const remedy::SettingFlags& given, const Snapshot& snapshot,
                                               const std::string& journal_dir);

// {"replicas": source, "taint": source, "resource": …, "resourceFrom": source, …}; a source is
// "flag", "none", "journal <path>" or "configmap <ns>/<name> key <key>".
nlohmann::ordered_json settings_from_json(const remedy::VerifySettings& settings);

// One line for stderr, "" when the replicas came from a flag and the taint from no journal.
std::string settings_from_line(const remedy::VerifySettings& settings);

} // namespace gpuslice::cli
