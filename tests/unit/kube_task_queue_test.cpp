// SPDX-License-Identifier: Apache-2.0
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include <gpuslice/kube/task_queue.hpp>

using gpuslice::kube::OnFailure;
using gpuslice::kube::run_task_queue;
using gpuslice::kube::TaskQueue;

namespace {

// Tasks that must be running at the same time meet here; false if not all came within 10 s.
class Meeting {
public:
  explicit Meeting(int expected) : m_expected(expected) {}
  bool arrive_and_wait() {
    std::unique_lock lock(m_mutex);
    if (++m_arrived == m_expected) m_all_here.notify_all();
    return m_all_here.wait_for(lock, std::chrono::seconds(10), [this] { return m_arrived >= m_expected; });
  }
  bool wait_for_all() {
    std::unique_lock lock(m_mutex);
    return m_all_here.wait_for(lock, std::chrono::seconds(10), [this] { return m_arrived >= m_expected; });
  }
  void arrive() {
    const std::lock_guard lock(m_mutex);
    if (++m_arrived == m_expected) m_all_here.notify_all();
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_all_here;
  int m_expected;
  int m_arrived = 0;
};

// Counts tasks running at once and the most seen.
struct InFlight {
  std::atomic<int> now{0};
  std::atomic<int> most{0};
  void enter() {
    const int n = ++now;
    int seen = most.load();
    while (n > seen && !most.compare_exchange_weak(seen, n)) {
    }
  }
  void leave() { --now; }
};

} // namespace

TEST_CASE("kube::run_task_queue runs the tasks that tasks submit") {
  std::atomic<int> ran{0};
  // A tree: each task below depth 4 submits three more (1 + 3 + 9 + 27 + 81 tasks).
  std::function<void(TaskQueue&, int)> node = [&](TaskQueue& queue, int depth) {
    ++ran;
    if (depth < 4)
      for (int i = 0; i < 3; ++i) queue.submit([&node, &queue, depth] { node(queue, depth + 1); });
  };
  run_task_queue(4, [&](TaskQueue& queue) { queue.submit([&node, &queue] { node(queue, 0); }); });
  CHECK(ran == 121);
}

TEST_CASE("kube::TaskQueue::submit_ahead starts before the tasks submit() queued") {
  std::mutex mutex;
  std::vector<std::string> order;
  auto log = [&](std::string name) {
    const std::lock_guard lock(mutex);
    order.push_back(std::move(name));
  };
  // One thread, so the order tasks start in is the order they run in.
  run_task_queue(1, [&](TaskQueue& queue) {
    queue.submit([&] {
      log("seed");
      queue.submit([&] { log("in turn 1"); });
      queue.submit([&] { log("in turn 2"); });
      queue.submit_ahead([&] {
        log("ahead 1");
        queue.submit_ahead([&] { log("ahead of ahead"); });
      });
      queue.submit_ahead([&] { log("ahead 2"); });
    });
  });
  // Ahead ones keep their own order among themselves, and a later one still passes every
  // in-turn task that has not started.
  CHECK(order == std::vector<std::string>{"seed", "ahead 1", "ahead 2", "ahead of ahead", "in turn 1", "in turn 2"});
}

TEST_CASE("kube::run_task_queue keeps max_parallel tasks in flight and no more") {
  SUBCASE("max_parallel tasks run at once") {
    Meeting meeting(3);
    std::atomic<int> met{0};
    run_task_queue(3, [&](TaskQueue& queue) {
      for (int i = 0; i < 3; ++i)
        queue.submit([&] {
          if (meeting.arrive_and_wait()) ++met;
        });
    });
    CHECK(met == 3);
  }
  SUBCASE("never more, also for tasks submitted by tasks") {
    InFlight in_flight;
    std::function<void(TaskQueue&, int)> task = [&](TaskQueue& queue, int left) {
      in_flight.enter();
      if (left > 0)
        for (int i = 0; i < 2; ++i) queue.submit([&task, &queue, left] { task(queue, left - 1); });
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      in_flight.leave();
    };
    run_task_queue(3, [&](TaskQueue& queue) {
      for (int i = 0; i < 4; ++i) queue.submit([&task, &queue] { task(queue, 3); });
    });
    CHECK(in_flight.most <= 3);
    CHECK(in_flight.now == 0);
  }
}

TEST_CASE("kube::run_task_queue on a failure") {
  SUBCASE("stop: queued tasks are dropped, the failure is rethrown") {
    bool later_ran = false;
    CHECK_THROWS_WITH(run_task_queue(1,
                                     [&](TaskQueue& queue) {
                                       queue.submit([] { throw std::runtime_error("first task failed"); });
                                       queue.submit([&later_ran] { later_ran = true; });
                                     }),
                      "first task failed");
    CHECK_FALSE(later_ran);
  }
  SUBCASE("finish_all: every task still runs") {
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH(run_task_queue(
                          1,
                          [&](TaskQueue& queue) {
                            queue.submit([] { throw std::runtime_error("first task failed"); });
                            queue.submit([&ran] { ++ran; });
                            queue.submit([&ran] { ++ran; });
                          },
                          OnFailure::finish_all),
                      "first task failed");
    CHECK(ran == 2);
  }
  SUBCASE("a running task finishes, and what it submits after the failure never starts") {
    Meeting both_running(2);
    Meeting failed(1);
    std::atomic<bool> finished{false};
    std::atomic<bool> late_ran{false};
    CHECK_THROWS_WITH(run_task_queue(2,
                                     [&](TaskQueue& queue) {
                                       queue.submit([&] {
                                         both_running.arrive_and_wait();
                                         failed.arrive();
                                         throw std::runtime_error("failed");
                                       });
                                       queue.submit([&] {
                                         both_running.arrive_and_wait();
                                         if (!failed.wait_for_all()) throw std::runtime_error("timed out");
                                         // Time for the failing task's worker to record it.
                                         std::this_thread::sleep_for(std::chrono::milliseconds(200));
                                         queue.submit([&late_ran] { late_ran = true; });
                                         finished = true;
                                       });
                                     }),
                      "failed");
    CHECK(finished);
    CHECK_FALSE(late_ran);
  }
  SUBCASE("the first failure by submission order wins, whichever threw first") {
    Meeting second_threw(1);
    CHECK_THROWS_WITH(run_task_queue(2,
                                     [&](TaskQueue& queue) {
                                       queue.submit([&] {
                                         if (!second_threw.wait_for_all()) throw std::runtime_error("timed out");
                                         throw std::runtime_error("task 0");
                                       });
                                       queue.submit([&] {
                                         second_threw.arrive();
                                         throw std::runtime_error("task 1");
                                       });
                                     }),
                      "task 0");
  }
  SUBCASE("a failing seed starts nothing") {
    bool ran = false;
    CHECK_THROWS_WITH(run_task_queue(2,
                                     [&](TaskQueue& queue) {
                                       queue.submit([&ran] { ran = true; });
                                       throw std::runtime_error("seed failed");
                                     }),
                      "seed failed");
    CHECK_FALSE(ran);
  }
}

TEST_CASE("kube::run_task_queue returns once the queue has drained") {
  SUBCASE("nothing submitted") {
    run_task_queue(8, [](TaskQueue&) {});
  }
  SUBCASE("a chain: one task at a time while the other workers wait") {
    std::atomic<int> ran{0};
    std::function<void(TaskQueue&)> link = [&](TaskQueue& queue) {
      if (++ran < 200) queue.submit([&link, &queue] { link(queue); });
    };
    run_task_queue(8, [&](TaskQueue& queue) { queue.submit([&link, &queue] { link(queue); }); });
    CHECK(ran == 200);
  }
  SUBCASE("max_parallel below 1 still runs the tasks, one at a time") {
    InFlight in_flight;
    run_task_queue(0, [&](TaskQueue& queue) {
      for (int i = 0; i < 5; ++i)
        queue.submit([&in_flight] {
          in_flight.enter();
          in_flight.leave();
        });
    });
    CHECK(in_flight.most == 1);
  }
}
