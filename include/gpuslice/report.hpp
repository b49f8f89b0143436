// SPDX-License-Identifier: Apache-2.0
// report/: turns values (Diagnosis, inventory, Plan) into text. Renderers return strings; only
// cli/ writes them out, so every renderer is testable without a terminal.
#pragma once

#include <string>
#include <vector>

namespace gpuslice::report {

// How text output may be decorated, decided once at start-up from the terminal and the
// environment (see decide_style).
struct Style {
  bool colour = false;
  int width = 0; // terminal columns; 0 = unknown (no truncation)
};

// Colour only when stdout is a TTY, NO_COLOR is unset or empty, and --no-color was not given;
// CLICOLOR_FORCE (non-empty, not "0") forces colour even when not a TTY. NO_COLOR wins over it.
Style decide_style(bool stdout_is_tty, bool no_color_flag, const char* no_color_env,
                   const char* clicolor_force_env, int terminal_width);

// Wraps text in an SGR colour when style.colour; colour names: red, yellow, cyan, green, bold, dim.
std::string paint(const Style& style, const std::string& colour, const std::string& text);

// A plain text table in kubectl's `get` layout: upper-case headers, columns separated by three
// spaces, no borders. Cells longer than fits the style's width are cut with "…" in the last column.
class TextTable {
public:
  explicit TextTable(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells); // missing cells render empty
  std::string render(const Style& style) const;

private:
  std::vector<std::string> m_headers;
  std::vector<std::vector<std::string>> m_rows;
};

// The display width of UTF-8 text (code points; our output holds no wide characters).
std::size_t display_width(const std::string& text);

} // namespace gpuslice::report
