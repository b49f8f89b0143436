// SPDX-License-Identifier: Apache-2.0
// Runs the CLI in-process as `kubectl gpuslice ARGS…` and captures what it printed: the one
// helper every cli test uses, so that suites share it (and unity builds see one definition).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"

namespace cli_test {

struct CliRun {
  gpuslice::ExitCode code;
  std::string out;
  std::string err;
};

inline CliRun run_cli(std::vector<std::string> args) {
  std::ostringstream out;
  std::ostringstream err;
  gpuslice::cli::Env env{out, err, "kubectl gpuslice"};
  args.insert(args.begin(), "kubectl-gpuslice");
  std::vector<const char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }
  const gpuslice::ExitCode code =
      gpuslice::cli::run(static_cast<int>(argv.size()), argv.data(), env);
  return {code, out.str(), err.str()};
}

} // namespace cli_test
