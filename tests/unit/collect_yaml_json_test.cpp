// SPDX-License-Identifier: Apache-2.0
// parse_yaml_documents: yaml-cpp's parser events into JSON, with our own document loop.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include <gpuslice/error.hpp>

#include "collect/yaml_json.hpp"

using gpuslice::UsageError;
using gpuslice::collect::parse_yaml_documents;
using nlohmann::json;

namespace {

std::string yaml_error(const std::string& text) {
  try {
    parse_yaml_documents(text, "in.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

} // namespace

TEST_CASE("parse_yaml_documents types scalars as the YAML 1.2 core schema") {
  auto docs = parse_yaml_documents("a: 1\nb: \"1\"\nc: true\nd: ~\ne: 2.5\nf: text\ng: '0x1'\nh: |\n  block\n", "x");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0] == json{{"a", 1}, {"b", "1"}, {"c", true}, {"d", nullptr}, {"e", 2.5}, {"f", "text"}, {"g", "0x1"},
                        {"h", "block\n"}});
}

TEST_CASE("parse_yaml_documents: documents, empty ones dropped, nesting kept") {
  auto docs = parse_yaml_documents("---\n---\nkind: A\nlist: [1, [2, {x: y}]]\n---\n# nothing\n---\n- z\n", "x");
  REQUIRE(docs.size() == 2);
  CHECK(docs[0] == json{{"kind", "A"}, {"list", json::array({1, json::array({2, json{{"x", "y"}}})})}});
  CHECK(docs[1] == json::array({"z"}));
  CHECK(parse_yaml_documents("", "x").empty());
  CHECK(parse_yaml_documents("# only a comment\n", "x").empty());
}

TEST_CASE("parse_yaml_documents: anchors and aliases copy the anchored value") {
  auto docs = parse_yaml_documents("base: &b {cpu: 1, tags: [x]}\nother: *b\nname: &n web\nagain: *n\n", "x");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0]["other"] == json{{"cpu", 1}, {"tags", json::array({"x"})}});
  CHECK(docs[0]["again"] == "web");
}

TEST_CASE("parse_yaml_documents drops entries whose key is not a scalar") {
  auto docs = parse_yaml_documents("? [a, b]\n: {v: [1, 2]}\n? {k: 1}\n: plain\nkept: yes\n", "x");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0] == json{{"kept", "yes"}});
}

TEST_CASE("parse_yaml_documents refuses a stray ',' instead of looping (yaml-cpp 0.7 LoadAll never returns)") {
  CHECK(yaml_error(",") == "in.yaml: not valid YAML or JSON: line 1, column 1: unexpected ','");
  CHECK(yaml_error("kind: Node\n---\n,\n") == "in.yaml: not valid YAML or JSON: line 3, column 1: unexpected ','");
  // The input the fuzzer found: it held the CI's fuzz run for its whole timeout.
  std::ifstream found(std::string(GPUSLICE_SOURCE_DIR) + "/tests/fuzz/regressions/snapshot_reader/yaml-cpp-stray-comma-loop",
                      std::ios::binary);
  std::string fuzzed{std::istreambuf_iterator<char>(found), std::istreambuf_iterator<char>()};
  REQUIRE(!fuzzed.empty());
  CHECK(yaml_error(fuzzed).starts_with("in.yaml: not valid YAML or JSON: line "));
}

TEST_CASE("parse_yaml_documents bounds what hostile input can cost") {
  SUBCASE("nesting") {
    std::string deep = "spec: " + std::string(300, '[') + std::string(300, ']');
    CHECK(yaml_error(deep) == "in.yaml: document 1: nesting deeper than 256 levels");
    CHECK(parse_yaml_documents("spec: " + std::string(200, '[') + std::string(200, ']'), "x").size() == 1);
  }
  SUBCASE("aliases that expand exponentially (billion laughs)") {
    std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char name = 'b'; name <= 'k'; ++name) {
      std::string ref = std::string("*") + prev;
      text += std::string(1, name) + ": &" + name + " [" + ref + ", " + ref + ", " + ref + ", " + ref + ", " + ref +
              ", " + ref + ", " + ref + ", " + ref + ", " + ref + ", " + ref + "]\n";
      prev = name;
    }
    CHECK(yaml_error(text).find("in.yaml: document 1: aliases expand to more than") == 0);
  }
  SUBCASE("a syntax error names line and column") {
    CHECK(yaml_error("kind: Node\nmetadata: {name: [x\n").starts_with("in.yaml: not valid YAML or JSON: line "));
  }
}
