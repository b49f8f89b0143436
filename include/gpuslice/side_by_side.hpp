// SPDX-License-Identifier: Apache-2.0
// A few pure, independent pieces of work on a few threads at once, for the functional core
// (the analyzers, the planner's steps): no I/O, no queue that tasks add to (kube's
// run_task_queue is that, for reads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuslice {

// Calls work(i) for each i in [0, count), on this thread and up to most_threads - 1 others
// (fewer when the machine has fewer cores, or when no thread can be had). Each work(i) must
// write only what is its own. Once all have run, rethrows the failure of the lowest i, as
// running them in turn would have.
template <class Work> void run_side_by_side(std::size_t count, unsigned most_threads, const Work& work) {
  std::vector<std::exception_ptr> failed(count);
  std::atomic<std::size_t> next{0};
  auto take = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  const unsigned threads = std::clamp(std::min(std::thread::hardware_concurrency(), most_threads), 1u,
                                      static_cast<unsigned>(std::max<std::size_t>(count, 1)));
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(take);
    } catch (const std::system_error&) {
      break; // no thread to be had: fewer run side by side
    }
  }
  take();
  for (std::thread& helper : helpers) helper.join();
  for (const std::exception_ptr& failure : failed)
    if (failure) std::rethrow_exception(failure);
}

} // namespace gpuslice
