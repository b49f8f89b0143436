// SPDX-License-Identifier: Apache-2.0
#include "kube/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace gpuslice::kube {

RateLimiter::RateLimiter(double qps, int burst, Clock& clock)
    : m_qps(qps == 0.0 ? 5.0 : qps), m_burst(burst < 1 ? 10.0 : burst), m_tokens(m_burst),
      m_last(clock.steady_now()), m_clock(clock) {}

std::chrono::milliseconds RateLimiter::acquire() {
  if (m_qps < 0 || m_lifted.load(std::memory_order_relaxed)) {
    return std::chrono::milliseconds{0};
  }
  std::chrono::milliseconds wait{0};
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    const std::chrono::steady_clock::time_point now = m_clock.steady_now();
    const double elapsed = std::chrono::duration<double>(now - m_last).count();
    m_last = now;
    m_tokens = std::min(m_burst, m_tokens + elapsed * m_qps);
    // Take the token now (possibly going negative) so concurrent callers queue fairly.
    m_tokens -= 1.0;
    if (m_tokens < 0) {
      wait = std::chrono::milliseconds{static_cast<long long>(std::ceil(-m_tokens / m_qps * 1000.0))};
    }
  }
  if (wait.count() > 0) {
    m_clock.sleep_for(wait);
  }
  return wait;
}

bool RateLimiter::lift() {
  return !m_lifted.exchange(true);
}

} // namespace gpuslice::kube
