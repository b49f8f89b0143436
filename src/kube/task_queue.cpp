// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/kube/task_queue.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace gpuslice::kube {
namespace {

class Queue final : public TaskQueue {
public:
  explicit Queue(OnFailure on_failure) : m_on_failure(on_failure) {}

  void submit(std::function<void()> task) override { enqueue(m_queued, std::move(task)); }
  void submit_ahead(std::function<void()> task) override { enqueue(m_ahead, std::move(task)); }

  // One worker thread: takes tasks until none may start and none runs (a running task may
  // still submit more, so an empty queue alone is not the end).
  void work() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_changed.wait(lock, [this] { return can_start() || m_running == 0; });
      if (!can_start()) break;
      Tasks& from = m_ahead.empty() ? m_queued : m_ahead;
      auto [index, task] = std::move(from.front());
      from.pop_front();
      ++m_running;
      lock.unlock();
      std::exception_ptr failure;
      try {
        task();
      } catch (...) {
        failure = std::current_exception();
      }
      task = nullptr; // its captures go before the queue may end
      lock.lock();
      --m_running;
      if (failure) m_failures.emplace(index, failure);
      // Wakes workers for the tasks just submitted, or to leave when this was the last one.
      m_changed.notify_all();
    }
  }

  void rethrow_first_failure() const {
    if (!m_failures.empty()) std::rethrow_exception(m_failures.begin()->second);
  }

  std::size_t queued() const { return m_ahead.size() + m_queued.size(); }

private:
  using Tasks = std::deque<std::pair<std::size_t, std::function<void()>>>;

  void enqueue(Tasks& tasks, std::function<void()> task) {
    {
      const std::lock_guard lock(m_mutex);
      tasks.emplace_back(m_submitted++, std::move(task));
    }
    m_changed.notify_one();
  }

  bool can_start() const {
    return queued() > 0 && (m_on_failure == OnFailure::finish_all || m_failures.empty());
  }

  const OnFailure m_on_failure;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  Tasks m_ahead;  // submit_ahead's, taken first
  Tasks m_queued; // submit's
  std::size_t m_submitted = 0;
  std::size_t m_running = 0;
  std::map<std::size_t, std::exception_ptr> m_failures; // by submission index
};

} // namespace

void run_task_queue(int max_parallel, const std::function<void(TaskQueue&)>& seed, OnFailure on_failure) {
  Queue queue(on_failure);
  seed(queue);
  // A thread for each task that may run at once (any task may submit more, so not fewer);
  // none when there is nothing to run.
  const std::size_t threads_wanted = queue.queued() == 0 ? 0 : static_cast<std::size_t>(std::max(1, max_parallel));
  std::vector<std::thread> threads;
  threads.reserve(threads_wanted);
  for (std::size_t i = 0; i < threads_wanted; ++i) threads.emplace_back([&queue] { queue.work(); });
  for (std::thread& thread : threads) thread.join();
  queue.rethrow_first_failure();
}

} // namespace gpuslice::kube
