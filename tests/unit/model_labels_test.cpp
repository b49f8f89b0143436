// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <gpuslice/model/labels.hpp>

using namespace gpuslice::model;

namespace {

const StringMap k_gpu_labels{{"nvidia.com/gpu.present", "true"}, {"nvidia.com/gpu.count", "4"},
                             {"node.kubernetes.io/instance-type", "g4dn.12xlarge"}};

bool matches(const char* selector, const StringMap& labels = k_gpu_labels) {
  Parsed<LabelSelector> parsed = parse_selector_string(selector);
  REQUIRE_MESSAGE(parsed, parsed.error);
  return selector_matches(*parsed.value, labels);
}

} // namespace

TEST_CASE("model::requirement_matches") {
  SUBCASE("In and NotIn") {
    CHECK(requirement_matches({"nvidia.com/gpu.present", SelectorOp::in, {"true"}}, k_gpu_labels));
    CHECK(!requirement_matches({"nvidia.com/gpu.present", SelectorOp::in, {"false"}}, k_gpu_labels));
    CHECK(!requirement_matches({"missing", SelectorOp::in, {"x"}}, k_gpu_labels));
    CHECK(requirement_matches({"missing", SelectorOp::not_in, {"x"}}, k_gpu_labels)); // absent key matches NotIn
    CHECK(!requirement_matches({"nvidia.com/gpu.present", SelectorOp::not_in, {"true", "yes"}}, k_gpu_labels));
  }
  SUBCASE("Exists and DoesNotExist") {
    CHECK(requirement_matches({"nvidia.com/gpu.count", SelectorOp::exists, {}}, k_gpu_labels));
    CHECK(!requirement_matches({"nvidia.com/gpu.count", SelectorOp::does_not_exist, {}}, k_gpu_labels));
    CHECK(requirement_matches({"missing", SelectorOp::does_not_exist, {}}, k_gpu_labels));
  }
  SUBCASE("Gt and Lt compare integers") {
    CHECK(requirement_matches({"nvidia.com/gpu.count", SelectorOp::gt, {"2"}}, k_gpu_labels));
    CHECK(!requirement_matches({"nvidia.com/gpu.count", SelectorOp::gt, {"4"}}, k_gpu_labels));
    CHECK(requirement_matches({"nvidia.com/gpu.count", SelectorOp::lt, {"10"}}, k_gpu_labels));
    CHECK(!requirement_matches({"nvidia.com/gpu.present", SelectorOp::gt, {"0"}}, k_gpu_labels)); // "true" is no int
    CHECK(!requirement_matches({"missing", SelectorOp::lt, {"10"}}, k_gpu_labels));
    CHECK(!requirement_matches({"nvidia.com/gpu.count", SelectorOp::gt, {"x"}}, k_gpu_labels));
  }
}

TEST_CASE("model::parse_selector_string") {
  SUBCASE("every form") {
    CHECK(matches(""));
    CHECK(matches("nvidia.com/gpu.present=true"));
    CHECK(matches("nvidia.com/gpu.present==true"));
    CHECK(!matches("nvidia.com/gpu.present!=true"));
    CHECK(matches("missing!=x"));
    CHECK(matches("node.kubernetes.io/instance-type in (g4dn.xlarge, g4dn.12xlarge)"));
    CHECK(matches("node.kubernetes.io/instance-type notin (p3.2xlarge)"));
    CHECK(!matches("node.kubernetes.io/instance-type notin (g4dn.12xlarge)"));
    CHECK(matches("nvidia.com/gpu.count"));
    CHECK(matches("!missing"));
    CHECK(!matches("!nvidia.com/gpu.count"));
    CHECK(matches("nvidia.com/gpu.count>3"));
    CHECK(matches("nvidia.com/gpu.count<5"));
    CHECK(matches(" nvidia.com/gpu.present = true , nvidia.com/gpu.count in(4) "));
    CHECK(matches("empty=", {{"empty", ""}}));
  }
  SUBCASE("requirements are ANDed") {
    CHECK(!matches("nvidia.com/gpu.present=true,nvidia.com/gpu.count=8"));
  }
  SUBCASE("a key named like a keyword is still a key") {
    CHECK(matches("in=x", {{"in", "x"}}));
    CHECK(matches("notin", {{"notin", "y"}}));
  }
  SUBCASE("errors say where") {
    for (const char* bad : {"a b", "=x", "a=b,", ",a", "a in (x", "a in ()", "a notin x", "a>x", "a<", "!", "a=b c",
                            "a in (b,c", "a!", "a==b==c"}) {
      Parsed<LabelSelector> parsed = parse_selector_string(bad);
      CHECK_MESSAGE(!parsed, bad);
      CHECK(parsed.error.find("selector \"") == 0);
    }
  }
}

TEST_CASE("model::to_selector_string") {
  for (const char* text : {"a=b", "a!=b", "a in (b,c)", "a notin (b,c)", "a", "!a", "a>3", "a<3", "a=b,!c,d in (e,f)"}) {
    Parsed<LabelSelector> parsed = parse_selector_string(text);
    REQUIRE(parsed);
    CHECK(to_selector_string(*parsed.value) == text);
  }
}

TEST_CASE("model::parse_label_selector") {
  SUBCASE("matchLabels and matchExpressions") {
    nlohmann::json selector = {
        {"matchLabels", {{"app.kubernetes.io/name", "nvidia-device-plugin"}}},
        {"matchExpressions", {{{"key", "tier"}, {"operator", "NotIn"}, {"values", {"test"}}},
                              {{"key", "gpu"}, {"operator", "Exists"}}}}};
    Parsed<LabelSelector> parsed = parse_label_selector(selector);
    REQUIRE_MESSAGE(parsed, parsed.error);
    CHECK(parsed.value->requirements.size() == 3);
    CHECK(selector_matches(*parsed.value, {{"app.kubernetes.io/name", "nvidia-device-plugin"}, {"gpu", ""}}));
    CHECK(!selector_matches(*parsed.value, {{"app.kubernetes.io/name", "nvidia-device-plugin"}}));
    CHECK(!selector_matches(*parsed.value, {{"app.kubernetes.io/name", "x"}, {"gpu", ""}}));
  }
  SUBCASE("empty selector matches everything") {
    Parsed<LabelSelector> parsed = parse_label_selector(nlohmann::json::object());
    REQUIRE(parsed);
    CHECK(selector_matches(*parsed.value, {}));
  }
  SUBCASE("invalid selectors are errors") {
    CHECK(!parse_label_selector(nlohmann::json::array()));
    CHECK(!parse_label_selector({{"matchLabels", "x"}}));
    CHECK(!parse_label_selector({{"matchExpressions", {{{"key", "a"}, {"operator", "Gt"}, {"values", {"1"}}}}}}));
    CHECK(!parse_label_selector({{"matchExpressions", {{{"key", "a"}, {"operator", "In"}}}}}));
    CHECK(!parse_label_selector({{"matchExpressions", {{{"key", "a"}, {"operator", "Exists"}, {"values", {"x"}}}}}}));
    CHECK(!parse_label_selector({{"matchExpressions", {{{"operator", "Exists"}}}}}));
    CHECK(parse_label_selector({{"matchExpressions", {{{"key", "a"}, {"operator", "Bogus"}}}}})
              .error.find("unknown operator \"Bogus\"") != std::string::npos);
  }
  SUBCASE("JSON round trip") {
    Parsed<LabelSelector> parsed = parse_selector_string("a=b,c notin (d,e),!f");
    REQUIRE(parsed);
    Parsed<LabelSelector> again = parse_label_selector(label_selector_json(*parsed.value));
    REQUIRE(again);
    CHECK(*again.value == *parsed.value);
  }
}

TEST_CASE("model::node_labels_match") {
  CHECK(node_labels_match({}, k_gpu_labels));
  CHECK(node_labels_match({{"nvidia.com/gpu.present", "true"}}, k_gpu_labels));
  CHECK(!node_labels_match({{"nvidia.com/gpu.present", "true"}, {"x", "y"}}, k_gpu_labels));
  CHECK(!node_labels_match({{"nvidia.com/gpu.count", "8"}}, k_gpu_labels));
}
