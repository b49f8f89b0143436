// SPDX-License-Identifier: Apache-2.0
// Leaves a command's largest value for the process's exit to reclaim.
#pragma once

#include <memory>

namespace gpuslice::cli {

// A Snapshot of a 5,000-node cluster is ~60 MB in about a million allocations; freeing them
// one by one just before the process ends took a sixth of `diagnose --from-file` at bench
// scenario L (perf: ~Snapshot plus malloc_consolidate at exit), for memory the exit returns
// at once. The value is held by a static pointer, so leak checkers see it as reachable; one
// value per type is held, and the next call frees the one before (tests run commands
// in-process, over and over).
template <class T> void keep_until_exit(std::unique_ptr<T> value) {
  static T* held = nullptr;
  delete held;
  held = value.release();
}

// Keeps `value` until the process exits when the scope ends, whichever way it ends.
template <class T> class KeptUntilExit {
public:
  explicit KeptUntilExit(std::unique_ptr<T> value) : m_value(std::move(value)) {}
  ~KeptUntilExit() { keep_until_exit(std::move(m_value)); }
  KeptUntilExit(const KeptUntilExit&) = delete;
  KeptUntilExit& operator=(const KeptUntilExit&) = delete;
  T& operator*() const { return *m_value; }

private:
  std::unique_ptr<T> m_value;
};

} // namespace gpuslice::cli
