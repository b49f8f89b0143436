// SPDX-License-Identifier: Apache-2.0
// The list of requests fakekube served, shared by the handler threads and the tests.
#pragma once

#include <mutex>
#include <vector>

#include <fakekube/server.hpp>

namespace fakekube {

class RequestLog {
public:
  // Appends one served request. Thread-safe.
  void record(LoggedRequest request);
  // A copy of every request recorded since the last clear, oldest first. Thread-safe.
  std::vector<LoggedRequest> entries() const;
  void clear();

private:
  mutable std::mutex m_mutex;
  std::vector<LoggedRequest> m_entries;
};

} // namespace fakekube
