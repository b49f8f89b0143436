// SPDX-License-Identifier: Apache-2.0
// One status line on stderr for long waits (paged lists, rollouts, pods scheduling): drawn only
// when stderr is a terminal and --quiet is not given, so scripts and pipes never see it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "cli/app.hpp"
#include "cli/global_flags.hpp"

namespace gpuslice::cli {

class Progress {
public:
  Progress(Env& env, const GlobalFlags& global);
  // For tests: draw (or not) regardless of the terminal.
  Progress(std::ostream& err, bool active);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool active() const { return active_; }
  // Replaces the status line. Redraws at most every 100 ms unless `force`; a line is cut to
  // 200 characters and control characters are dropped (it may carry object names).
  void update(std::string_view line, bool force = false);
  // Erases the status line (also done by the destructor), so that what follows starts clean.
  void clear();

private:
  std::ostream& err_;
  bool active_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// The line drawn for `line`: printable characters only, at most `width` of them.
std::string progress_text(std::string_view line, std::size_t width = 200);

} // namespace gpuslice::cli
