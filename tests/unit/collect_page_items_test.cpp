// SPDX-License-Identifier: Apache-2.0
// A list page's items are cut out of the raw page without simdjson's index of the whole page;
// odd pages (no items, items not an array) and broken ones behave as they did.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <gpuslice/error.hpp>

#include "collect/page_items.hpp"

using namespace gpuslice;

namespace {

std::vector<std::string> page_items_of(std::string_view page) {
  std::vector<std::string> items;
  collect::for_each_page_item(page, "pods", [&](std::string_view item) { items.emplace_back(item); });
  return items;
}

} // namespace

TEST_CASE("collect::for_each_page_item") {
  SUBCASE("every item, as raw text, whatever comes before or after the array") {
    const std::string page =
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"continue":"x]}{","resourceVersion":"7"},)"
        R"("items":[{"metadata":{"name":"a \"}]\" b"}}, {"spec":{"nodeName":"n1"},"x":[1,{}]}],"extra":null})";
    CHECK(page_items_of(page) == std::vector<std::string>{R"({"metadata":{"name":"a \"}]\" b"}})",
                                                          R"({"spec":{"nodeName":"n1"},"x":[1,{}]})"});
  }
  SUBCASE("an item larger than the scanner's window") {
    const std::string big(200000, 'x');
    const std::string item = R"({"a":")" + big + R"("})";
    CHECK(page_items_of(R"({"items":[)" + item + "," + item + "]}") == std::vector<std::string>{item, item});
  }
  SUBCASE("no items, empty items, items that are not an array: no item") {
    CHECK(page_items_of(R"({"kind":"PodList","metadata":{}})").empty());
    CHECK(page_items_of(R"({"items":[]})").empty());
    CHECK(page_items_of(R"({"items":null})").empty());
  }
  SUBCASE("a page that is not a JSON object, or breaks off, is an error naming the list") {
    CHECK_THROWS_WITH_AS(page_items_of("[1,2]"), doctest::Contains("list pods: a page is not a JSON"), RuntimeError);
    CHECK_THROWS_WITH_AS(page_items_of(R"({"items":[{"a":1},{"b":)"), doctest::Contains("list pods: a page is not a JSON"),
                         RuntimeError);
    CHECK_THROWS_AS(page_items_of(R"({"items":[{"a":1},2]})"), RuntimeError);
  }
}

TEST_CASE("collect::raw_pod_node_name") {
  CHECK(collect::raw_pod_node_name(R"({"metadata":{},"spec":{"containers":[],"nodeName":"gpu-1"}})") == "gpu-1");
  CHECK(collect::raw_pod_node_name(R"({"spec":{}})").empty());
  CHECK(collect::raw_pod_node_name(R"({"spec":{"nodeName":3}})").empty());
}
