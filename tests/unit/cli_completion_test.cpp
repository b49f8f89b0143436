// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <sstream>
#include <vector>

#include <doctest/doctest.h>

#include "cli/commands.hpp"
#include "cli/completion.hpp"

namespace {

using gpuslice::cli::Completion;
using gpuslice::cli::ValueKind;

// The CLI as run() builds it, kept alive for the walk.
struct BuiltCli {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  gpuslice::cli::Commands commands;
  CLI::App app;
  BuiltCli() { gpuslice::cli::build_app(app, commands, env); }
};

std::vector<std::string> values_only(const Completion& c) {
  std::vector<std::string> out;
  for (const std::string& s : c.candidates) out.push_back(s.substr(0, s.find('\t')));
  return out;
}

bool completion_has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Completion complete_for_test(const CLI::App& app, std::vector<std::string> words, const std::string& current,
                    std::vector<ValueKind>* asked = nullptr) {
  return gpuslice::cli::complete_words(app, words, current, [asked](ValueKind kind) {
    if (asked != nullptr) asked->push_back(kind);
    switch (kind) {
    case ValueKind::context: return std::vector<std::string>{"prod", "staging"};
    case ValueKind::namespace_name: return std::vector<std::string>{"ml", "kube-system"};
    case ValueKind::node: return std::vector<std::string>{"gpu-1", "gpu-2"};
    default: return std::vector<std::string>{};
    }
  });
}

} // namespace

TEST_CASE("cli::complete_words") {
  BuiltCli cli;
  SUBCASE("the first word completes to every subcommand the CLI defines, with descriptions") {
    const Completion c = complete_for_test(cli.app, {}, "");
    const std::vector<std::string> names = gpuslice::cli::subcommand_names(cli.app);
    REQUIRE(names.size() >= 5);
    CHECK(values_only(c) == names);
    CHECK(c.candidates.front().find('\t') != std::string::npos);
    CHECK(c.directive == gpuslice::cli::k_directive_no_file_completion);
  }
  SUBCASE("a prefix filters subcommands") {
    CHECK(values_only(complete_for_test(cli.app, {}, "di")) == std::vector<std::string>{"diagnose"});
    CHECK(values_only(complete_for_test(cli.app, {}, "ex")) == std::vector<std::string>{"explain"});
  }
  SUBCASE("flags of the subcommand and the inherited global flags") {
    const std::vector<std::string> flags = values_only(complete_for_test(cli.app, {"diagnose"}, "--"));
    CHECK(completion_has(flags, "--fail-on"));
    CHECK(completion_has(flags, "--from-file"));
    CHECK(completion_has(flags, "--context"));
    CHECK(completion_has(flags, "--kubeconfig"));
    CHECK_FALSE(completion_has(flags, "--client")); // version's flag is not diagnose's
    CHECK(values_only(complete_for_test(cli.app, {"diagnose"}, "--fail")) == std::vector<std::string>{"--fail-on"});
  }
  SUBCASE("fixed values of -o and --fail-on") {
    CHECK(values_only(complete_for_test(cli.app, {"diagnose", "-o"}, "")) ==
          std::vector<std::string>{"table", "json", "yaml", "markdown", "junit"});
    CHECK(values_only(complete_for_test(cli.app, {"diagnose", "--fail-on"}, "w")) == std::vector<std::string>{"warning"});
    CHECK(values_only(complete_for_test(cli.app, {"diagnose"}, "--output=j")) ==
          std::vector<std::string>{"--output=json", "--output=junit"});
  }
  SUBCASE("contexts, namespaces and nodes come from the lookup") {
    std::vector<ValueKind> asked;
    CHECK(values_only(complete_for_test(cli.app, {"diagnose", "--context"}, "pr", &asked)) ==
          std::vector<std::string>{"prod"});
    CHECK(values_only(complete_for_test(cli.app, {"status", "-n"}, "", &asked)) ==
          std::vector<std::string>{"ml", "kube-system"});
    CHECK(asked == std::vector<ValueKind>{ValueKind::context, ValueKind::namespace_name});
  }
  SUBCASE("a flag's value is not taken for a subcommand") {
    // "--context diagnose": diagnose is the context's value, so subcommands are still offered.
    CHECK(completion_has(values_only(complete_for_test(cli.app, {"--context", "diagnose"}, "")), "status"));
  }
  SUBCASE("file flags let the shell complete file names") {
    const Completion c = complete_for_test(cli.app, {"diagnose", "--from-file"}, "");
    CHECK(c.candidates.empty());
    CHECK(c.directive == gpuslice::cli::k_directive_default);
  }
  SUBCASE("explain's positional completes finding codes; completion's the shells") {
    const std::vector<std::string> codes = values_only(complete_for_test(cli.app, {"explain"}, "GS30"));
    CHECK(codes == std::vector<std::string>{"GS300", "GS301", "GS302", "GS303", "GS304"});
    CHECK(values_only(complete_for_test(cli.app, {"completion"}, "")) == std::vector<std::string>{"bash", "zsh", "fish"});
  }
}

TEST_CASE("cli::root_option_values") {
  BuiltCli cli;
  const auto values = gpuslice::cli::root_option_values(
      cli.app, {"--kubeconfig", "/tmp/k", "diagnose", "--context=prod", "-o", "json", "--fail-on", "never"});
  REQUIRE(values.size() == 2);
  CHECK(values[0].first->get_name() == "--kubeconfig");
  CHECK(values[0].second == "/tmp/k");
  CHECK(values[1].second == "prod");
}

TEST_CASE("cli::is_completion_request") {
  const char* kubectl_style[] = {"/home/u/.krew/bin/kubectl_complete-gpuslice", "diag"};
  const char* script_style[] = {"kubectl-gpuslice", "__complete", ""};
  const char* normal[] = {"kubectl-gpuslice", "diagnose"};
  CHECK(gpuslice::cli::is_completion_request(2, kubectl_style));
  CHECK(gpuslice::cli::is_completion_request(3, script_style));
  CHECK_FALSE(gpuslice::cli::is_completion_request(2, normal));
}

TEST_CASE("cli::run_completion_request") {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  SUBCASE("kubectl's protocol: candidates, then :directive") {
    const char* argv[] = {"kubectl_complete-gpuslice", "st"};
    CHECK(gpuslice::cli::run_completion_request(2, argv, env) == gpuslice::ExitCode::ok);
    CHECK(out.str().rfind("status\t", 0) == 0);
    CHECK(out.str().ends_with("\n:4\n"));
  }
  SUBCASE("an unreachable cluster completes nothing, silently") {
    const char* argv[] = {"kubectl-gpuslice", "__complete", "--server", "https://127.0.0.1:9", "status", "-n", ""};
    CHECK(gpuslice::cli::run_completion_request(7, argv, env) == gpuslice::ExitCode::ok);
    CHECK(out.str() == ":4\n");
    CHECK(err.str().empty());
  }
}

TEST_CASE("cli::nearest_name") {
  const std::vector<std::string> names{"diagnose", "status", "snapshot", "version", "explain"};
  CHECK(gpuslice::cli::nearest_name("diagnoze", names) == "diagnose");
  CHECK(gpuslice::cli::nearest_name("stauts", names) == "status");
  CHECK(gpuslice::cli::nearest_name("snap", names) == "snapshot"); // unique prefix
  CHECK(gpuslice::cli::nearest_name("frobnicate", names).empty());
  CHECK(gpuslice::cli::nearest_name("", names).empty());
}

TEST_CASE("cli::subcommand_suggestion") {
  BuiltCli cli;
  const char* typo[] = {"kubectl-gpuslice", "--context", "prod", "diagnoze", "-A"};
  CHECK(gpuslice::cli::subcommand_suggestion(cli.app, 5, typo) == "Did you mean 'diagnose'?");
  const char* fine[] = {"kubectl-gpuslice", "diagnose"};
  CHECK(gpuslice::cli::subcommand_suggestion(cli.app, 2, fine).empty());
}

TEST_CASE("cli::run suggests the nearest subcommand") {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  const char* argv[] = {"kubectl-gpuslice", "diagnoze"};
  CHECK(gpuslice::cli::run(2, argv, env) == gpuslice::ExitCode::usage);
  CHECK(err.str().find("Did you mean 'diagnose'?") != std::string::npos);
}

TEST_CASE("cli::completion_script") {
  const std::string bash = gpuslice::cli::completion_script("bash", "kubectl-gpuslice");
  CHECK(bash.find("complete -F _kubectl_gpuslice_complete kubectl-gpuslice") != std::string::npos);
  CHECK(bash.find("__complete") != std::string::npos);
  CHECK(gpuslice::cli::completion_script("zsh", "kubectl-gpuslice").rfind("#compdef kubectl-gpuslice", 0) == 0);
  CHECK(gpuslice::cli::completion_script("fish", "kubectl-gpuslice").find("complete -c kubectl-gpuslice") !=
        std::string::npos);
  CHECK_THROWS_AS(gpuslice::cli::completion_script("tcsh", "kubectl-gpuslice"), gpuslice::UsageError);
}
