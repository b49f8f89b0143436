// SPDX-License-Identifier: Apache-2.0
#include "kube/json_member.hpp"

#include <cstddef>
#include <optional>

namespace gpuslice::kube {
namespace {

using Pos = std::optional<std::size_t>;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_space(std::string_view text, std::size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}

// `at` is an opening quote; returns the position after the closing one.
Pos string_end(std::string_view text, std::size_t at) {
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i; // the escaped character, whatever it is
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return std::nullopt;
}

// `at` is the first character of a value; returns the position after it.
Pos value_end(std::string_view text, std::size_t at) {
  if (at >= text.size()) return std::nullopt;
  const char first = text[at];
  if (first == '"') return string_end(text, at);
  if (first != '{' && first != '[') {
    std::size_t i = at;
    while (i < text.size() && !is_space(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']') ++i;
    return i == at || i == text.size() ? Pos{} : Pos{i};
  }
  std::size_t depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const Pos end = string_end(text, i);
      if (!end) return std::nullopt;
      i = *end - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::nullopt;
}

} // namespace

MemberScan find_top_level_member(std::string_view text, std::string_view key) {
  const MemberScan unreadable{};
  std::size_t at = skip_space(text, 0);
  if (at >= text.size() || text[at] != '{') return unreadable;
  at = skip_space(text, at + 1);
  if (at < text.size() && text[at] == '}') return {MemberScan::Outcome::absent, {}};
  while (at < text.size() && text[at] == '"') {
    const Pos key_end = string_end(text, at);
    if (!key_end) return unreadable;
    const std::string_view name = text.substr(at + 1, *key_end - at - 2);
    at = skip_space(text, *key_end);
    if (at >= text.size() || text[at] != ':') return unreadable;
    at = skip_space(text, at + 1);
    const Pos end = value_end(text, at);
    if (!end) return unreadable;
    if (name == key) return {MemberScan::Outcome::found, text.substr(at, *end - at)};
    at = skip_space(text, *end);
    if (at < text.size() && text[at] == '}') return {MemberScan::Outcome::absent, {}};
    if (at >= text.size() || text[at] != ',') return unreadable;
    at = skip_space(text, at + 1);
  }
  return unreadable;
}

} // namespace gpuslice::kube
