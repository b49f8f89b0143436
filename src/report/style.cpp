// SPDX-License-Identifier: Apache-2.0
#include <string_view>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

namespace {
bool set_and_nonempty(const char* value) { return value != nullptr && *value != '\0'; }
} // namespace

Style decide_style(bool stdout_is_tty, bool no_color_flag, const char* no_color_env,
                   const char* clicolor_force_env, int terminal_width) {
  Style style;
  style.width = stdout_is_tty ? terminal_width : 0;
  // no-color.org: any non-empty NO_COLOR disables colour, whatever else says.
  if (no_color_flag || set_and_nonempty(no_color_env)) {
    return style;
  }
  const bool forced =
      set_and_nonempty(clicolor_force_env) && std::string_view(clicolor_force_env) != "0";
  style.colour = stdout_is_tty || forced;
  return style;
}

std::string paint(const Style& style, const std::string& colour, const std::string& text) {
  if (!style.colour) {
    return text;
  }
  std::string_view code;
  if (colour == "red") code = "31";
  else if (colour == "yellow") code = "33";
  else if (colour == "green") code = "32";
  else if (colour == "cyan") code = "36";
  else if (colour == "bold") code = "1";
  else if (colour == "dim") code = "2";
  else return text;
  return "\x1b[" + std::string(code) + "m" + text + "\x1b[0m";
}

} // namespace gpuslice::report
