// SPDX-License-Identifier: Apache-2.0
// The command-line front: the only code (with report/) that prints, and the only user of CLI11.
#pragma once

#include <ostream>
#include <string>

#include <gpuslice/error.hpp>

namespace gpuslice::cli {

// Where a command writes, and under which name it was invoked. Tests pass string streams.
struct Env {
  std::ostream& out;
  std::ostream& err;
  std::string program; // "kubectl gpuslice" when run by kubectl, else "kubectl-gpuslice"
  bool out_is_tty = false;  // stdout is a terminal: colour and width may apply
  int out_width = 0;        // terminal columns, 0 when unknown
  bool err_is_tty = false;  // stderr is a terminal: progress lines may be drawn there
};

// Fills out_is_tty and out_width from file descriptor 1, err_is_tty from 2.
void detect_terminal(Env& env);

// "kubectl gpuslice" when argv0's basename starts with "kubectl-" (kubectl's plugin
// dispatch keeps that name), so usage text matches what the user typed.
std::string program_name(const std::string& argv0);

// Parses argv, runs the subcommand, prints errors as "<program>: error: <what>" and returns
// the exit code. Never throws.
ExitCode run(int argc, const char* const* argv, Env& env);

} // namespace gpuslice::cli
