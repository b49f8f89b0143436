// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model.hpp>

#include "unit/builders.hpp"

using namespace gpuslice::model;
using gpuslice::testing::PodBuilder;

TEST_CASE("model::pod_from_json") {
  SUBCASE("pending GPU pod with scheduler message") {
    Pod pod = PodBuilder("ml", "infer-0")
                  .container("app", "nvcr.io/nvidia/pytorch:24.01")
                  .gpus(1)
                  .request("cpu", "500m")
                  .node_selector("nvidia.com/gpu.present", "true")
                  .toleration("nvidia.com/gpu")
                  .unschedulable("0/9 nodes are available: 3 Insufficient nvidia.com/gpu.")
                  .owner("ReplicaSet", "infer-5d8f")
                  .build();
    CHECK(pod.meta.ns == "ml");
    CHECK(pod.meta.name == "infer-0");
    CHECK(pod.phase == "Pending");
    CHECK(pod.is_unscheduled());
    CHECK(pod.spec.scheduler_name == "default-scheduler");
    REQUIRE(pod.condition("PodScheduled") != nullptr);
    CHECK(pod.condition("PodScheduled")->reason == "Unschedulable");
    CHECK(pod.condition("PodScheduled")->message.starts_with("0/9 nodes"));
    CHECK(pod.spec.node_selector.at("nvidia.com/gpu.present") == "true");
    REQUIRE(pod.spec.tolerations.size() == 1);
    CHECK(pod.spec.tolerations[0].op == "Exists");
    REQUIRE(pod.meta.controller() != nullptr);
    CHECK(pod.meta.controller()->kind == "ReplicaSet");
    CHECK(effective_request(pod.spec, "nvidia.com/gpu").value() == 1);
    CHECK(effective_request(pod.spec, "cpu").milli() == 500);
  }
  SUBCASE("unknown fields and wrong types read as defaults") {
    nlohmann::json odd = {{"kind", "Pod"},
                          {"metadata", {{"name", "x"}, {"labels", "not-a-map"}, {"surprise", 1}}},
                          {"spec", {{"containers", "nope"}, {"tolerations", {{{"key", 5}}}}}},
                          {"status", 7}};
    Pod pod = pod_from_json(odd);
    CHECK(pod.meta.name == "x");
    CHECK(pod.meta.labels.empty());
    CHECK(pod.spec.containers.empty());
    REQUIRE(pod.spec.tolerations.size() == 1);
    CHECK(pod.spec.tolerations[0].key == "5");
    CHECK(pod.phase.empty());
    CHECK(pod_from_json(nlohmann::json()).meta.name.empty());
    CHECK(pod_from_json(nlohmann::json::array()).spec.containers.empty());
  }
}
