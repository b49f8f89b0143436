// SPDX-License-Identifier: Apache-2.0
// The live collector's reads as tasks on a kube::TaskQueue: each fills its own Snapshot (no two
// threads share one), and a read that needs others' answers is queued by the last of them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <tuple>
#include <vector>

#include <gpuslice/kube/task_queue.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// The parts of a collection in the order of the plan, not of completion: by stage, then in the
// order each stage added them (one thread adds a stage's tasks), so that assemble() keeps the
// same copy of an object read twice however the reads interleave.
class LiveParts {
public:
  // Before add(): the queue the tasks go to (Client::run_queue's).
  void start(kube::TaskQueue& queue) { m_queue = &queue; }

  // How a task is queued: after those queued before it, or ahead of every `in_turn` one not
  // yet started (TaskQueue::submit_ahead).
  enum class Turn { in_turn, ahead };

  // Queues task(part) with a new, empty part of `stage`, and returns that part (complete once
  // the task has returned).
  Snapshot& add(int stage, std::function<void(Snapshot&)> task, Turn turn = Turn::in_turn) {
    Snapshot* part = nullptr;
    {
      const std::lock_guard lock(m_mutex);
      part = &m_slots.emplace_back(Slot{stage, m_slots.size(), {}}).part; // a deque keeps references valid
    }
    auto run = [task = std::move(task), part] { task(*part); };
    if (turn == Turn::ahead)
      m_queue->submit_ahead(std::move(run));
    else
      m_queue->submit(std::move(run));
    return *part;
  }

  // The parts, by stage then by order of addition. Once the queue has drained.
  std::vector<Snapshot> take() {
    std::vector<Slot*> order;
    for (Slot& slot : m_slots) order.push_back(&slot);
    std::sort(order.begin(), order.end(),
              [](const Slot* a, const Slot* b) { return std::tie(a->stage, a->added) < std::tie(b->stage, b->added); });
    std::vector<Snapshot> parts;
    parts.reserve(order.size());
    for (Slot* slot : order) parts.push_back(std::move(slot->part));
    return parts;
  }

private:
  struct Slot {
    int stage;
    std::size_t added;
    Snapshot part;
  };
  kube::TaskQueue* m_queue = nullptr;
  std::mutex m_mutex;
  std::deque<Slot> m_slots;
};

// Calls `then` once, on the thread of the last task to pass, when every task it expects has
// passed: what those tasks wrote before pass() is then safe to read.
class Gate {
public:
  explicit Gate(std::function<void()> then) : m_then(std::move(then)) {}
  // While tasks are added (before any of them can pass).
  void expect() {
    const std::lock_guard lock(m_mutex);
    ++m_waiting;
  }
  void pass() {
    bool last = false;
    {
      const std::lock_guard lock(m_mutex);
      last = --m_waiting == 0;
    }
    if (last) m_then();
  }

private:
  std::function<void()> m_then;
  std::mutex m_mutex;
  int m_waiting = 0;
};

} // namespace gpuslice::collect
