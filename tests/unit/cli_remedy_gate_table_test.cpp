// SPDX-License-Identifier: Apache-2.0
// Issue 20's table test: on every snapshot fixture in the repository (the files diagnose reads
// with --from-file, and the analyzer tests' built clusters), every `kubectl gpuslice apply
// --replicas N` that diagnose offers passes the placement check it is gated by.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/diagnose.hpp>

#include "unit/diagnose_scenarios.hpp"
#include "unit/remedy_gate_scenarios.hpp"

namespace {

// fakekube scenarios with a top-level `simulation:` key are a simulation's start state, read by
// fakekube --simulate, not a snapshot diagnose reads; their snapshot twin is the file without -sim.
bool is_simulation_scenario(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = "\n" + text.str();
  return s.find("\nsimulation:") != std::string::npos;
}

std::vector<std::pair<std::string, gpuslice::Snapshot>> every_fixture() {
  std::vector<std::pair<std::string, gpuslice::Snapshot>> out;
  const std::filesystem::path root(GPUSLICE_SOURCE_DIR);
  for (const char* dir : {"examples", "tests/fixtures/scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".json" && ext != ".yaml") continue;
      if (is_simulation_scenario(entry.path())) continue;
      out.emplace_back(entry.path().string(), gpuslice::collect::load_snapshot_files({entry.path().string()}));
    }
  }
  out.emplace_back("scenarios::healthy", scenarios::healthy());
  out.emplace_back("scenarios::incident", scenarios::incident());
  for (auto& named : gate::all()) out.push_back(std::move(named));
  return out;
}

} // namespace

TEST_CASE("every offered apply --replicas N places at least one pending pod, on every fixture") {
  const std::regex apply(R"(^kubectl gpuslice apply --replicas (\d+)$)");
  int offered = 0;
  int fixtures = 0;
  for (const auto& [name, snapshot] : every_fixture()) {
    ++fixtures;
    const gpuslice::diagnose::Diagnosis d = gpuslice::diagnose::analyze(snapshot);
    for (const gpuslice::diagnose::Finding& f : d.findings) {
      std::smatch m;
      if (!std::regex_match(f.remedy.command, m, apply)) continue;
      ++offered;
      const gpuslice::diagnose::FitCheck fit = gpuslice::diagnose::check_apply_fit(snapshot, std::stoi(m[1].str()));
      INFO(name, ": ", gpuslice::diagnose::to_string(f.code), " offers ", f.remedy.command);
      CHECK((fit.pending == 0 || fit.after > fit.before));
    }
  }
  // The fixtures hold real incidents: the check ran on commands, not on nothing.
  CHECK(fixtures >= 14);
  CHECK(offered >= 13);
}
