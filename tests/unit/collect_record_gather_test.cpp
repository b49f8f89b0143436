// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>

#include "collect/record_gather.hpp"
#include "unit/builders.hpp"

using namespace gpuslice;
using namespace gpuslice::testing;

namespace {

model::Node gather_node(const std::string& name, const std::string& uid) {
  model::Node node;
  node.meta.name = name;
  node.meta.uid = uid;
  return node;
}

std::string gather_names(const std::vector<model::Node>& nodes) {
  std::string names;
  for (const model::Node& node : nodes) names += node.meta.name + "=" + node.meta.uid + " ";
  return names;
}

// A pod as a file holds it, told apart from its copies by uid.
nlohmann::json gather_pod(const std::string& name, const std::string& uid) {
  nlohmann::json pod = PodBuilder("ml", name).json();
  pod["metadata"]["uid"] = uid;
  return pod;
}

nlohmann::json gather_node_json() { return NodeBuilder("gpu-1").json(); }

std::string gather_pod_names(const std::vector<model::Pod>& pods) {
  std::string names;
  for (const model::Pod& pod : pods) names += pod.meta.name + "=" + pod.meta.uid + " ";
  return names;
}

} // namespace

TEST_CASE("collect::replace_copies keeps the first place and the last copy") {
  std::vector<model::Node> nodes = {gather_node("a", "1"), gather_node("b", "1"), gather_node("a", "2"),
                                    gather_node("c", "1"), gather_node("a", "3"), gather_node("b", "2")};
  collect::replace_copies(nodes);
  CHECK(gather_names(nodes) == "a=3 b=2 c=1 ");

  std::vector<model::Node> unique = {gather_node("z", "1"), gather_node("a", "1")};
  collect::replace_copies(unique);
  CHECK(gather_names(unique) == "z=1 a=1 "); // not sorted
}

TEST_CASE("collect::replace_copies: a Helm release is named by its Secret, else by name and revision") {
  auto release = [](std::string secret, long long revision, std::string chart) {
    model::HelmRelease r;
    r.ns = "gpu";
    r.name = "plugin";
    r.secret_name = std::move(secret);
    r.revision = revision;
    r.chart_name = std::move(chart);
    return r;
  };
  std::vector<model::HelmRelease> releases = {release("", 1, "a"), release("", 2, "b"), release("", 1, "c"),
                                              release("s", 1, "d"), release("s", 2, "e")};
  collect::replace_copies(releases);
  REQUIRE(releases.size() == 3);
  CHECK(releases[0].chart_name == "c");
  CHECK(releases[1].chart_name == "b");
  CHECK(releases[2].chart_name == "e");
}

TEST_CASE("collect::RecordGather over many blocks replaces what the list held") {
  std::vector<model::Node> nodes = {gather_node("n7", "old"), gather_node("kept", "old")};
  collect::RecordGather<model::Node> gather(nodes);
  for (int i = 0; i < 5000; ++i) gather.put(gather_node(fmt::format("n{}", i), "new"));
  gather.put(gather_node("n3", "newer"));
  CHECK(nodes.size() == 2); // nothing moves in before finish()
  gather.finish();
  REQUIRE(nodes.size() == 5001);
  CHECK(gather_names({nodes[0], nodes[1], nodes[2], nodes[5]}) == "n7=new kept=old n0=new n3=newer ");
  CHECK(nodes.back().meta.name == "n4999");
}

TEST_CASE("collect: the same object in a later document or file replaces its copy in place") {
  SUBCASE("documents of one file") {
    Snapshot s;
    collect::merge_text(s, nlohmann::json::array({gather_pod("a", "1"), gather_pod("b", "1"), gather_pod("a", "2")}).dump(),
                        "array.json");
    CHECK(gather_pod_names(s.pods) == "a=2 b=1 ");
  }
  SUBCASE("files read through the window") {
    const std::filesystem::path dir = std::filesystem::path(GPUSLICE_BINARY_DIR) / "collect-gather-test";
    std::filesystem::create_directories(dir);
    const std::string first = (dir / "first.json").string();
    const std::string second = (dir / "second.json").string();
    std::ofstream(first) << list_of({gather_pod("a", "1"), gather_pod("b", "1")}).dump();
    std::ofstream(second) << list_of({gather_pod("c", "2"), gather_pod("a", "2"), gather_pod("c", "3")}).dump();
    Snapshot s = collect::load_snapshot_files({first, second});
    std::filesystem::remove_all(dir);
    CHECK(gather_pod_names(s.pods) == "a=2 b=1 c=3 ");
  }
  SUBCASE("a List of more pods than are moved on the reading thread (their own thread moves them)") {
    const std::filesystem::path dir = std::filesystem::path(GPUSLICE_BINARY_DIR) / "collect-gather-many";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "many.json").string();
    nlohmann::json items = nlohmann::json::array();
    for (int i = 0; i < 6000; ++i) items.push_back(gather_pod(fmt::format("p{}", i), "1"));
    items.push_back(gather_pod("p17", "2")); // a later copy keeps the first place
    items.push_back(gather_node_json());
    std::ofstream(path) << list_of(items.get<std::vector<nlohmann::json>>()).dump();
    Snapshot s = collect::load_snapshot_files({path});
    std::filesystem::remove_all(dir);
    REQUIRE(s.pods.size() == 6000);
    CHECK(s.pods[0].meta.name == "p0");
    CHECK(gather_pod_names({s.pods[17]}) == "p17=2 ");
    CHECK(s.pods.back().meta.name == "p5999");
    REQUIRE(s.nodes.size() == 1);
    CHECK(s.nodes[0].meta.name == "gpu-1");
  }
}

TEST_CASE("collect::RecordGather: blocks handed over from other gathers keep read order and copies replace") {
  std::vector<model::Node> unused_a, unused_b, nodes;
  collect::RecordGather<model::Node> first(unused_a);
  collect::RecordGather<model::Node> second(unused_b);
  // A worker that knows how many items are left sizes one block to hold them all.
  for (int i = 0; i < 3; ++i) first.put(gather_node("a" + std::to_string(i), "1"), 3 - static_cast<std::size_t>(i));
  second.put(gather_node("b0", "1"));
  second.put(gather_node("a1", "2")); // a copy of a1, read later
  std::vector<collect::RecordBlock<model::Node>> from_first, from_second;
  first.hand_over(from_first);
  second.hand_over(from_second);
  REQUIRE(from_first.size() == 1);
  CHECK(from_first[0].capacity() == 3);

  collect::RecordGather<model::Node> merged(nodes);
  merged.put(gather_node("z", "1"));
  merged.take(from_first);
  merged.take(from_second);
  merged.put(gather_node("c", "1"));
  CHECK(from_first.empty());
  merged.finish();
  CHECK(gather_names(nodes) == "z=1 a0=1 a1=2 a2=1 b0=1 c=1 ");
  first.finish(); // handed over: nothing left to put in its list
  CHECK(unused_a.empty());
}
