// SPDX-License-Identifier: Apache-2.0
#include <sstream>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/version.hpp>

#include "cli/app.hpp"
#include "unit/cli_run_support.hpp"

TEST_CASE("cli::program_name") {
  CHECK(gpuslice::cli::program_name("/usr/local/bin/kubectl-gpuslice") == "kubectl gpuslice");
  CHECK(gpuslice::cli::program_name("./gpuslice") == "gpuslice");
  CHECK(gpuslice::cli::program_name("") == "kubectl-gpuslice");
}

TEST_CASE("cli::run") {
  SUBCASE("version --client prints the client version") {
    const cli_test::CliRun r = cli_test::run_cli({"version", "--client"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out == std::string("Client Version: ") + gpuslice::k_version + "\n");
  }
  SUBCASE("--help names the program as kubectl runs it") {
    const cli_test::CliRun r = cli_test::run_cli({"--help"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out.find("kubectl gpuslice") != std::string::npos);
    CHECK(r.out.find("version") != std::string::npos);
  }
  SUBCASE("an unknown subcommand is a usage error, exit 2") {
    const cli_test::CliRun r = cli_test::run_cli({"frobnicate"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    CHECK(r.err.find("kubectl gpuslice: error:") == 0);
  }
  SUBCASE("no subcommand is a usage error") {
    const cli_test::CliRun r = cli_test::run_cli({});
    CHECK(r.code == gpuslice::ExitCode::usage);
  }
}
