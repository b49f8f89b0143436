// SPDX-License-Identifier: Apache-2.0
#include "kube/base64.hpp"

#include <algorithm>
#include <array>

namespace gpuslice::kube {

namespace {

constexpr std::string_view k_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  const std::size_t at = k_alphabet.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

} // namespace

std::optional<std::string> base64_decode(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c != '\r' && c != '\n') {
      clean.push_back(c);
    }
  }
  if (clean.size() % 4 != 0) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(clean.size() / 4 * 3);
  for (std::size_t i = 0; i < clean.size(); i += 4) {
    std::array<int, 4> v{};
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = clean[i + static_cast<std::size_t>(j)];
      if (c == '=') {
        // Padding only at the very end, and at most two characters of it.
        if (i + 4 != clean.size() || j < 2) {
          return std::nullopt;
        }
        ++pad;
        v[static_cast<std::size_t>(j)] = 0;
      } else {
        if (pad > 0) {
          return std::nullopt;
        }
        v[static_cast<std::size_t>(j)] = value_of(c);
        if (v[static_cast<std::size_t>(j)] < 0) {
          return std::nullopt;
        }
      }
    }
    const unsigned triple = (static_cast<unsigned>(v[0]) << 18) | (static_cast<unsigned>(v[1]) << 12) |
                            (static_cast<unsigned>(v[2]) << 6) | static_cast<unsigned>(v[3]);
    out.push_back(static_cast<char>((triple >> 16) & 0xff));
    if (pad < 2) {
      out.push_back(static_cast<char>((triple >> 8) & 0xff));
    }
    if (pad < 1) {
      out.push_back(static_cast<char>(triple & 0xff));
    }
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned triple = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16;
    if (n > 1) {
      triple |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    if (n > 2) {
      triple |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 2]));
    }
    out.push_back(k_alphabet[(triple >> 18) & 0x3f]);
    out.push_back(k_alphabet[(triple >> 12) & 0x3f]);
    out.push_back(n > 1 ? k_alphabet[(triple >> 6) & 0x3f] : '=');
    out.push_back(n > 2 ? k_alphabet[triple & 0x3f] : '=');
  }
  return out;
}

} // namespace gpuslice::kube
