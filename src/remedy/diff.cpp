// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/remedy/diff.hpp>

#include <algorithm>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace gpuslice::remedy {

namespace {

std::vector<std::string> split_diff_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// One line of the edit script: ' ' kept, '-' only in a, '+' only in b.
struct DiffLine {
  char op;
  std::size_t a_index; // position in a (for ' ' and '-'), or where it would be
  std::size_t b_index;
  std::string text;
};

std::vector<DiffLine> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<DiffLine> script;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      script.push_back({' ', i, j, a[i]});
      ++i;
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      script.push_back({'+', i, j, b[j]});
      ++j;
    } else {
      script.push_back({'-', i, j, a[i]});
      ++i;
    }
  }
  return script;
}

} // namespace

std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_label,
                         const std::string& b_label, int context) {
  if (a == b) return "";
  const std::vector<DiffLine> script = edit_script(split_diff_lines(a), split_diff_lines(b));
  const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
  std::string out = fmt::format("--- {}\n+++ {}\n", a_label, b_label);
  std::size_t k = 0;
  while (k < script.size()) {
    if (script[k].op == ' ') {
      ++k;
      continue;
    }
    // A hunk: from ctx lines before this change to ctx lines after the last change within reach.
    const std::size_t start = k >= ctx ? k - ctx : 0;
    std::size_t end = k;
    std::size_t last_change = k;
    while (end < script.size()) {
      if (script[end].op != ' ') last_change = end;
      if (end - last_change > 2 * ctx) break;
      ++end;
    }
    end = std::min(script.size(), last_change + ctx + 1);
    std::size_t a_count = 0;
    std::size_t b_count = 0;
    std::string body;
    for (std::size_t x = start; x < end; ++x) {
      if (script[x].op != '+') ++a_count;
      if (script[x].op != '-') ++b_count;
      body += script[x].op + script[x].text + "\n";
    }
    const std::size_t a_start = a_count == 0 ? script[start].a_index : script[start].a_index + 1;
    const std::size_t b_start = b_count == 0 ? script[start].b_index : script[start].b_index + 1;
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_start, a_count, b_start, b_count) + body;
    k = end;
  }
  return out;
}

} // namespace gpuslice::remedy
