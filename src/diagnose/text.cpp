// SPDX-License-Identifier: Apache-2.0
#include "text.hpp"

#include <cctype>
#include <charconv>

namespace gpuslice::diagnose {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the "<digits> " at the start of text, or 0 if there is none.
std::size_t count_prefix_length(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0 || i >= text.size() || text[i] != ' ') return 0;
  return i + 1;
}

} // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<int> parse_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<std::vector<std::pair<int, std::string_view>>> split_counted_list(
    std::string_view text) {
  std::vector<std::pair<int, std::string_view>> entries;
  while (!text.empty()) {
    const std::size_t prefix = count_prefix_length(text);
    if (prefix == 0) return std::nullopt;
    const std::optional<int> count = parse_count(text.substr(0, prefix - 1));
    if (!count) return std::nullopt;
    text.remove_prefix(prefix);
    // The entry runs to the next ", <digits> " or to the end.
    std::size_t end = std::string_view::npos;
    for (std::size_t pos = text.find(", "); pos != std::string_view::npos;
         pos = text.find(", ", pos + 1)) {
      if (count_prefix_length(text.substr(pos + 2)) != 0) {
        end = pos;
        break;
      }
    }
    entries.emplace_back(*count, trim(text.substr(0, end)));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 2);
  }
  return entries;
}

bool strip_suffix(std::string_view& text, std::string_view suffix) {
  if (!text.ends_with(suffix)) return false;
  text.remove_suffix(suffix.size());
  return true;
}

bool strip_prefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

} // namespace gpuslice::diagnose
