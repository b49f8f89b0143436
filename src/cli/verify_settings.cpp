// SPDX-License-Identifier: Apache-2.0
#include "cli/verify_settings.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <gpuslice/model/taints.hpp>

namespace gpuslice::cli {

remedy::VerifySettings resolve_verify_settings(const remedy::SettingFlags& given, const Snapshot& snapshot,
                                               const std::string& journal_dir) {
  const std::string dir = journal_dir.empty() ? remedy::default_journal_dir() : journal_dir;
  std::optional<remedy::AppliedSettings> journal;
  const std::string path = remedy::newest_journal(
      dir, [&](const nlohmann::json& header) { return remedy::is_apply_journal_for(header, snapshot.meta); });
  if (!path.empty()) journal = remedy::settings_from_journal(remedy::read_journal(path), path);
  const std::optional<remedy::AppliedSettings> config = remedy::settings_from_config(snapshot);
  const std::string context = snapshot.meta.context.empty() ? "" : fmt::format(" of context {}", snapshot.meta.context);
  return remedy::choose_verify_settings(
      given, journal, config,
      fmt::format("the apply journals{} in {} nor in a time-slicing config the device plugin reads", context, dir));
}

namespace {

// The journal the settings came from, "-" when none.
std::string settings_journal(const remedy::VerifySettings& settings) {
  for (const std::string* from : {&settings.replicas_from, &settings.taint_from}) {
    if (from->starts_with("journal ")) return *from;
  }
  return "-";
}

} // namespace

nlohmann::ordered_json settings_from_json(const remedy::VerifySettings& settings) {
  nlohmann::ordered_json out;
  out["replicas"] = settings.replicas_from;
  out["taint"] = settings.taint_from;
  out["resource"] = settings.resource;
  out["resourceFrom"] = settings.resource_from.empty() ? "none" : settings.resource_from;
  out["nodes"] = settings.nodes;
  out["nodesFrom"] = settings.nodes_from.empty() ? "none" : settings.nodes_from;
  return out;
}

std::string settings_from_line(const remedy::VerifySettings& settings) {
  if (settings.replicas_from == "flag" && settings.taint_from != settings_journal(settings)) return {};
  // Each setting with its source, then one clause per source: the journal's path said once.
  std::vector<std::pair<std::string, std::string>> said = {
      {fmt::format("replicas {}", settings.replicas), settings.replicas_from},
      {settings.taint ? "taint " + model::to_string(*settings.taint) : std::string("no taint"),
       settings.taint_from == "none" ? "no flag or apply journal" : settings.taint_from}};
  if (!settings.resource_from.empty()) said.emplace_back("resource " + settings.resource, settings.resource_from);
  if (!settings.nodes_from.empty())
    said.emplace_back(fmt::format("{} node(s)", settings.nodes.size()), settings.nodes_from);
  std::vector<std::string> clauses;
  std::vector<std::string> sources;
  for (const auto& [text, from] : said) {
    const auto known = std::find(sources.begin(), sources.end(), from);
    if (known == sources.end()) {
      sources.push_back(from);
      clauses.push_back(text);
    } else {
      clauses[static_cast<std::size_t>(known - sources.begin())] += ", " + text;
    }
  }
  std::string line = "verify:";
  for (std::size_t i = 0; i < clauses.size(); ++i)
    line += fmt::format("{} {} from {}", i == 0 ? "" : ";", clauses[i], sources[i]);
  return line + "\n";
}

} // namespace gpuslice::cli
