// SPDX-License-Identifier: Apache-2.0
#include <sstream>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/version.hpp>

#include "cli/app.hpp"

namespace {

struct Ran {
  gpuslice::ExitCode code;
  std::string out;
  std::string err;
};

Ran run_cli(std::vector<const char*> args) {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  args.insert(args.begin(), "kubectl-gpuslice");
  const gpuslice::ExitCode code =
      gpuslice::cli::run(static_cast<int>(args.size()), args.data(), env);
  return {code, out.str(), err.str()};
}

} // namespace

TEST_CASE("cli::program_name") {
  CHECK(gpuslice::cli::program_name("/usr/local/bin/kubectl-gpuslice") == "kubectl gpuslice");
  CHECK(gpuslice::cli::program_name("./gpuslice") == "gpuslice");
  CHECK(gpuslice::cli::program_name("") == "kubectl-gpuslice");
}

TEST_CASE("cli::run") {
  SUBCASE("version --client prints the client version") {
    const Ran r = run_cli({"version", "--client"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out == std::string("Client Version: ") + gpuslice::k_version + "\n");
  }
  SUBCASE("--help names the program as kubectl runs it") {
    const Ran r = run_cli({"--help"});
    CHECK(r.code == gpuslice::ExitCode::ok);
    CHECK(r.out.find("kubectl gpuslice") != std::string::npos);
    CHECK(r.out.find("version") != std::string::npos);
  }
  SUBCASE("an unknown subcommand is a usage error, exit 2") {
    const Ran r = run_cli({"frobnicate"});
    CHECK(r.code == gpuslice::ExitCode::usage);
    CHECK(r.err.find("kubectl gpuslice: error:") == 0);
  }
  SUBCASE("no subcommand is a usage error") {
    const Ran r = run_cli({});
    CHECK(r.code == gpuslice::ExitCode::usage);
  }
}
