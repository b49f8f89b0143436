// SPDX-License-Identifier: Apache-2.0
// Client-side rate limiting: a token bucket like client-go's flowcontrol (qps, burst).
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>

#include <gpuslice/kube/seams.hpp>

namespace gpuslice::kube {

class RateLimiter {
public:
  // qps < 0 disables limiting; qps == 0 or burst < 1 take client-go's defaults (5, 10).
  RateLimiter(double qps, int burst, Clock& clock);

  // Blocks (through the clock) until a request may go; returns how long it waited.
  std::chrono::milliseconds acquire();

  // From now on acquire() never waits: the server limits instead (API Priority and Fairness).
  // Thread-safe; returns true only for the call that lifted it.
  bool lift();

private:
  std::atomic<bool> m_lifted{false};
  double m_qps;
  double m_burst;
  double m_tokens;
  std::chrono::steady_clock::time_point m_last;
  Clock& m_clock;
  std::mutex m_mutex;
};

} // namespace gpuslice::kube
