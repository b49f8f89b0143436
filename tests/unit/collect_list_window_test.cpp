// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "collect/list_window.hpp"

using namespace gpuslice;

namespace {

struct WindowScan {
  std::optional<collect::ListHead> head;
  std::vector<std::string> items;
  std::vector<std::string> kinds_before; // the List's kind as each item was read
};

WindowScan list_window_scan(std::string_view text, std::size_t window) {
  WindowScan scan;
  scan.head = collect::scan_list_items(
      collect::text_reader(text),
      [&](std::string_view item, const collect::ListHead& before) {
        scan.items.emplace_back(item);
        scan.kinds_before.push_back(before.kind);
      },
      window);
  return scan;
}

} // namespace

TEST_CASE("list window: items are cut out whole, whatever the window") {
  const std::string text = R"( {"apiVersion": "v1", "items": [ {"a": "x\"}{[", "b": {"c": [1, {"d": "\\"}]}},
    {"e": "\\\"]"} ,{}], "kind": "List", "metadata": {"annotations": {"k": "}"}}}
)";
  for (std::size_t window : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{4096}}) {
    CAPTURE(window);
    WindowScan scan = list_window_scan(text, window);
    REQUIRE(scan.head);
    CHECK(scan.head->kind == R"("List")");
    CHECK(scan.head->metadata == R"({"annotations": {"k": "}"}})");
    REQUIRE(scan.items.size() == 3);
    CHECK(scan.items[0] == R"({"a": "x\"}{[", "b": {"c": [1, {"d": "\\"}]}})");
    CHECK(scan.items[1] == R"({"e": "\\\"]"})");
    CHECK(scan.items[2] == "{}");
    CHECK(scan.kinds_before == std::vector<std::string>(3)); // "kind" comes after the items
  }
}

TEST_CASE("list window: an empty items array and kind before items") {
  WindowScan scan = list_window_scan(R"({"kind":"PodList","metadata":{},"items":[]})", 3);
  REQUIRE(scan.head);
  CHECK(scan.head->kind == R"("PodList")");
  CHECK(scan.items.empty());
  scan = list_window_scan(R"({"kind":"PodList","items":[{"a":1}]})", 3);
  REQUIRE(scan.head);
  CHECK(scan.kinds_before == std::vector<std::string>{R"("PodList")"});
}

TEST_CASE("list window: anything but one object with one items array of objects is refused") {
  for (const char* text : {
           "",                                          // nothing
           "[]",                                        // not an object
           R"({"kind": "List"})",                       // no items
           R"({"kind": "List", "items": {}})",          // items not an array
           R"({"items": [{"a": 1}, 2]})",               // an item that is not an object
           R"({"items": [{"a": 1}], "items": []})",     // items twice
           R"({"items": [{"a": "1})",                   // cut short in a string
           R"({"items": [{"a": {"b": 1}}])",            // cut short after the items
           R"({"items": [{"a": 1}]} {})",               // something after the object
           R"({"items": [{"a": 1}] "kind": "List"})",   // a missing comma
           R"({"items": [{"a": 1}}]})",                 // unbalanced
           R"({"kind": , "items": []})",                // an empty value
           "{\"items\": [{\"a\": 1}]}\n\n\"x\"",        // trailing text
       }) {
    CAPTURE(text);
    CHECK(!list_window_scan(text, 5).head);
    CHECK(!list_window_scan(text, 4096).head);
  }
}

namespace {

// A JSON string whose text has runs of backslashes, escaped quotes and brackets, some of them
// long enough to cross the scanner's 64-byte blocks.
std::string tricky_string(std::mt19937& random) {
  static const std::vector<std::string> pieces = {"a", " ", "{", "}", "[", "]", "\\\"", "\\\\", "\\\\\\\"",
                                                  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "\\n", "\\u00e9"};
  std::string text = "\"";
  const int count = static_cast<int>(random() % 40);
  for (int i = 0; i < count; ++i) {
    const std::size_t pick = random() % pieces.size();
    const int repeat = pick == 7 && random() % 4 == 0 ? static_cast<int>(random() % 70) : 1; // long \\ runs
    for (int r = 0; r < repeat; ++r) text += pieces[pick];
  }
  return text + "\"";
}

std::string tricky_value(std::mt19937& random, int depth) {
  switch (depth > 4 ? random() % 3 : random() % 5) {
  case 0:
    return tricky_string(random);
  case 1:
    return std::to_string(random() % 1000);
  case 2:
    return "null";
  case 3: {
    std::string text = "[";
    const int count = static_cast<int>(random() % 5);
    for (int i = 0; i < count; ++i) text += (i ? "," : "") + tricky_value(random, depth + 1);
    return text + "]";
  }
  default: {
    std::string text = "{";
    const int count = static_cast<int>(random() % 5);
    for (int i = 0; i < count; ++i) text += std::string(i ? ", " : "") + tricky_string(random) + ":" + tricky_value(random, depth + 1);
    return text + "}";
  }
  }
}

} // namespace

TEST_CASE("list window: items with escapes and brackets in strings, across blocks and windows") {
  std::mt19937 random(20261205);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> items;
    std::string text = R"({"kind": "List", "items": [)";
    const int count = 1 + static_cast<int>(random() % 20);
    for (int i = 0; i < count; ++i) {
      std::string item = "{\"k\": " + tricky_value(random, 1) + ", " + tricky_string(random) + ": " + tricky_value(random, 1) + "}";
      text += (i ? ",\n " : "") + item;
      items.push_back(std::move(item));
    }
    text += "], \"metadata\": {\"s\": " + tricky_string(random) + "}}";
    for (std::size_t window : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000},
                               std::size_t{1} << 20}) {
      CAPTURE(round);
      CAPTURE(window);
      const WindowScan scan = list_window_scan(text, window);
      REQUIRE(scan.head);
      CHECK(scan.items == items);
    }
  }
}
