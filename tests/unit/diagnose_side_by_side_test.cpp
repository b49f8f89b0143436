// SPDX-License-Identifier: Apache-2.0
// run_side_by_side: what the analyzers and the planner's steps run on.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuslice/side_by_side.hpp>

TEST_CASE("run_side_by_side runs each piece once and keeps each result in its place") {
  std::vector<int> results(50, -1);
  std::atomic<int> calls{0};
  gpuslice::run_side_by_side(results.size(), 4, [&](std::size_t i) {
    ++calls;
    results[i] = static_cast<int>(i * i);
  });
  CHECK(calls == 50);
  for (std::size_t i = 0; i < results.size(); ++i) CHECK(results[i] == static_cast<int>(i * i));
}

TEST_CASE("run_side_by_side rethrows the failure of the lowest index, after every piece has run") {
  std::vector<int> ran(7, 0); // not vector<bool>: its bits share bytes across threads
  std::string caught;
  try {
    gpuslice::run_side_by_side(ran.size(), 4, [&](std::size_t i) {
      ran[i] = 1;
      if (i == 5) throw std::runtime_error("five");
      if (i == 2) throw std::runtime_error("two");
    });
  } catch (const std::runtime_error& error) {
    caught = error.what();
  }
  CHECK(caught == "two");
  CHECK(ran == std::vector<int>(7, 1));
}

TEST_CASE("run_side_by_side with nothing to run, or one thread") {
  int calls = 0;
  gpuslice::run_side_by_side(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
  std::vector<std::size_t> order;
  gpuslice::run_side_by_side(5, 1, [&](std::size_t i) { order.push_back(i); }); // this thread alone, in turn
  CHECK(order == std::vector<std::size_t>{0, 1, 2, 3, 4});
}
