// SPDX-License-Identifier: Apache-2.0
// "Did you mean …?" for mistyped subcommands and finding codes (ninja's spellcheck idea:
// suggest only when the typo is small relative to the word).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "cli/completion.hpp"

namespace gpuslice::cli {

namespace {

// Case-insensitive Levenshtein distance.
std::size_t typo_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

} // namespace

std::string nearest_name(const std::string& typed, const std::vector<std::string>& names) {
  if (typed.empty()) return "";
  std::vector<std::string> prefixed;
  for (const std::string& name : names) {
    if (name.rfind(typed, 0) == 0) prefixed.push_back(name);
  }
  if (prefixed.size() == 1) return prefixed.front();
  const std::size_t allowed = std::max<std::size_t>(1, typed.size() / 3);
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    const std::size_t d = typo_distance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string subcommand_suggestion(const CLI::App& root, int argc, const char* const* argv) {
  // The first word that is not a flag or a flag's value is the subcommand the user meant.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.rfind("-", 0) == 0) {
      const CLI::Option* opt = root.get_option_no_throw(word.substr(0, word.find('=')));
      if (opt != nullptr && opt->get_type_size_max() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    const std::vector<std::string> names = subcommand_names(root);
    if (std::find(names.begin(), names.end(), word) != names.end()) return "";
    const std::string near = nearest_name(word, names);
    return near.empty() ? "" : fmt::format("Did you mean '{}'?", near);
  }
  return "";
}

} // namespace gpuslice::cli
