// SPDX-License-Identifier: Apache-2.0
// Entry point: build the CLI, run the chosen subcommand, map errors to exit codes (DESIGN §4.1).
#include <iostream>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  gpuslice::cli::Env env{std::cout, std::cerr, gpuslice::cli::program_name(argc > 0 ? argv[0] : "")};
  gpuslice::cli::detect_terminal(env);
  return static_cast<int>(gpuslice::cli::run(argc, argv, env));
}
