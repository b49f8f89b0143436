// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "collect/query_plan.hpp"

using gpuslice::collect::choose_pod_listing;
using gpuslice::collect::PodListing;

TEST_CASE("collect::choose_pod_listing") {
  SUBCASE("no GPU node: nothing to list") {
    CHECK(choose_pod_listing(0, 0) == PodListing::none);
    CHECK(choose_pod_listing(0, 5000) == PodListing::none);
  }
  SUBCASE("up to a quarter of the cluster: one list per GPU node") {
    CHECK(choose_pod_listing(1, 5) == PodListing::per_node);
    CHECK(choose_pod_listing(3, 19) == PodListing::per_node);
    CHECK(choose_pod_listing(1, 4) == PodListing::per_node);       // exactly 25 %
    CHECK(choose_pod_listing(500, 5000) == PodListing::per_node);  // scenario L, measured
    CHECK(choose_pod_listing(1250, 5000) == PodListing::per_node); // exactly 25 %
  }
  SUBCASE("no ceiling on the number of lists: they grow with GPU nodes, not with all pods") {
    CHECK(choose_pod_listing(101, 5000) == PodListing::per_node);
    CHECK(choose_pod_listing(5000, 100000) == PodListing::per_node);
  }
  SUBCASE("a larger share: one cluster-wide list") {
    CHECK(choose_pod_listing(1251, 5000) == PodListing::cluster_wide);
    CHECK(choose_pod_listing(3, 9) == PodListing::cluster_wide); // the runbook's EKS incident, 33 %
    CHECK(choose_pod_listing(2, 2) == PodListing::cluster_wide); // an all-GPU cluster
  }
  SUBCASE("lists already started while the node list paged are spent: only the rest is weighed") {
    CHECK(choose_pod_listing(9, 22, 3) == PodListing::cluster_wide); // 6 left of 22: 27 %
    CHECK(choose_pod_listing(9, 22, 4) == PodListing::per_node);     // 5 left: 23 %
    CHECK(choose_pod_listing(1251, 5000, 1) == PodListing::per_node); // 1,250 left: exactly 25 %
    CHECK(choose_pod_listing(2, 2, 2) == PodListing::per_node);      // nothing left to read
    CHECK(choose_pod_listing(2, 2, 5) == PodListing::per_node);      // more started than are GPU nodes now
    CHECK(choose_pod_listing(0, 5000, 3) == PodListing::none);
  }
}

TEST_CASE("collect::pods_on_node_selector") {
  CHECK(gpuslice::collect::pods_on_node_selector("ip-10-0-1-17.us-west-2.compute.internal") ==
        "spec.nodeName=ip-10-0-1-17.us-west-2.compute.internal,status.phase!=Succeeded,status.phase!=Failed");
}

TEST_CASE("collect::event_reason_selector") {
  CHECK(gpuslice::collect::event_reason_selector("NotTriggerScaleUp") == "reason=NotTriggerScaleUp");
}
