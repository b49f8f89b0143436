// SPDX-License-Identifier: Apache-2.0
// --request-timeout as client-go's clientcmd.ParseTimeout reads it.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <gpuslice/error.hpp>
#include <gpuslice/kube/config.hpp>

namespace gpuslice::kube {

namespace {

constexpr const char* k_invalid =
    "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed "
    "by a corresponding time unit (e.g. 1s | 2m | 3h)";

double unit_ms(const std::string& unit) {
  if (unit == "ns") return 1e-6;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e-3;
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  if (unit == "m") return 60e3;
  if (unit == "h") return 3600e3;
  return -1.0;
}

// Go's time.ParseDuration for non-negative values: ("<number><unit>")+, e.g. "1m30s", "1.5h".
std::optional<double> parse_go_duration_ms(const std::string& text) {
  std::size_t at = 0;
  double total = 0.0;
  if (text.empty()) {
    return std::nullopt;
  }
  while (at < text.size()) {
    const std::size_t number_start = at;
    while (at < text.size() && (std::isdigit(static_cast<unsigned char>(text[at])) || text[at] == '.')) {
      ++at;
    }
    const std::string number = text.substr(number_start, at - number_start);
    const std::size_t unit_start = at;
    while (at < text.size() && !std::isdigit(static_cast<unsigned char>(text[at])) && text[at] != '.') {
      ++at;
    }
    const double scale = unit_ms(text.substr(unit_start, at - unit_start));
    if (number.empty() || number == "." || scale < 0 || number.find('.') != number.rfind('.')) {
      return std::nullopt;
    }
    total += std::stod(number) * scale;
  }
  return total;
}

} // namespace

std::chrono::milliseconds parse_request_timeout(const std::string& value) {
  if (value.empty() || value == "0") {
    return std::chrono::milliseconds{0};
  }
  const bool all_digits = std::all_of(value.begin(), value.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (all_digits) {
    if (value.size() > 9) {
      throw UsageError(std::string("--request-timeout \"") + value + "\": " + k_invalid);
    }
    return std::chrono::seconds{std::stoll(value)};
  }
  const std::optional<double> ms = parse_go_duration_ms(value);
  if (!ms || *ms > 1e12) {
    throw UsageError(std::string("--request-timeout \"") + value + "\": " + k_invalid);
  }
  return std::chrono::milliseconds{static_cast<long long>(std::ceil(*ms))};
}

} // namespace gpuslice::kube
