// SPDX-License-Identifier: Apache-2.0
// Watches: the initial ADDED events or the history after a resourceVersion, then live
// changes filtered by namespace and selectors, bookmarks, timeoutSeconds, and the 410 ERROR
// event for a resourceVersion older than the history.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include <fakekube/api.hpp>

#include "api_state.hpp"

namespace fakekube {

struct WatchState;

// Fans store changes out to open watches. Shared with the streams so that a stream may
// outlive the Api (it then reports finished()).
class WatchHub {
public:
  void publish(const ChangeEvent& event);
  void add(const std::shared_ptr<WatchState>& watch);
  // Ends every open watch (the Api is going away).
  void close();
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};

private:
  std::mutex m_mutex;
  std::vector<std::weak_ptr<WatchState>> m_watches;
};

// Opens a watch for a ?watch=1 request; throws StatusError for bad options (the 410 for a
// too-old resourceVersion arrives inside the stream, as real servers send it).
ApiResult open_watch(ApiState& state, const ApiRequest& request, const Target& target);

} // namespace fakekube
