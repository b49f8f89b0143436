// SPDX-License-Identifier: Apache-2.0
// `kubectl gpuslice version` against fakekube with every kubeconfig it writes, and failures.
#include <sstream>

#include <doctest/doctest.h>

#include <fakekube/server.hpp>

#include <gpuslice/version.hpp>

#include "cli/app.hpp"
#include "unit/cli_run_support.hpp"
#include "unit/kube_fakekube_support.hpp"

namespace {

const std::string k_client_line = std::string("Client Version: ") + gpuslice::k_version + "\n";

} // namespace

TEST_CASE("cli::run_version") {
  kube_test::Cluster cluster;
  SUBCASE("every kubeconfig fakekube writes") {
    for (fakekube::KubeconfigAuth auth :
         {fakekube::KubeconfigAuth::token, fakekube::KubeconfigAuth::token_file,
          fakekube::KubeconfigAuth::client_cert_files, fakekube::KubeconfigAuth::client_cert_data,
          fakekube::KubeconfigAuth::basic, fakekube::KubeconfigAuth::exec}) {
      CAPTURE(static_cast<int>(auth));
      const cli_test::CliRun r = cli_test::run_cli({"version", "--kubeconfig", cluster.kubeconfig("admin", auth).string()});
      CHECK(r.code == gpuslice::ExitCode::ok);
      CHECK(r.out == k_client_line + "Server Version: v1.30.4\n");
      CHECK(r.err.empty());
    }
  }
  SUBCASE("--client needs no server") {
    const cli_test::CliRun r = cli_test::run_cli({"version", "--client", "--kubeconfig", "/nonexistent"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out == k_client_line);
  }
  SUBCASE("unreachable server: client version, then the error, exit 3") {
    const std::string kubeconfig = cluster.kubeconfig("admin", fakekube::KubeconfigAuth::token).string();
    const cli_test::CliRun r = cli_test::run_cli({"version", "--kubeconfig", kubeconfig, "--server", "https://127.0.0.1:1",
                           "--insecure-skip-tls-verify"});
    CHECK(r.code == gpuslice::ExitCode::runtime);
    CHECK(r.out == k_client_line);
    CHECK(r.err.find("kubectl gpuslice: error: The connection to the server") == 0);
  }
  SUBCASE("TLS failure (wrong tls-server-name): exit 3, clear message") {
    const std::string kubeconfig = cluster.kubeconfig("admin", fakekube::KubeconfigAuth::token).string();
    const cli_test::CliRun r = cli_test::run_cli({"version", "--kubeconfig", kubeconfig, "--tls-server-name", "wrong.example"});
    CHECK(r.code == gpuslice::ExitCode::runtime);
    CHECK(r.err.find("TLS") != std::string::npos);
  }
  SUBCASE("usage errors are exit 2 and send nothing") {
    const std::string kubeconfig = cluster.kubeconfig("admin", fakekube::KubeconfigAuth::token).string();
    cluster.server.clear_request_log();
    cli_test::CliRun r = cli_test::run_cli({"version", "--kubeconfig", kubeconfig, "--context", "nope"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    CHECK(r.err == "kubectl gpuslice: error: context \"nope\" does not exist\n");
    r = cli_test::run_cli({"version", "--kubeconfig", kubeconfig, "--request-timeout", "soon"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    r = cli_test::run_cli({"version", "--kubeconfig", "/no/such/file"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    CHECK(cluster.server.request_log().empty());
  }
  SUBCASE("-v=6 logs the request to stderr") {
    const std::string kubeconfig = cluster.kubeconfig("admin", fakekube::KubeconfigAuth::token).string();
    const cli_test::CliRun r = cli_test::run_cli({"-v=6", "version", "--kubeconfig", kubeconfig});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.err.find("GET " + cluster.server.url() + "/version 200 OK") != std::string::npos);
  }
}
