// SPDX-License-Identifier: Apache-2.0
#include "cli/progress.hpp"

#include <ostream>

namespace gpuslice::cli {

namespace {
constexpr std::string_view k_erase_line = "\r\033[K";
constexpr auto k_min_interval = std::chrono::milliseconds(100);
} // namespace

Progress::Progress(Env& env, const GlobalFlags& global) : err_(env.err), active_(env.err_is_tty && !global.quiet) {}

Progress::Progress(std::ostream& err, bool active) : err_(err), active_(active) {}

Progress::~Progress() { clear(); }

std::string progress_text(std::string_view line, std::size_t width) {
  std::string text;
  for (const char c : line) {
    if (text.size() >= width) break;
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) continue;
    text += c;
  }
  return text;
}

void Progress::update(std::string_view line, bool force) {
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && !force && now - last_ < k_min_interval) return;
  last_ = now;
  err_ << k_erase_line << progress_text(line) << std::flush;
  drawn_ = true;
}

void Progress::clear() {
  if (!active_ || !drawn_) return;
  err_ << k_erase_line << std::flush;
  drawn_ = false;
}

} // namespace gpuslice::cli
