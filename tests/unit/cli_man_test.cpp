// SPDX-License-Identifier: Apache-2.0
// The man page documents the CLI as built: every subcommand, every flag (read from the CLI11
// tree, so a new flag without documentation fails here, by name) and every finding code.
#include <fstream>
#include <sstream>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/diagnose.hpp>

#include "cli/commands.hpp"

namespace {

// The man page source with roff's escaped hyphens ("\-") as plain hyphens.
std::string man_page_text() {
  std::ifstream in(std::string(GPUSLICE_SOURCE_DIR) + "/man/kubectl-gpuslice.1");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '-') continue;
    plain += text[i];
  }
  return plain;
}

} // namespace

TEST_CASE("man page covers the CLI") {
  const std::string man = man_page_text();
  REQUIRE(man.size() > 1000);
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  gpuslice::cli::Commands commands;
  CLI::App app;
  gpuslice::cli::build_app(app, commands, env);

  std::vector<std::pair<std::string, const CLI::App*>> pending{{"", &app}};
  while (!pending.empty()) {
    const auto [path, a] = pending.back();
    pending.pop_back();
    if (!path.empty()) {
      INFO("subcommand: ", path);
      CHECK_MESSAGE(man.find(".SS " + path + "\n") != std::string::npos,
                    "man/kubectl-gpuslice.1 has no '.SS " << path << "' section");
    }
    for (const CLI::Option* opt : a->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      for (const std::string& name : opt->get_lnames()) {
        CHECK_MESSAGE(man.find("--" + name) != std::string::npos,
                      "flag --" << name << " of '" << (path.empty() ? "(global)" : path) << "' is not in the man page");
      }
      for (const std::string& name : opt->get_snames()) {
        CHECK_MESSAGE(man.find("-" + name) != std::string::npos,
                      "flag -" << name << " of '" << (path.empty() ? "(global)" : path) << "' is not in the man page");
      }
    }
    for (const CLI::App* sub : a->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      pending.emplace_back(path.empty() ? sub->get_name() : path + " " + sub->get_name(), sub);
    }
  }
}

TEST_CASE("man page lists the finding catalog") {
  const std::string man = man_page_text();
  for (const gpuslice::diagnose::CatalogEntry& e : gpuslice::diagnose::catalog()) {
    const std::string entry = "\\fB" + gpuslice::diagnose::to_string(e.code) + "\\fR " + std::string(e.name) + " (" +
                              std::string(gpuslice::diagnose::to_string(e.severity)) + ")";
    CHECK_MESSAGE(man.find(entry) != std::string::npos, "the man page lacks: " << entry);
  }
}

TEST_CASE("man page: exit codes and environment") {
  const std::string man = man_page_text();
  for (const char* needed : {".SH EXIT STATUS", ".SH ENVIRONMENT", "KUBECONFIG", "NO_COLOR", ".SH FILES",
                             "~/.kube/gpuslice/", ".SH EXAMPLES"}) {
    CHECK_MESSAGE(man.find(needed) != std::string::npos, needed);
  }
}
