// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "kube/rate_limiter.hpp"
#include "unit/kube_test_support.hpp"

using gpuslice::kube::RateLimiter;
using std::chrono::milliseconds;

TEST_CASE("kube::RateLimiter::acquire") {
  kube_test::FakeClock clock;
  SUBCASE("a burst goes at once, then one request per 1/qps") {
    RateLimiter limiter(10.0, 3, clock);
    for (int i = 0; i < 3; ++i) {
      CHECK(limiter.acquire() == milliseconds(0));
    }
    CHECK(limiter.acquire() == milliseconds(100));
    CHECK(limiter.acquire() == milliseconds(100));
    CHECK(clock.sleeps.size() == 2);
  }
  SUBCASE("idle time refills the bucket up to burst") {
    RateLimiter limiter(2.0, 2, clock);
    limiter.acquire();
    limiter.acquire();
    clock.advance(milliseconds(10'000));
    CHECK(limiter.acquire() == milliseconds(0));
    CHECK(limiter.acquire() == milliseconds(0));
    CHECK(limiter.acquire() == milliseconds(500));
  }
  SUBCASE("negative qps disables limiting") {
    RateLimiter limiter(-1.0, 1, clock);
    for (int i = 0; i < 100; ++i) {
      CHECK(limiter.acquire() == milliseconds(0));
    }
    CHECK(clock.sleeps.empty());
  }
  SUBCASE("qps 0 takes client-go's defaults (5 qps, burst 10)") {
    RateLimiter limiter(0.0, 0, clock);
    for (int i = 0; i < 10; ++i) {
      CHECK(limiter.acquire() == milliseconds(0));
    }
    CHECK(limiter.acquire() == milliseconds(200));
  }
}
