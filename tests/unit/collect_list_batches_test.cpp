// SPDX-License-Identifier: Apache-2.0
// ListBatches hands batches back in the order their items were read, whatever order the
// workers finish them in; a worker's exception reaches the reading thread with its batch.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collect/list_batches.hpp"

using gpuslice::collect::ItemBatch;
using gpuslice::collect::ListBatches;
using gpuslice::collect::SimdjsonDom;

TEST_CASE("collect::ListBatches") {
  SUBCASE("batches come back in read order, items and their List positions intact") {
    std::vector<std::string> seen;
    std::vector<std::size_t> first_indexes;
    {
      ListBatches batches(
          [](ItemBatch& batch, SimdjsonDom&) {
            // Earlier batches take longer, so later ones finish first.
            std::this_thread::sleep_for(std::chrono::milliseconds(batch.first_index % 3 == 1 ? 20 : 0));
          },
          [&](ItemBatch& batch) {
            first_indexes.push_back(batch.first_index);
            for (std::size_t i = 0; i < batch.items.size(); ++i) seen.emplace_back(batch.item(i));
          },
          1, 3);
      for (int i = 1; i <= 40; ++i) batches.add("{\"n\":" + std::to_string(i) + "}", "\"List\"");
      batches.finish();
    }
    REQUIRE(seen.size() == 40);
    for (int i = 1; i <= 40; ++i) CHECK(seen[static_cast<std::size_t>(i - 1)] == "{\"n\":" + std::to_string(i) + "}");
    REQUIRE(first_indexes.size() == 40); // batches of one byte or more: one item each
    for (std::size_t i = 0; i < first_indexes.size(); ++i) CHECK(first_indexes[i] == i + 1);
  }
  SUBCASE("a batch's text is reused for later batches without the earlier items in it") {
    std::vector<std::string> sent, seen;
    {
      ListBatches batches([](ItemBatch&, SimdjsonDom&) {},
                          [&](ItemBatch& batch) {
                            for (std::size_t i = 0; i < batch.items.size(); ++i) seen.emplace_back(batch.item(i));
                          },
                          64, 2);
      for (int i = 0; i < 300; ++i) {
        // Items of many lengths, some longer than a batch.
        sent.push_back("{\"n\":\"" + std::string(static_cast<std::size_t>(i * 7 % 150), 'a' + static_cast<char>(i % 26)) + "\"}");
        batches.add(sent.back(), "");
      }
      batches.finish();
    }
    CHECK(seen == sent);
  }
  SUBCASE("a batch takes the List kind known when its items were read") {
    std::vector<std::string> kinds;
    ListBatches batches([](ItemBatch&, SimdjsonDom&) {}, [&](ItemBatch& batch) { kinds.push_back(batch.list_kind); },
                        1 << 20, 2);
    batches.add("{}", "");
    batches.add("{}", "\"PodList\"");
    batches.finish();
    CHECK(kinds == std::vector<std::string>{"", "\"PodList\""});
  }
  SUBCASE("a worker's exception is handed back with its batch; the others still come") {
    std::vector<std::string> outcomes;
    ListBatches batches(
        [](ItemBatch& batch, SimdjsonDom&) {
          if (batch.first_index == 2) throw std::runtime_error("bad item");
        },
        [&](ItemBatch& batch) {
          std::string outcome = std::to_string(batch.first_index);
          if (batch.error) {
            try {
              std::rethrow_exception(batch.error);
            } catch (const std::runtime_error& e) {
              outcome += std::string(": ") + e.what();
            }
          }
          outcomes.push_back(outcome);
        },
        1, 2);
    for (int i = 0; i < 3; ++i) batches.add("{}", "");
    batches.finish();
    CHECK(outcomes == std::vector<std::string>{"1", "2: bad item", "3"});
  }
  SUBCASE("dropped unfinished: the destructor stops the workers without handing back") {
    std::atomic<int> decoded{0};
    int handed = 0;
    {
      ListBatches batches([&](ItemBatch&, SimdjsonDom&) { ++decoded; }, [&](ItemBatch&) { ++handed; }, 1 << 20, 2);
      batches.add("{}", "");
    }
    CHECK(handed == 0);
    CHECK(decoded <= 1);
  }
}
