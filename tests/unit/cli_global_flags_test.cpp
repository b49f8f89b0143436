// SPDX-License-Identifier: Apache-2.0
// argv → GlobalFlags, with no I/O (kubectx flags_test.go style).
#include <doctest/doctest.h>

#include <sstream>

#include <gpuslice/error.hpp>

#include "cli/global_flags.hpp"

using gpuslice::cli::GlobalFlags;

namespace {

GlobalFlags parse(std::vector<std::string> args) {
  args.insert(args.begin(), "kubectl-gpuslice");
  const char* argv_storage[64];
  for (std::size_t i = 0; i < args.size(); ++i) {
    argv_storage[i] = args[i].c_str();
  }
  const std::vector<std::string> split = gpuslice::cli::split_short_equals(static_cast<int>(args.size()), argv_storage);
  std::vector<const char*> argv;
  for (const std::string& arg : split) {
    argv.push_back(arg.c_str());
  }
  CLI::App app{"test"};
  GlobalFlags flags;
  gpuslice::cli::add_global_flags(app, flags);
  app.add_subcommand("version");
  app.parse(static_cast<int>(argv.size()), argv.data());
  return flags;
}

} // namespace

TEST_CASE("cli::add_global_flags") {
  SUBCASE("kubectl's names, before or after the subcommand") {
    const GlobalFlags f = parse({"--kubeconfig", "/k", "version", "--context", "prod", "--cluster", "c", "--user", "u",
                                 "-n", "gpu", "--token", "t", "--certificate-authority", "/ca",
                                 "--client-certificate", "/c", "--client-key", "/k2", "--tls-server-name", "api",
                                 "--as", "jane", "--as-group", "a", "--as-group", "b", "--request-timeout", "5s",
                                 "--qps", "7.5", "--burst", "9", "--no-color"});
    CHECK(f.kube.kubeconfig == "/k");
    CHECK(f.kube.context == "prod");
    CHECK(f.kube.cluster == "c");
    CHECK(f.kube.user == "u");
    CHECK(f.kube.namespace_name == "gpu");
    CHECK(f.kube.token == "t");
    CHECK(f.kube.certificate_authority == "/ca");
    CHECK(f.kube.client_certificate == "/c");
    CHECK(f.kube.client_key == "/k2");
    CHECK(f.kube.tls_server_name == "api");
    CHECK(f.kube.as_user == "jane");
    CHECK(f.kube.as_groups == std::vector<std::string>{"a", "b"});
    CHECK(f.kube.request_timeout == "5s");
    CHECK(f.kube.qps == 7.5);
    CHECK(f.kube.burst == 9);
    CHECK(f.rate_limit_given); // so they hold for reads too
    CHECK(f.no_color);
  }
  SUBCASE("defaults") {
    const GlobalFlags f = parse({"version"});
    CHECK(f.kube.request_timeout == "0");
    CHECK(f.kube.qps == gpuslice::kube::k_default_qps);
    CHECK(f.kube.burst == gpuslice::kube::k_default_burst);
    CHECK_FALSE(f.rate_limit_given); // reads keep their own, higher default
    CHECK(parse({"--burst", "5", "version"}).rate_limit_given);
    CHECK(f.kube.verbosity == 0);
    CHECK_FALSE(f.kube.insecure_skip_tls_verify);
  }
  SUBCASE("-v=8, --v=6, -v 7, -n=x, -s=url, --server=url") {
    CHECK(parse({"-v=8", "version"}).kube.verbosity == 8);
    CHECK(parse({"version", "--v=6"}).kube.verbosity == 6);
    CHECK(parse({"version", "-v", "7"}).kube.verbosity == 7);
    CHECK(parse({"-n=gpu", "version"}).kube.namespace_name == "gpu");
    CHECK(parse({"-s=https://a:6443", "version"}).kube.server == "https://a:6443");
    CHECK(parse({"--server=https://b", "version"}).kube.server == "https://b");
    CHECK(parse({"--insecure-skip-tls-verify", "version"}).kube.insecure_skip_tls_verify);
  }
}

TEST_CASE("cli::client_options: the read limit yields to server APF unless --qps/--burst set it") {
  std::ostringstream log;
  SUBCASE("defaults: reads 50/300, lifted under APF; writes 20/40") {
    const gpuslice::kube::ClientOptions o = gpuslice::cli::client_options(parse({"version"}), log);
    CHECK(o.read_limit_yields_to_apf);
    CHECK(o.read_qps == gpuslice::kube::k_default_read_qps);
    CHECK(o.read_burst == gpuslice::kube::k_default_read_burst);
    CHECK(o.qps == gpuslice::kube::k_default_qps);
    CHECK(o.burst == gpuslice::kube::k_default_burst);
  }
  SUBCASE("--qps: one limit for reads and writes, kept under APF") {
    const gpuslice::kube::ClientOptions o = gpuslice::cli::client_options(parse({"--qps", "7", "version"}), log);
    CHECK_FALSE(o.read_limit_yields_to_apf);
    CHECK(o.read_qps == 7);
    CHECK(o.qps == 7);
    CHECK(o.read_burst == gpuslice::kube::k_default_burst);
  }
  SUBCASE("--burst alone also keeps the read limit") {
    const gpuslice::kube::ClientOptions o = gpuslice::cli::client_options(parse({"version", "--burst", "5"}), log);
    CHECK_FALSE(o.read_limit_yields_to_apf);
    CHECK(o.read_burst == 5);
  }
}

TEST_CASE("cli::validate_global_flags") {
  GlobalFlags f;
  CHECK_NOTHROW(gpuslice::cli::validate_global_flags(f));
  f.kube.request_timeout = "soon";
  CHECK_THROWS_WITH_AS(gpuslice::cli::validate_global_flags(f), doctest::Contains("--request-timeout \"soon\""),
                       gpuslice::UsageError);
  f = GlobalFlags{};
  f.kube.burst = 0;
  CHECK_THROWS_WITH_AS(gpuslice::cli::validate_global_flags(f), "--burst 0: must be at least 1", gpuslice::UsageError);
  f = GlobalFlags{};
  f.kube.qps = 0;
  CHECK_THROWS_AS(gpuslice::cli::validate_global_flags(f), gpuslice::UsageError);
  f.kube.qps = -1; // disables the limiter: allowed
  CHECK_NOTHROW(gpuslice::cli::validate_global_flags(f));
}

TEST_CASE("cli::split_short_equals") {
  const char* argv[] = {"prog", "-v=6", "--v=7", "-n", "x", "-s=https://a=b", "--", "plain"};
  const std::vector<std::string> out = gpuslice::cli::split_short_equals(8, argv);
  CHECK(out == std::vector<std::string>{"prog", "-v", "6", "--v=7", "-n", "x", "-s", "https://a=b", "--", "plain"});
}
