// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuslice/model/quantity.hpp>
#include <gpuslice/model/string_map.hpp>

using gpuslice::model::StringMap;

namespace {

std::vector<std::pair<std::string, std::string>> entries_of(const StringMap& map) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : map) out.emplace_back(key, value);
  return out;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

} // namespace

TEST_CASE("model::StringMap keeps keys sorted and unique, in any insertion order") {
  StringMap map;
  CHECK(map.empty());
  CHECK(map.insert_or_assign("b", "2"));
  CHECK(map.insert_or_assign("a", "1"));
  CHECK(map.insert_or_assign("c", "3"));
  CHECK_FALSE(map.insert_or_assign("b", "two")); // replaces
  CHECK(entries_of(map) == Entries{{"a", "1"}, {"b", "two"}, {"c", "3"}});
  CHECK(map.size() == 3);
  CHECK(map.at("b") == "two");
  CHECK_THROWS_AS((void)map.at("z"), std::out_of_range);
  CHECK(map.find("c")->second == "3");
  CHECK(map.find("bb") == map.end());
  CHECK(map.contains("a"));
  CHECK(map.count("x") == 0);
}

TEST_CASE("model::StringMap emplace keeps the first value, erase removes, empty text is a value") {
  StringMap map{{"k", "first"}};
  CHECK_FALSE(map.emplace("k", "second"));
  CHECK(map.at("k") == "first");
  CHECK(map.emplace("e", ""));
  CHECK(map.contains("e"));
  CHECK(map.at("e").empty());
  CHECK(map.erase("k") == 1);
  CHECK(map.erase("k") == 0);
  CHECK(entries_of(map) == Entries{{"e", ""}});
  map.clear();
  CHECK(map.empty());
  CHECK(map.begin() == map.end());
}

TEST_CASE("model::StringMap values that shrink, grow or come from the map itself") {
  StringMap map{{"node.kubernetes.io/instance-type", "g5.12xlarge"}, {"b", "a value longer than sixteen"}};
  map.insert_or_assign("b", "short");
  CHECK(map.at("b") == "short");
  map.insert_or_assign("b", "now much longer than it was before, past any small buffer");
  CHECK(map.at("b") == "now much longer than it was before, past any small buffer");
  // A view into the map's own buffer, written back under another key and the same key.
  map.insert_or_assign("c", map.at("node.kubernetes.io/instance-type"));
  CHECK(map.at("c") == "g5.12xlarge");
  map.insert_or_assign("b", map.at("b").substr(4));
  CHECK(map.at("b") == "much longer than it was before, past any small buffer");
  map.insert_or_assign("d", map.find("b")->first);
  CHECK(map.at("d") == "b");
}

TEST_CASE("model::StringMap equality is by entries, not by buffer layout") {
  StringMap built_in_order{{"a", "1"}, {"b", "2"}};
  StringMap rewritten;
  rewritten.insert_or_assign("b", "a long value that is replaced later on");
  rewritten.insert_or_assign("a", "1");
  rewritten.insert_or_assign("b", "2");
  rewritten.insert_or_assign("z", "gone");
  rewritten.erase("z");
  CHECK(built_in_order == rewritten);
  rewritten.shrink_to_fit();
  CHECK(built_in_order == rewritten);
  CHECK(entries_of(rewritten) == Entries{{"a", "1"}, {"b", "2"}});
  rewritten.insert_or_assign("b", "3");
  CHECK_FALSE(built_in_order == rewritten);
  CHECK_FALSE(built_in_order == StringMap{{"a", "1"}});
}

TEST_CASE("model::StringMap agrees with std::map under random edits") {
  std::mt19937 random(7);
  std::map<std::string, std::string> expected;
  StringMap map;
  auto text = [&](int max_size) {
    std::string out(static_cast<std::size_t>(random() % static_cast<unsigned>(max_size + 1)), ' ');
    for (char& c : out) c = static_cast<char>('a' + random() % 4);
    return out;
  };
  for (int step = 0; step < 4000; ++step) {
    std::string key = text(3);
    switch (random() % 4) {
    case 0:
    case 1: {
      std::string value = text(40);
      expected.insert_or_assign(key, value);
      map.insert_or_assign(key, value);
      break;
    }
    case 2: {
      std::string value = text(20);
      expected.emplace(key, value);
      map.emplace(key, value);
      break;
    }
    default:
      CHECK(map.erase(key) == expected.erase(key));
    }
    if (step % 500 == 0) map.shrink_to_fit();
  }
  REQUIRE(map.size() == expected.size());
  CHECK(entries_of(map) == Entries(expected.begin(), expected.end()));
  StringMap copy(expected.begin(), expected.end());
  CHECK(copy == map);
}

TEST_CASE("model::ResourceList: operator[] adds zero, insert_or_assign replaces, emplace keeps") {
  using gpuslice::model::Quantity;
  using gpuslice::model::ResourceList;
  ResourceList list{{"nvidia.com/gpu", Quantity::from_units(1)}, {"cpu", Quantity::from_milli(500)}};
  CHECK(list.begin()->first == "cpu"); // sorted by name
  list["nvidia.com/gpu"] += Quantity::from_units(2);
  CHECK(list.find("nvidia.com/gpu")->second == Quantity::from_units(3));
  CHECK(list["ephemeral-storage"].is_zero());
  CHECK(list.size() == 3);
  CHECK_FALSE(list.emplace("cpu", Quantity::from_units(8)));
  CHECK(quantity_of(list, "cpu") == Quantity::from_milli(500));
  CHECK_FALSE(list.insert_or_assign("cpu", Quantity::from_units(8)));
  CHECK(quantity_of(list, "cpu") == Quantity::from_units(8));
  CHECK(list.erase("ephemeral-storage") == 1);
  CHECK(quantity_of(list, "ephemeral-storage").is_zero());
  std::vector<std::string> names;
  for (const auto& [name, quantity] : list) names.emplace_back(name);
  CHECK(names == std::vector<std::string>{"cpu", "nvidia.com/gpu"});
  ResourceList same{{"cpu", Quantity::parse("8000m").value()}, {"nvidia.com/gpu", Quantity::from_units(3)}};
  list.shrink_to_fit();
  CHECK(list == same); // amounts compare, not their text
  CHECK_FALSE(list == ResourceList{{"cpu", Quantity::from_units(8)}});
}

TEST_CASE("model::StringMap copies, moves, and keys taken from the map itself") {
  StringMap map;
  for (int i = 0; i < 40; ++i) map.insert_or_assign("key-" + std::to_string(100 + i), std::string(i, 'v'));
  // A key that is a view into the map, inserted while the map must grow to take it.
  map.insert_or_assign(map.at("key-139").substr(0, 30), "from a view");
  CHECK(map.at(std::string(39, 'v').substr(0, 30)) == "from a view");
  StringMap copy = map;
  CHECK(copy == map);
  copy.insert_or_assign("key-100", "changed");
  CHECK(map.at("key-100").empty()); // the copy owns its own text
  StringMap moved = std::move(copy);
  CHECK(moved.at("key-100") == "changed");
  map = moved;
  CHECK(map == moved);
  map = StringMap{};
  CHECK(map.empty());
  CHECK(map.find("key-100") == map.end());
  CHECK(map.erase("key-100") == 0);
}
