// SPDX-License-Identifier: Apache-2.0
// The live collector under fakekube's faults with a page size of 2 (so every list is paged and
// continue tokens matter): the same snapshot as without the fault, or an ApiError — never a
// partial snapshot. Sleeps (Retry-After, reconnect backoff) go to the fake clock.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <fakekube/server.hpp>

#include <gpuslice/kube/api_error.hpp>

#include "unit/collect_live_support.hpp"

namespace {

struct CollectFault {
  std::string name;
  std::function<void(fakekube::Server&)> inject;
  bool may_fail; // a 5xx without Retry-After is not retried (client-go's rule): ApiError allowed
};

gpuslice::Snapshot collect_paged(kube_test::Cluster& cluster) {
  gpuslice::collect::Scope scope;
  scope.page_size = 2;
  return collect_test::normalised(gpuslice::collect::collect(*cluster.admin(), scope));
}

} // namespace

TEST_CASE("collect::collect under faults, paged by 2") {
  const std::vector<CollectFault> faults = {
      {"latency", [](fakekube::Server& s) { s.transport_faults().latency_ms = 20; }, false},
      {"429 every 3rd request", [](fakekube::Server& s) { s.transport_faults().too_many_every_nth = 3; }, false},
      {"500 every 5th request", [](fakekube::Server& s) { s.transport_faults().server_error_every_nth = 5; }, true},
      {"503 every 5th request",
       [](fakekube::Server& s) {
         s.transport_faults().server_error_every_nth = 5;
         s.transport_faults().server_error_is_503 = true;
       },
       true},
      {"connection dropped mid-body every 3rd response",
       [](fakekube::Server& s) { s.transport_faults().drop_mid_body_every_nth = 3; }, false},
      {"every continue token expired", [](fakekube::Server& s) { s.api().faults().expire_continue_tokens = true; },
       false},
      {"conflict on first update", [](fakekube::Server& s) { s.api().faults().conflict_on_first_update = true; },
       false},
  };
  kube_test::Cluster baseline_cluster(collect_test::incident());
  const gpuslice::Snapshot baseline = collect_paged(baseline_cluster);
  REQUIRE(baseline.nodes.size() == 9);
  for (const CollectFault& fault : faults) {
    INFO("fault: ", fault.name);
    kube_test::Cluster cluster(collect_test::incident());
    fault.inject(cluster.server);
    try {
      const gpuslice::Snapshot under_fault = collect_paged(cluster);
      CHECK(under_fault == baseline);
    } catch (const gpuslice::kube::ApiError& e) {
      INFO("error: ", e.what());
      CHECK(fault.may_fail);
      CHECK(e.http_code >= 500);
    }
  }
}
