// SPDX-License-Identifier: Apache-2.0
#include <sstream>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "cli/commands.hpp"

namespace {

struct ExplainRun {
  gpuslice::ExitCode code;
  std::string out;
  std::string err;
};

ExplainRun run_explain_cli(std::vector<const char*> args) {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  args.insert(args.begin(), "kubectl-gpuslice");
  const gpuslice::ExitCode code = gpuslice::cli::run(static_cast<int>(args.size()), args.data(), env);
  return {code, out.str(), err.str()};
}

} // namespace

TEST_CASE("cli explain") {
  SUBCASE("a code prints meaning, why it matters, fix and reference") {
    const ExplainRun r = run_explain_cli({"explain", "GS300"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out.rfind("GS300 time-slicing-disabled (error)\n", 0) == 0);
    for (const char* heading : {"What it means\n", "Why it matters\n", "How to fix it\n", "Reference\n"}) {
      CHECK_MESSAGE(r.out.find(heading) != std::string::npos, heading);
    }
    CHECK(r.out.find("kubectl gpuslice apply --replicas N") != std::string::npos);
  }
  SUBCASE("codes are case-insensitive") {
    CHECK(run_explain_cli({"explain", "gs700"}).out.rfind("GS700 gpu-metrics-missing", 0) == 0);
  }
  SUBCASE("an unknown code is a usage error naming the nearest code") {
    const ExplainRun r = run_explain_cli({"explain", "GS30"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    CHECK(r.err.find("explain \"GS30\": no such finding code (did you mean GS300?)") != std::string::npos);
    CHECK(r.out.empty());
  }
  SUBCASE("no code lists the whole catalog") {
    const ExplainRun r = run_explain_cli({"explain"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    for (const gpuslice::diagnose::CatalogEntry& e : gpuslice::diagnose::catalog()) {
      CHECK(r.out.find(gpuslice::diagnose::to_string(e.code) + " ") != std::string::npos);
    }
  }
}

TEST_CASE("diagnose::catalog explanations are complete") {
  for (const gpuslice::diagnose::CatalogEntry& e : gpuslice::diagnose::catalog()) {
    INFO(gpuslice::diagnose::to_string(e.code));
    CHECK_FALSE(e.why.empty());
    CHECK_FALSE(e.fix.empty());
    CHECK_FALSE(e.reference.empty());
  }
}

// Every subcommand, as the CLI defines it now (new ones included without editing this test),
// has a description and runnable examples written as `kubectl gpuslice <path> …`.
TEST_CASE("cli help: every subcommand has a description and examples") {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  gpuslice::cli::Commands commands;
  CLI::App app;
  gpuslice::cli::build_app(app, commands, env);
  std::vector<const CLI::App*> pending{&app};
  while (!pending.empty()) {
    const CLI::App* a = pending.back();
    pending.pop_back();
    for (const CLI::App* sub : a->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      pending.push_back(sub);
      if (!sub->get_subcommands([](const CLI::App*) { return true; }).empty()) continue; // a group: its leaves show examples
      std::string path = sub->get_name();
      for (const CLI::App* p = sub->get_parent(); p != nullptr && p != &app; p = p->get_parent()) {
        path = p->get_name() + " " + path;
      }
      INFO("subcommand: ", path);
      CHECK_FALSE(sub->get_description().empty());
      const std::string help = sub->help();
      CHECK(help.find("Examples:") != std::string::npos);
      CHECK(help.find("kubectl gpuslice " + path) != std::string::npos);
    }
  }
}
