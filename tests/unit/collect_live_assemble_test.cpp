// SPDX-License-Identifier: Apache-2.0
// assemble(): the parts of a live read into one Snapshot, sorted, first read of an object kept.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collect/live_assemble.hpp"
#include "unit/builders.hpp"

using namespace gpuslice;
using namespace gpuslice::testing;

namespace {

model::Pod pod_on(const std::string& ns, const std::string& name, const std::string& node) {
  model::Pod pod = PodBuilder(ns, name).build();
  pod.spec.node_name = node;
  return pod;
}

} // namespace

TEST_CASE("assemble sorts each list by namespace and name and keeps the first read of an object") {
  std::vector<Snapshot> parts(3);
  parts[0].pods = {pod_on("b", "p2", "first"), pod_on("a", "p9", "first"), pod_on("b", "p1", "first")};
  parts[1].pods = {pod_on("a", "p1", "second"), pod_on("b", "p2", "second"), pod_on("c", "p0", "second")};
  parts[2].pods = {pod_on("a", "p9", "third"), pod_on("a", "p0", "third")};
  parts[1].nodes = {NodeBuilder("n2").build(), NodeBuilder("n1").build()};
  parts[2].nodes = {NodeBuilder("n1").gpus(8).build()};

  Snapshot all = collect::assemble(parts);

  std::vector<std::string> got;
  for (const model::Pod& pod : all.pods) got.push_back(pod.meta.ns + "/" + pod.meta.name + "@" + pod.spec.node_name);
  CHECK(got == std::vector<std::string>{"a/p0@third", "a/p1@second", "a/p9@first", "b/p1@first", "b/p2@first",
                                        "c/p0@second"});
  REQUIRE(all.nodes.size() == 2);
  CHECK(all.nodes[0].name() == "n1");
  CHECK(!all.nodes[0].capacity.contains("nvidia.com/gpu")); // parts[1]'s n1 was read first
  CHECK(all.nodes[1].name() == "n2");
  for (const Snapshot& part : parts) CHECK(part.pods.capacity() == 0); // freed as they were moved
}

TEST_CASE("assemble reserves each list once: no room beyond the records read") {
  std::vector<Snapshot> parts(40);
  int n = 0;
  for (Snapshot& part : parts)
    for (int i = 0; i < 25; ++i) part.pods.push_back(pod_on("ns", "pod-" + std::to_string(997 * ++n % 1009), "x"));
  Snapshot all = collect::assemble(parts);
  CHECK(all.pods.size() == 1000);
  CHECK(all.pods.capacity() == 1000); // doubling from the first part's 25 would have left 1,600
  for (std::size_t i = 1; i < all.pods.size(); ++i) CHECK(all.pods[i - 1].meta.name < all.pods[i].meta.name);
}
