// SPDX-License-Identifier: Apache-2.0
// Flags shared by the read-only commands (diagnose, status): -o, and the style they print in.
#pragma once

#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include <gpuslice/error.hpp>
#include <gpuslice/report.hpp>

#include "cli/app.hpp"

namespace gpuslice::cli {

// Adds -o/--output with the formats report/ renders.
inline void add_output_flag(CLI::App& sub, std::string& output) {
  sub.add_option("-o,--output", output, "Output format: table, json or yaml")
      ->default_str("table");
}

// The -o value as a Format; UsageError naming the flag for anything else.
inline report::Format output_format(const std::string& output) {
  const auto format = report::parse_format(output);
  if (!format) {
    throw UsageError("--output \"" + output + "\": must be one of table, json, yaml");
  }
  return *format;
}

// Colour and width for this run, from the terminal, --no-color and the environment.
inline report::Style output_style(const Env& env, bool no_color) {
  return report::decide_style(env.out_is_tty, no_color, std::getenv("NO_COLOR"),
                              std::getenv("CLICOLOR_FORCE"), env.out_width);
}

} // namespace gpuslice::cli
