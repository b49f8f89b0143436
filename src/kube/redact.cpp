// SPDX-License-Identifier: Apache-2.0
#include "kube/redact.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuslice::kube {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

} // namespace

std::string mask_authorization(std::string_view value) {
  const std::size_t space = value.find(' ');
  const std::string_view scheme = value.substr(0, space);
  for (const char* known : {"Bearer", "Basic", "Negotiate"}) {
    if (space != std::string_view::npos && iequals(scheme, known)) {
      return std::string(known) + " <masked>";
    }
  }
  return "<masked>";
}

std::string redact_header(std::string_view name, std::string_view value) {
  if (iequals(name, "Authorization") || iequals(name, "Proxy-Authorization")) {
    return fmt::format("{}: {}", name, mask_authorization(value));
  }
  // Cookies and the exec plugin's environment never reach headers; mask cookies anyway.
  if (iequals(name, "Cookie") || iequals(name, "Set-Cookie")) {
    return fmt::format("{}: <masked>", name);
  }
  return fmt::format("{}: {}", name, value);
}

std::string truncate_body(std::string_view body, std::size_t limit) {
  if (limit == 0 || body.size() <= limit) {
    return std::string(body);
  }
  return fmt::format("{} [truncated {} chars]", body.substr(0, limit), body.size() - limit);
}

} // namespace gpuslice::kube
