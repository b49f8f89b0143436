// SPDX-License-Identifier: Apache-2.0
// Human text for plans and runs: one block per step, one line per object, notes, and for dry
// runs the unified diff of each object as `kubectl diff` shows it (YAML, metadata noise removed).
#include <fmt/format.h>

#include <gpuslice/remedy/diff.hpp>
#include <gpuslice/report.hpp>

#include "cli/apply_run.hpp"

namespace gpuslice::cli {

namespace {

// The object as YAML for a diff, without what the server maintains on its own.
std::string diffable_yaml(const nlohmann::json& object) {
  if (object.is_null()) return "";
  nlohmann::ordered_json tree = object;
  tree.erase("status");
  if (tree.value("kind", "") == "Secret") { // a Helm release Secret holds the release's values
    for (const char* field : {"data", "stringData"})
      if (tree.contains(field) && tree[field].is_object())
        for (auto& value : tree[field]) value = "(redacted)";
  }
  if (tree.contains("metadata")) {
    for (const char* key : {"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp"}) {
      tree["metadata"].erase(key);
    }
  }
  return report::to_yaml(tree);
}

std::string change_marker(const remedy::Change& change) {
  if (!change.changed) return "=";
  switch (change.action) {
  case remedy::Action::create: return "+";
  case remedy::Action::remove: return "-";
  default: return "~";
  }
}

const remedy::ChangeOutcome* live_outcome(const remedy::ExecuteResult* live, const remedy::Step& step,
                                          const remedy::Change& change) {
  if (live == nullptr) return nullptr;
  for (const remedy::ChangeOutcome& outcome : live->outcomes) {
    if (outcome.step == step.name && outcome.target == change.target) return &outcome;
  }
  return nullptr;
}

// Secrets the run deleted or changed: the journal keeps each whole, as it was, for undo.
int secrets_kept_in_journal(const remedy::ExecuteResult& result) {
  int kept = 0;
  for (const remedy::ChangeOutcome& outcome : result.outcomes) {
    const bool written = outcome.status == "deleted" || outcome.status == "patched" || outcome.status == "failed";
    if (outcome.target.kind == "Secret" && written && !outcome.before.is_null()) ++kept;
  }
  return kept;
}

} // namespace

std::string render_plan_text(const remedy::Plan& plan, const remedy::ExecuteResult* live) {
  std::string out;
  if (plan.platform) {
    out += fmt::format("Refused ({}): {}.\n", plan.platform->name, plan.platform->why);
    if (!plan.platform->commands.empty()) out += "Do it with the platform instead:\n";
    for (const std::string& command : plan.platform->commands) out += "  " + command + "\n";
    for (const std::string& note : plan.platform->notes) out += "  note: " + note + "\n";
  }
  int number = 0;
  for (const remedy::Step& step : plan.steps) {
    ++number;
    out += fmt::format("Step {}/{}: {} — {}\n", number, plan.steps.size(), step.name, step.summary);
    for (const remedy::Change& change : step.changes) {
      const remedy::ChangeOutcome* outcome = live_outcome(live, step, change);
      const bool changes_now = change.changed && (outcome == nullptr || outcome->status != "unchanged");
      out += fmt::format("  {} {} {}{}\n", changes_now ? change_marker(change) : "=",
                         changes_now ? std::string(remedy::to_string(change.action)) : "unchanged",
                         change.target.display(), outcome != nullptr && outcome->status == "failed"
                                                      ? " (cannot: " + outcome->message + ")"
                                                      : "");
      if (outcome != nullptr && outcome->status == "would-change") {
        const std::string label = change.target.display();
        std::string diff = remedy::unified_diff(diffable_yaml(outcome->before), diffable_yaml(outcome->after),
                                                "a/" + label, "b/" + label);
        for (std::size_t start = 0; start < diff.size();) {
          const std::size_t end = diff.find('\n', start);
          out += "    " + diff.substr(start, end - start) + "\n";
          start = end == std::string::npos ? diff.size() : end + 1;
        }
      }
    }
    for (const std::string& note : step.notes) out += "  note: " + note + "\n";
  }
  return out;
}

std::string render_result_text(const remedy::ExecuteResult& result, const std::string& journal_path) {
  std::string out;
  for (const remedy::ChangeOutcome& outcome : result.outcomes) {
    out += fmt::format("{}: {} {}{}{}\n", outcome.step, outcome.status, outcome.target.display(),
                       outcome.conflicts > 0 ? fmt::format(" (after {} conflict(s))", outcome.conflicts) : "",
                       outcome.message.empty() ? "" : ": " + outcome.message);
  }
  if (result.interrupted) out += "Interrupted: stopped between requests.\n";
  out += fmt::format("{} change(s) applied.{}\n", result.mutations,
                     journal_path.empty() ? "" : " Journal: " + journal_path);
  if (const int secrets = secrets_kept_in_journal(result); secrets > 0 && !journal_path.empty()) {
    out += fmt::format("Note: the journal keeps the {} Secret(s) above as they were, data included (Helm release "
                       "records hold the chart's values, credentials too), so that undo can restore them. It is "
                       "readable only by you; delete it once you no longer need undo.\n",
                       secrets);
  }
  return out;
}

} // namespace gpuslice::cli
