// SPDX-License-Identifier: Apache-2.0
// The text of a finished run: a run that deleted or changed Secrets (Helm release records) says
// that the journal keeps them whole; other runs say nothing of the kind.
#include <doctest/doctest.h>

#include <string>

#include "cli/apply_run.hpp"

namespace {

gpuslice::remedy::ChangeOutcome render_outcome(const std::string& kind, const std::string& status) {
  gpuslice::remedy::ChangeOutcome outcome;
  outcome.step = "plugin uninstall";
  outcome.target.api_version = "v1";
  outcome.target.kind = kind;
  outcome.target.ns = "nvidia-device-plugin";
  outcome.target.name = kind == "Secret" ? "sh.helm.release.v1.nvdp.v1" : "nvdp-nvidia-device-plugin";
  outcome.status = status;
  outcome.before = {{"kind", kind}, {"metadata", {{"name", outcome.target.name}}}};
  return outcome;
}

const char* const k_journal_note = "Note: the journal keeps the";

} // namespace

TEST_CASE("cli::render_result_text calls out Secrets kept in the journal") {
  gpuslice::remedy::ExecuteResult result;
  result.outcomes.push_back(render_outcome("DaemonSet", "deleted"));
  SUBCASE("no Secret written: no note") {
    CHECK(gpuslice::cli::render_result_text(result, "/j.jsonl").find(k_journal_note) == std::string::npos);
  }
  SUBCASE("a Secret left unchanged: no note") {
    result.outcomes.push_back(render_outcome("Secret", "unchanged"));
    CHECK(gpuslice::cli::render_result_text(result, "/j.jsonl").find(k_journal_note) == std::string::npos);
  }
  SUBCASE("Secrets deleted, or a failed write of one (journaled before it was sent): counted in the note") {
    result.outcomes.push_back(render_outcome("Secret", "deleted"));
    result.outcomes.push_back(render_outcome("Secret", "failed"));
    const std::string text = gpuslice::cli::render_result_text(result, "/j.jsonl");
    CHECK(text.find("Note: the journal keeps the 2 Secret(s) above as they were, data included") != std::string::npos);
    CHECK(text.find("delete it once you no longer need undo") != std::string::npos);
  }
  SUBCASE("no journal (a server dry run): no note") {
    result.outcomes.push_back(render_outcome("Secret", "deleted"));
    CHECK(gpuslice::cli::render_result_text(result, "").find(k_journal_note) == std::string::npos);
  }
}
