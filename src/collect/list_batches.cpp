// SPDX-License-Identifier: Apache-2.0
#include "collect/list_batches.hpp"

#include <algorithm>

#include "collect/json_from_simdjson.hpp"

namespace gpuslice::collect {

ListBatches::ListBatches(Decode decode, Ready ready, std::size_t batch_bytes, unsigned workers)
    : m_decode(std::move(decode)), m_ready(std::move(ready)), m_batch_bytes(std::max<std::size_t>(batch_bytes, 1)),
      m_max_out(2 * std::max(workers, 1u) + 1) {
  for (unsigned i = 0; i < std::max(workers, 1u); ++i) m_workers.emplace_back([this] { work(); });
}

ListBatches::~ListBatches() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_work.notify_all();
  for (std::thread& worker : m_workers) worker.join();
}

void ListBatches::add(std::string_view raw, std::string_view list_kind) {
  if (m_filling && m_filling->list_kind != list_kind) submit(); // a batch has one List kind
  if (!m_filling) {
    m_filling = std::make_unique<ItemBatch>();
    m_filling->list_kind = std::string(list_kind);
    m_filling->first_index = m_next_index;
    if (!m_spare_text.empty()) {
      m_filling->text = std::move(m_spare_text.back());
      m_spare_text.pop_back();
    } else {
      m_filling->text.reserve(m_batch_bytes + m_batch_bytes / 4);
    }
  }
  m_filling->items.emplace_back(m_filling->text.size(), raw.size());
  m_filling->text.append(raw);
  ++m_next_index;
  if (m_filling->text.size() >= m_batch_bytes) submit();
}

void ListBatches::finish() {
  if (m_filling) submit();
  hand_back(1);
}

void ListBatches::submit() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_queue.push_back(m_filling.get());
    m_out.push_back(std::move(m_filling));
  }
  m_work.notify_one();
  hand_back(m_max_out); // bounds the text and records held by batches in flight
}

void ListBatches::hand_back(std::size_t limit) {
  for (;;) {
    std::unique_ptr<ItemBatch> oldest;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      auto oldest_done = [&] {
        return !m_out.empty() &&
               std::find(m_finished.begin(), m_finished.end(), m_out.front().get()) != m_finished.end();
      };
      m_done.wait(lock, [&] { return m_out.size() < limit || oldest_done(); });
      if (!oldest_done()) return;
      m_finished.erase(std::find(m_finished.begin(), m_finished.end(), m_out.front().get()));
      oldest = std::move(m_out.front());
      m_out.pop_front();
    }
    m_ready(*oldest);
    // Its text's room serves a later batch: a new one would be fresh pages to fault in, and
    // a batch is filled a few KiB at a time.
    oldest->text.clear();
    m_spare_text.push_back(std::move(oldest->text));
  }
}

void ListBatches::work() {
  SimdjsonDom parser; // one per thread: a parsed document lives in its parser
  for (;;) {
    ItemBatch* batch = nullptr;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_work.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
      if (m_stopping) return;
      batch = m_queue.front();
      m_queue.pop_front();
    }
    try {
      m_decode(*batch, parser);
    } catch (...) {
      batch->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_finished.push_back(batch);
    }
    m_done.notify_all();
  }
}

} // namespace gpuslice::collect
