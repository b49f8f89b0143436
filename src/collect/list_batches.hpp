// SPDX-License-Identifier: Apache-2.0
// The items of a List, copied in batches as they are read and decoded on worker threads;
// each batch is handed back on the reading thread in the order it was read, so whoever merges
// the batches gets the records exactly as one thread would have decoded them.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gpuslice/snapshot.hpp>

#include "collect/record_gather.hpp"

namespace gpuslice::collect {

class SimdjsonDom;

struct ItemBatch {
  std::string text;                                      // the items' JSON, back to back
  std::vector<std::pair<std::size_t, std::size_t>> items; // offset and length in text
  std::string list_kind;                                 // the List's raw "kind" when read before these
  std::size_t first_index = 1;                           // the List position of the first item

  // Filled by the worker that decodes the batch.
  RecordBlocks blocks;                                   // the records
  Snapshot part;                                         // notes and the autoscaler status
  std::size_t kept = 0;
  std::vector<std::string> skipped;                      // kinds of items diagnose does not read
  std::size_t waits_from = static_cast<std::size_t>(-1); // first item that waits for the List's kind
  std::exception_ptr error;

  std::string_view item(std::size_t i) const { return std::string_view(text).substr(items[i].first, items[i].second); }
};

class ListBatches {
public:
  using Decode = std::function<void(ItemBatch&, SimdjsonDom&)>; // on a worker; may throw
  using Ready = std::function<void(ItemBatch&)>;                // on the reading thread, in order; sees `error`

  // Batches of about `batch_bytes`; `workers` threads (at least one).
  ListBatches(Decode decode, Ready ready, std::size_t batch_bytes, unsigned workers);
  ~ListBatches(); // stops the workers; batches not handed back are dropped
  ListBatches(const ListBatches&) = delete;
  ListBatches& operator=(const ListBatches&) = delete;

  // The next item of the List (copied); `list_kind` as known when it was read.
  void add(std::string_view raw, std::string_view list_kind);
  // Waits for every batch and hands back those not yet handed back.
  void finish();

private:
  void submit();
  void hand_back(std::size_t limit); // while `limit` or more are out, or the oldest is done
  void work();

  Decode m_decode;
  Ready m_ready;
  std::size_t m_batch_bytes;
  std::size_t m_max_out;
  std::size_t m_next_index = 1;
  std::unique_ptr<ItemBatch> m_filling;
  std::vector<std::string> m_spare_text; // the texts of batches handed back, cleared

  std::mutex m_mutex;
  std::condition_variable m_work;
  std::condition_variable m_done;
  std::deque<std::unique_ptr<ItemBatch>> m_out;   // submitted, in order, until handed back
  std::deque<ItemBatch*> m_queue;                  // submitted, not yet taken by a worker
  std::vector<const ItemBatch*> m_finished;        // decoded, not yet handed back
  bool m_stopping = false;
  std::vector<std::thread> m_workers;
};

} // namespace gpuslice::collect
