// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model/taints.hpp>

using namespace gpuslice::model;

namespace {

const Taint k_gpu_taint{"nvidia.com/gpu", "true", "NoSchedule", ""};

} // namespace

TEST_CASE("model::tolerates") {
  SUBCASE("Exists with the key") {
    CHECK(tolerates({"nvidia.com/gpu", "Exists", "", "NoSchedule", {}}, k_gpu_taint));
    CHECK(tolerates({"nvidia.com/gpu", "Exists", "", "", {}}, k_gpu_taint)); // empty effect: all effects
    CHECK(!tolerates({"nvidia.com/gpu", "Exists", "", "NoExecute", {}}, k_gpu_taint));
    CHECK(!tolerates({"nvidia.com/gpu.shared", "Exists", "", "NoSchedule", {}}, k_gpu_taint));
  }
  SUBCASE("Equal, default operator") {
    CHECK(tolerates({"nvidia.com/gpu", "Equal", "true", "NoSchedule", {}}, k_gpu_taint));
    CHECK(tolerates({"nvidia.com/gpu", "", "true", "NoSchedule", {}}, k_gpu_taint));
    CHECK(!tolerates({"nvidia.com/gpu", "", "", "NoSchedule", {}}, k_gpu_taint));
    CHECK(!tolerates({"nvidia.com/gpu", "Equal", "false", "", {}}, k_gpu_taint));
  }
  SUBCASE("empty key with Exists tolerates everything") {
    CHECK(tolerates({"", "Exists", "", "", {}}, k_gpu_taint));
    CHECK(tolerates({"", "Exists", "", "", {}}, {"node.kubernetes.io/unschedulable", "", "NoSchedule", ""}));
    CHECK(!tolerates({"", "Exists", "", "NoExecute", {}}, k_gpu_taint));
  }
  SUBCASE("unknown operator tolerates nothing") { CHECK(!tolerates({"nvidia.com/gpu", "Gt", "1", "", {}}, k_gpu_taint)); }
}

TEST_CASE("model::untolerated_taints") {
  std::vector<Taint> taints{k_gpu_taint,
                            {"node.kubernetes.io/unschedulable", "", "NoSchedule", ""},
                            {"spot", "true", "PreferNoSchedule", ""},
                            {"dedicated", "ml", "NoExecute", ""}};
  std::vector<Toleration> tolerations{{"nvidia.com/gpu", "Exists", "", "NoSchedule", {}}};
  std::vector<Taint> blocking = untolerated_taints(tolerations, taints);
  REQUIRE(blocking.size() == 2); // PreferNoSchedule never blocks
  CHECK(blocking[0].key == "node.kubernetes.io/unschedulable");
  CHECK(blocking[1].key == "dedicated");
  CHECK(untolerated_taints({{"", "Exists", "", "", {}}}, taints).empty());
  CHECK(!tolerated({}, k_gpu_taint));
}

TEST_CASE("model::to_string(Taint) and parse_taint") {
  CHECK(to_string(k_gpu_taint) == "nvidia.com/gpu=true:NoSchedule");
  CHECK(to_string(Taint{"dedicated", "", "NoExecute", ""}) == "dedicated:NoExecute");
  CHECK(parse_taint("nvidia.com/gpu=true:NoSchedule") == k_gpu_taint);
  CHECK(parse_taint("a:PreferNoSchedule")->effect == "PreferNoSchedule");
  CHECK(parse_taint("a=b")->value == "b");
  CHECK(!parse_taint("a=b:Sometimes"));
  CHECK(!parse_taint("=b:NoSchedule"));
  CHECK(!parse_taint(""));
}

TEST_CASE("model::taint_from_json and toleration_from_json") {
  Taint t = taint_from_json({{"key", "k"}, {"value", "v"}, {"effect", "NoSchedule"}, {"timeAdded", "2026-01-01T00:00:00Z"}});
  CHECK(t.time_added == "2026-01-01T00:00:00Z");
  CHECK(taint_from_json(to_json(t)) == t);
  Toleration tol = toleration_from_json({{"key", "k"}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                         {"tolerationSeconds", 300}});
  CHECK(tol.toleration_seconds == 300);
  CHECK(toleration_from_json(to_json(tol)) == tol);
  CHECK(toleration_from_json(nlohmann::json()).op.empty());
}
