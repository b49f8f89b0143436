// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <gpuslice/report.hpp>

using gpuslice::report::to_yaml;
using json = nlohmann::ordered_json;

namespace {

// Reads YAML back into JSON, keeping the YAML 1.2 core-schema types, so we can check that
// what we print reads back as what we meant.
json from_yaml(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    json out = json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = from_yaml(kv.second);
    return out;
  }
  case YAML::NodeType::Sequence: {
    json out = json::array();
    for (const auto& item : node) out.push_back(from_yaml(item));
    return out;
  }
  case YAML::NodeType::Scalar: {
    if (node.Tag() == "!") return node.as<std::string>(); // quoted: always a string
    const std::string s = node.as<std::string>();
    if (s == "true" || s == "false") return s == "true";
    if (s == "null" || s == "~") return nullptr;
    try {
      std::size_t used = 0;
      const long long n = std::stoll(s, &used);
      if (used == s.size()) return n;
    } catch (const std::exception&) {
    }
    return s;
  }
  default: return nullptr;
  }
}

} // namespace

TEST_CASE("report::to_yaml") {
  SUBCASE("round-trips types, including strings that look like other types") {
    const json tree = {
        {"apiVersion", "gpuslice/v1alpha1"},
        {"count", 6},
        {"flag", true},
        {"nothing", nullptr},
        {"looksNumeric", "1"},
        {"looksBool", "yes"},
        {"hasColon", "a: b"},
        {"hash", "x #y"},
        {"leadingDash", "-v"},
        {"empty", ""},
        {"emptyList", json::array()},
        {"emptyMap", json::object()},
        {"taints", {"nvidia.com/gpu=true:NoSchedule"}},
        {"findings", {{{"code", "GS300"}, {"evidence", {"a", "b"}}, {"n", 3}}, {{"code", "GS100"}}}},
        {"nested", {{"inner", {{"deep", "v"}}}}},
        {"multiline", "line one\nline two"},
    };
    const std::string text = to_yaml(tree);
    CHECK(from_yaml(YAML::Load(text)) == tree);
  }
  SUBCASE("plain strings stay unquoted, list items kubectl-style") {
    const json tree = {{"name", "gpu-node-1"}, {"taints", {"a=b:NoSchedule"}}};
    CHECK(to_yaml(tree) == "name: gpu-node-1\ntaints:\n- a=b:NoSchedule\n");
  }
  SUBCASE("objects in lists put their first key after the dash") {
    const json tree = {{"items", {{{"a", 1}, {"b", 2}}}}};
    CHECK(to_yaml(tree) == "items:\n- a: 1\n  b: 2\n");
  }
}
