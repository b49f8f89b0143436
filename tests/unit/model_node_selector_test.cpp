// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model/labels.hpp>

using namespace gpuslice::model;
using nlohmann::json;

namespace {

const StringMap k_labels{{"nvidia.com/gpu.product", "Tesla-T4"}, {"nvidia.com/gpu.count", "1"}};

NodeSelector parse(const json& j) {
  Parsed<NodeSelector> parsed = parse_node_selector(j);
  REQUIRE_MESSAGE(parsed, parsed.error);
  return *parsed.value;
}

json term(json expressions, json fields = json()) {
  json t = json::object();
  if (!expressions.is_null()) t["matchExpressions"] = std::move(expressions);
  if (!fields.is_null()) t["matchFields"] = std::move(fields);
  return t;
}

json expr(const char* key, const char* op, std::vector<std::string> values = {}) {
  json e = {{"key", key}, {"operator", op}};
  if (!values.empty()) e["values"] = values;
  return e;
}

} // namespace

TEST_CASE("model::node_selector_matches") {
  SUBCASE("terms are ORed, expressions ANDed") {
    NodeSelector s = parse({{"nodeSelectorTerms",
                             {term({expr("nvidia.com/gpu.product", "In", {"A10G"})}),
                              term({expr("nvidia.com/gpu.product", "In", {"Tesla-T4"}),
                                    expr("nvidia.com/gpu.count", "Gt", {"0"})})}}});
    CHECK(node_selector_matches(s, "n1", k_labels));
    NodeSelector strict = parse({{"nodeSelectorTerms", {term({expr("nvidia.com/gpu.product", "In", {"Tesla-T4"}),
                                                              expr("nvidia.com/gpu.count", "Gt", {"1"})})}}});
    CHECK(!node_selector_matches(strict, "n1", k_labels));
  }
  SUBCASE("every operator") {
    auto one = [](json e) { return parse({{"nodeSelectorTerms", {term({std::move(e)})}}}); };
    CHECK(node_selector_matches(one(expr("nvidia.com/gpu.count", "Lt", {"2"})), "n", k_labels));
    CHECK(node_selector_matches(one(expr("missing", "DoesNotExist")), "n", k_labels));
    CHECK(node_selector_matches(one(expr("nvidia.com/gpu.product", "Exists")), "n", k_labels));
    CHECK(node_selector_matches(one(expr("nvidia.com/gpu.product", "NotIn", {"A10G"})), "n", k_labels));
    CHECK(!node_selector_matches(one(expr("nvidia.com/gpu.product", "NotIn", {"Tesla-T4"})), "n", k_labels));
  }
  SUBCASE("matchFields metadata.name") {
    NodeSelector s = parse({{"nodeSelectorTerms", {term(json(), {expr("metadata.name", "In", {"gpu-1"})})}}});
    CHECK(node_selector_matches(s, "gpu-1", k_labels));
    CHECK(!node_selector_matches(s, "gpu-2", k_labels));
    NodeSelector other_field =
        parse({{"nodeSelectorTerms", {term(json(), {expr("spec.unschedulable", "In", {"false"})})}}});
    CHECK(!node_selector_matches(other_field, "gpu-1", k_labels));
  }
  SUBCASE("no terms, or an empty term, match nothing") {
    CHECK(!node_selector_matches(parse({{"nodeSelectorTerms", json::array()}}), "n", k_labels));
    CHECK(!node_selector_matches(parse({{"nodeSelectorTerms", {json::object()}}}), "n", k_labels));
    NodeSelector with_empty = parse({{"nodeSelectorTerms", {json::object(), term({expr("nvidia.com/gpu.count", "Exists")})}}});
    CHECK(node_selector_matches(with_empty, "n", k_labels));
  }
}

TEST_CASE("model::parse_node_selector") {
  SUBCASE("errors") {
    CHECK(!parse_node_selector(json("x")));
    CHECK(!parse_node_selector({{"nodeSelectorTerms", "x"}}));
    CHECK(!parse_node_selector({{"nodeSelectorTerms", {1}}}));
    CHECK(!parse_node_selector({{"nodeSelectorTerms", {term({expr("a", "Gt", {"1", "2"})})}}}));
    CHECK(!parse_node_selector({{"nodeSelectorTerms", {term({expr("a", "Gt", {"x"})})}}}));
    CHECK(!parse_node_selector({{"nodeSelectorTerms", {{{"matchExpressions", 3}}}}}));
    CHECK(parse_node_selector({{"nodeSelectorTerms", {term({expr("a", "Near")})}}}).error.find("matchExpressions") == 0);
  }
  SUBCASE("JSON round trip") {
    NodeSelector s = parse({{"nodeSelectorTerms", {term({expr("a", "In", {"b"}), expr("c", "Gt", {"1"})},
                                                         {expr("metadata.name", "NotIn", {"x"})})}}});
    CHECK(parse(node_selector_json(s)) == s);
  }
}
