// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/model/taints.hpp>
#include <gpuslice/model/word.hpp>

using gpuslice::model::Word;

TEST_CASE("model::Word: equal text is one interned word, the empty word holds nothing") {
  std::string built = std::string("node.kubernetes.io/") + "not-ready";
  Word a = built;
  Word b = "node.kubernetes.io/not-ready";
  CHECK(a == b);
  CHECK(a.data() == b.data()); // the same text, not a copy
  built.clear();                // the word does not point into its source
  CHECK(a == "node.kubernetes.io/not-ready");
  CHECK_FALSE(a == Word("node.kubernetes.io/unreachable"));
  Word empty;
  CHECK(empty.empty());
  CHECK(empty == "");
  CHECK(Word("") == empty);
  CHECK(empty.str().empty());
  CHECK(Word("Equal") < Word("Exists"));
  CHECK(fmt::format("{}={}", Word("key"), Word("value")) == "key=value");
  CHECK(nlohmann::json(Word("NoSchedule")) == "NoSchedule");
  CHECK("op " + Word("Exists") == "op Exists");
}

TEST_CASE("model::Word: threads interning the same words get the same pointers") {
  constexpr int k_threads = 4;
  std::vector<std::vector<const char*>> seen(k_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < 2000; ++i) seen[t].push_back(Word("word-" + std::to_string(i % 500)).data());
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 1; t < k_threads; ++t) CHECK(seen[t] == seen[0]);
  CHECK(std::set<const char*>(seen[0].begin(), seen[0].end()).size() == 500);
}

TEST_CASE("model::Toleration with words compares and tolerates as text would") {
  using gpuslice::model::Taint;
  using gpuslice::model::Toleration;
  Toleration exists{"nvidia.com/gpu", "Exists", "", "NoSchedule", {}};
  Toleration same{std::string("nvidia.com/gpu"), std::string("Exists"), std::string(), "NoSchedule", {}};
  CHECK(exists == same);
  CHECK(tolerates(exists, Taint{"nvidia.com/gpu", "true", "NoSchedule", ""}));
  CHECK_FALSE(tolerates(exists, Taint{"nvidia.com/gpu", "true", "NoExecute", ""}));
  Toleration equal{"pool", "", "gpu", "", {}};
  CHECK(tolerates(equal, Taint{"pool", "gpu", "NoSchedule", ""}));
  CHECK_FALSE(tolerates(equal, Taint{"pool", "cpu", "NoSchedule", ""}));
}
