// SPDX-License-Identifier: Apache-2.0
// A bounded pool of threads fed by a queue its own tasks may add to, so that a read which needs
// another read's answer starts as soon as that answer is in rather than after a whole round.
#pragma once

#include <functional>

namespace gpuslice::kube {

// Where tasks are submitted: by the seed, and by running tasks. Safe from any task's thread.
class TaskQueue {
public:
  virtual void submit(std::function<void()> task) = 0;
  // Starts before every task submit() queued that has not started yet (in the order of their
  // own submission): for a read that others wait on, or that begins a chain of pages, submitted
  // while many short independent reads are queued.
  virtual void submit_ahead(std::function<void()> task) = 0;

protected:
  ~TaskQueue() = default;
};

// What the first failure does to the tasks not yet started.
enum class OnFailure {
  stop,       // they are dropped; the running ones finish
  finish_all, // they still run
};

// Calls seed(queue) on this thread before any task starts, then runs what it submitted, and what
// those tasks submit in turn, at most max_parallel (at least 1) at once, in submission order
// (submit_ahead's before submit's). Returns once no task is queued or running. A failure is
// rethrown after every running task has finished: the first by submission order.
void run_task_queue(int max_parallel, const std::function<void(TaskQueue&)>& seed,
                    OnFailure on_failure = OnFailure::stop);

} // namespace gpuslice::kube
