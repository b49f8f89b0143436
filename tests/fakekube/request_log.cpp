// SPDX-License-Identifier: Apache-2.0
#include "request_log.hpp"

#include <utility>

namespace fakekube {

void RequestLog::record(LoggedRequest request) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_entries.push_back(std::move(request));
}

std::vector<LoggedRequest> RequestLog::entries() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_entries;
}

void RequestLog::clear() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_entries.clear();
}

} // namespace fakekube
