// SPDX-License-Identifier: Apache-2.0
// Exec credential plugins: environment, KUBERNETES_EXEC_INFO, output validation, errors.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpuslice/error.hpp>

#include "kube/exec_plugin.hpp"
#include "unit/kube_test_support.hpp"

using namespace gpuslice::kube;
using gpuslice::RuntimeError;

namespace {

ExecConfig beta(const std::string& command) {
  ExecConfig exec;
  exec.command = command;
  exec.api_version = "client.authentication.k8s.io/v1beta1";
  exec.interactive_mode = "IfAvailable";
  return exec;
}

ProcessResult printed(const std::string& out) {
  ProcessResult result;
  result.out = out;
  return result;
}

std::string env_of(const ProcessSpec& spec, const std::string& name) {
  for (const auto& [key, value] : spec.env) {
    if (key == name) {
      return value;
    }
  }
  return "<unset>";
}

const char* const k_token_v1beta1 =
    R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{},"status":{"token":"k8s-aws-v1.abc","expirationTimestamp":"2030-01-01T00:14:00Z"}})";

} // namespace

TEST_CASE("kube::run_exec_plugin") {
  kube_test::ScriptedProcesses runner;
  ClusterEndpoint cluster;
  cluster.server = "https://api.example:443";
  cluster.ca_pem = "CA-PEM";
  ExecConfig exec = beta("aws");
  exec.args = {"eks", "get-token"};
  exec.env = {{"AWS_PROFILE", "prod"}, {"HOME", "/plugin-home"}};

  SUBCASE("argv, env merged over ours, KUBERNETES_EXEC_INFO; token and expiry parsed") {
    runner.results.push_back(printed(k_token_v1beta1));
    const ExecCredential c = run_exec_plugin(exec, cluster, runner, false, {{"HOME", "/me"}, {"PATH", "/bin"}});
    CHECK(c.token == "k8s-aws-v1.abc");
    REQUIRE(c.expiry.has_value());
    CHECK(*c.expiry == *parse_rfc3339("2030-01-01T00:14:00Z"));
    const ProcessSpec& spec = runner.runs.at(0);
    CHECK(spec.command == "aws");
    CHECK(spec.args == std::vector<std::string>{"eks", "get-token"});
    CHECK(env_of(spec, "HOME") == "/plugin-home");
    CHECK(env_of(spec, "PATH") == "/bin");
    CHECK(env_of(spec, "AWS_PROFILE") == "prod");
    const nlohmann::json info = nlohmann::json::parse(env_of(spec, "KUBERNETES_EXEC_INFO"));
    CHECK(info["apiVersion"] == "client.authentication.k8s.io/v1beta1");
    CHECK(info["spec"]["interactive"] == false);
    CHECK_FALSE(info["spec"].contains("cluster"));
    CHECK_FALSE(spec.connect_stdin);
  }
  SUBCASE("provideClusterInfo adds spec.cluster with the CA base64-encoded") {
    exec.provide_cluster_info = true;
    const nlohmann::json info = nlohmann::json::parse(exec_info_json(exec, cluster, false));
    CHECK(info["spec"]["cluster"]["server"] == "https://api.example:443");
    CHECK(info["spec"]["cluster"]["certificate-authority-data"] == "Q0EtUEVN");
  }
  SUBCASE("interactiveMode: IfAvailable follows the TTY, Never never, Always needs one") {
    runner.results = {printed(k_token_v1beta1), printed(k_token_v1beta1)};
    run_exec_plugin(exec, cluster, runner, true, {});
    CHECK(runner.runs.at(0).connect_stdin);
    exec.interactive_mode = "Never";
    run_exec_plugin(exec, cluster, runner, true, {});
    CHECK_FALSE(runner.runs.at(1).connect_stdin);
    exec.interactive_mode = "Always";
    CHECK_THROWS_WITH_AS(run_exec_plugin(exec, cluster, runner, false, {}),
                         doctest::Contains("standard input is not a terminal"), RuntimeError);
  }
  SUBCASE("client certificate and key come back as PEM") {
    runner.results.push_back(printed(
        R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----","clientKeyData":"-----BEGIN PRIVATE KEY-----"}})"));
    const ExecCredential c = run_exec_plugin(exec, cluster, runner, false, {});
    CHECK(c.client_certificate_pem == "-----BEGIN CERTIFICATE-----");
    CHECK(c.token.empty());
    CHECK_FALSE(c.expiry.has_value());
  }
  SUBCASE("output validation, as client-go") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"x"}})",
         "exec plugin is configured to use API version client.authentication.k8s.io/v1beta1, plugin returned version client.authentication.k8s.io/v1"},
        {R"({"apiVersion":"client.authentication.k8s.io/v1beta1"})", "exec plugin didn't return a status field"},
        {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","status":{}})",
         "exec plugin didn't return a token or cert/key pair"},
        {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","status":{"clientCertificateData":"c"}})",
         "exec plugin returned only certificate or key, not both"},
        {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t","expirationTimestamp":"tomorrow"}})",
         "unparsable expirationTimestamp"},
        {"not json", "not an ExecCredential"},
    };
    for (const auto& [out, message] : cases) {
      CAPTURE(out);
      runner.results.push_back(printed(out));
      CHECK_THROWS_WITH_AS(run_exec_plugin(exec, cluster, runner, false, {}), doctest::Contains(message.c_str()), RuntimeError);
    }
  }
  SUBCASE("a missing command names it and shows installHint without escape codes") {
    ProcessResult missing;
    missing.not_found = true;
    runner.results.push_back(missing);
    exec.install_hint = "\x1b[1mInstall the AWS CLI\x1b[0m: https://aws.amazon.com/cli/";
    CHECK_THROWS_WITH_AS(run_exec_plugin(exec, cluster, runner, false, {}),
                         "getting credentials: exec: executable aws not found; Install the AWS CLI: https://aws.amazon.com/cli/",
                         RuntimeError);
  }
  SUBCASE("a non-zero exit reports the code and the plugin's stderr") {
    ProcessResult failed;
    failed.exit_code = 255;
    failed.err = "\nAn error occurred (ExpiredToken): The security token included in the request is expired\n";
    runner.results.push_back(failed);
    CHECK_THROWS_WITH_AS(run_exec_plugin(exec, cluster, runner, false, {}),
                         "getting credentials: exec: executable aws failed with exit code 255: An error occurred "
                         "(ExpiredToken): The security token included in the request is expired",
                         RuntimeError);
  }
  SUBCASE("an unknown apiVersion is refused before running anything") {
    exec.api_version = "client.authentication.k8s.io/v1alpha1";
    CHECK_THROWS_WITH_AS(run_exec_plugin(exec, cluster, runner, false, {}),
                         doctest::Contains("invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""), RuntimeError);
    CHECK(runner.runs.empty());
  }
}

TEST_CASE("kube::parse_rfc3339") {
  CHECK(parse_rfc3339("1970-01-01T00:01:00Z") == std::chrono::system_clock::from_time_t(60));
  CHECK(parse_rfc3339("1970-01-01T01:00:00+01:00") == std::chrono::system_clock::from_time_t(0));
  CHECK(parse_rfc3339("1970-01-01T00:00:00.123Z") == std::chrono::system_clock::from_time_t(0));
  CHECK_FALSE(parse_rfc3339("1970-01-01 00:00:00").has_value());
  CHECK_FALSE(parse_rfc3339("1970-13-01T00:00:00Z").has_value());
  CHECK_FALSE(parse_rfc3339("").has_value());
}

TEST_CASE("kube::system_process_runner") {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       ("gpuslice-exec-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::filesystem::path script = folder / "plugin";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\necho \"args:$1|$2\"\necho \"env:$PLUGIN_VAR\"\necho oops >&2\nexit ${EXIT_WITH:-0}\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  ProcessRunner& runner = system_process_runner();

  SUBCASE("runs by argv (no shell: the $ in an argument stays literal) and captures both streams") {
    const ProcessResult r = runner.run({"plugin", {"a b", "$HOME"}, {{"PATH", folder.string()}, {"PLUGIN_VAR", "v"}}, false});
    CHECK_FALSE(r.not_found);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "args:a b|$HOME\nenv:v\n");
    CHECK(r.err == "oops\n");
  }
  SUBCASE("an interactive plugin's stderr goes to the user's terminal, not into the result") {
    const ProcessResult r = runner.run({script.string(), {"x", "y"}, {}, true});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("args:x|y") == 0);
    CHECK(r.err.empty());
  }
  SUBCASE("exit codes") {
    const ProcessResult r = runner.run({script.string(), {}, {{"EXIT_WITH", "3"}}, false});
    CHECK(r.exit_code == 3);
  }
  SUBCASE("not found on PATH, or not executable") {
    CHECK(runner.run({"no-such-plugin-xyz", {}, {{"PATH", folder.string()}}, false}).not_found);
    CHECK(runner.run({(folder / "missing").string(), {}, {}, false}).not_found);
  }
  std::filesystem::remove_all(folder);
}

TEST_CASE("kube::parse_rfc3339 far future") {
  // Beyond system_clock's range (year 2262): treated as never expiring, not as the past.
  const auto far = parse_rfc3339("2999-01-01T00:00:00Z");
  REQUIRE(far.has_value());
  CHECK(*far > std::chrono::system_clock::now());
}
