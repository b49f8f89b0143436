// SPDX-License-Identifier: Apache-2.0
#include "watch.hpp"

#include <condition_variable>
#include <deque>
#include <functional>

#include "list_query.hpp"
#include "status_errors.hpp"
#include "table.hpp"

namespace fakekube {

using Clock = std::chrono::steady_clock;

// One open watch: its filter and the lines waiting to be read.
struct WatchState {
  std::string resource_key;
  std::string ns;
  Selector labels;
  Selector fields;
  std::string api_version;
  std::string kind;
  bool bookmarks = false;
  std::chrono::milliseconds bookmark_interval{0};
  Clock::time_point deadline = Clock::time_point::max();
  // Rewrites an event line on its way out (Table watches); empty = as stored.
  std::function<std::string(const std::string&)> transform;

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::string> lines;
  std::uint64_t last_rv = 0;
  Clock::time_point last_bookmark = Clock::now();
  bool closed = false;

  bool matches(const StoredObject& object) const {
    return (ns.empty() || object.ns == ns) && selected(object, labels, fields);
  }
  void push(std::string line, std::uint64_t rv) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(std::move(line));
    last_rv = std::max(last_rv, rv);
    ready.notify_all();
  }
};

namespace {

std::string event_line(const std::string& type, const std::string& object) {
  return "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
}

std::string bookmark_line(const WatchState& watch, bool initial_end) {
  nlohmann::json metadata = {{"resourceVersion", std::to_string(watch.last_rv)}};
  if (initial_end) {
    metadata["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  }
  const nlohmann::json object = {
      {"kind", watch.kind}, {"apiVersion", watch.api_version}, {"metadata", metadata}};
  return event_line("BOOKMARK", object.dump());
}

// Delivers a change to a watch as the real cacher does: an object leaving the selector is
// DELETED for that watcher, one entering it is ADDED.
void deliver(WatchState& watch, const ChangeEvent& event) {
  if (event.resource_key != watch.resource_key) {
    return;
  }
  const bool now = watch.matches(event.object);
  const bool before = event.previous != nullptr && watch.matches(*event.previous);
  std::string type = event.type;
  if (event.type == "MODIFIED") {
    if (!now && !before) {
      return;
    }
    type = now && before ? "MODIFIED" : (now ? "ADDED" : "DELETED");
  } else if (!now) {
    return;
  }
  watch.push(event_line(type, *event.object.bytes), event.object.resource_version);
}

class Stream : public WatchStream {
public:
  explicit Stream(std::shared_ptr<WatchState> state) : m_state(std::move(state)) {}

  std::optional<std::string> next(std::chrono::milliseconds wait) override {
    std::unique_lock<std::mutex> lock(m_state->mutex);
    const Clock::time_point until = std::min(Clock::now() + wait, m_state->deadline);
    for (;;) {
      if (!m_state->lines.empty()) {
        std::string line = std::move(m_state->lines.front());
        m_state->lines.pop_front();
        m_state->last_bookmark = Clock::now();
        return m_state->transform ? m_state->transform(line) : line;
      }
      if (m_state->closed || Clock::now() >= m_state->deadline) {
        return std::nullopt;
      }
      if (m_state->bookmarks &&
          Clock::now() - m_state->last_bookmark >= m_state->bookmark_interval) {
        m_state->last_bookmark = Clock::now();
        return bookmark_line(*m_state, false);
      }
      Clock::time_point wake = until;
      if (m_state->bookmarks) {
        wake = std::min(wake, m_state->last_bookmark + m_state->bookmark_interval);
      }
      if (m_state->ready.wait_until(lock, wake) == std::cv_status::timeout &&
          Clock::now() >= until) {
        if (!m_state->lines.empty()) {
          continue;
        }
        return std::nullopt;
      }
    }
  }

  bool finished() const override {
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->lines.empty() && (m_state->closed || Clock::now() >= m_state->deadline);
  }

private:
  std::shared_ptr<WatchState> m_state;
};

std::int64_t parse_timeout(const ApiRequest& request) {
  const std::string text = query_value(request, "timeoutSeconds").value_or("");
  if (text.empty()) {
    return 0;
  }
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) {
      return value;
    }
  } catch (const std::exception&) {
  }
  throw bad_request("strconv.ParseInt: parsing \"" + text + "\": invalid syntax");
}

// kubectl get --watch asks for Tables: each event's object becomes a one-row Table, with the
// column definitions only in the first, as the real server sends them.
std::function<std::string(const std::string&)> table_transform(const ResourceInfo& info,
                                                               const ApiRequest& request) {
  render_table(info, {}, nlohmann::json::object(), request); // rejects a bad includeObject now
  auto first = std::make_shared<bool>(true);
  return [info, request, first](const std::string& line) {
    nlohmann::json event = nlohmann::json::parse(line);
    const std::string type = event.value("type", std::string());
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") {
      return line;
    }
    const std::string rv = event["object"]["metadata"].value("resourceVersion", std::string());
    nlohmann::json table =
        render_table(info, {event["object"]}, {{"resourceVersion", rv}}, request);
    if (!*first) {
      table["columnDefinitions"] = nlohmann::json::array();
    }
    *first = false;
    event["object"] = std::move(table);
    return event.dump() + "\n";
  };
}

} // namespace

void WatchHub::publish(const ChangeEvent& event) {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::erase_if(m_watches, [](const std::weak_ptr<WatchState>& weak) { return weak.expired(); });
  for (const std::weak_ptr<WatchState>& weak : m_watches) {
    if (std::shared_ptr<WatchState> watch = weak.lock()) {
      deliver(*watch, event);
    }
  }
}

void WatchHub::add(const std::shared_ptr<WatchState>& watch) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_watches.push_back(watch);
}

void WatchHub::close() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const std::weak_ptr<WatchState>& weak : m_watches) {
    if (std::shared_ptr<WatchState> watch = weak.lock()) {
      std::lock_guard<std::mutex> watch_lock(watch->mutex);
      watch->closed = true;
      watch->ready.notify_all();
    }
  }
  m_watches.clear();
}

ApiResult open_watch(ApiState& state, const ApiRequest& request, const Target& target) {
  auto watch = std::make_shared<WatchState>();
  watch->resource_key = resource_key(target.info->group, target.info->plural);
  watch->ns = target.ns;
  watch->labels = parse_label_selector(query_value(request, "labelSelector").value_or(""));
  watch->fields = parse_field_selector(query_value(request, "fieldSelector").value_or(""));
  check_field_selector(watch->resource_key, watch->fields);
  if (!target.name.empty()) {
    watch->fields.requirements.push_back(
        {"metadata.name", Requirement::Op::equals, {target.name}});
  }
  if (wants_table(request.accept)) {
    ApiRequest copy = request;
    copy.body.clear();
    watch->transform = table_transform(*target.info, copy);
  }
  watch->api_version = target.info->api_version();
  watch->kind = target.info->kind;
  const std::string allow = query_value(request, "allowWatchBookmarks").value_or("");
  watch->bookmarks = allow == "true" || allow == "1";
  watch->bookmark_interval = state.hub->bookmark_interval;
  if (const std::int64_t timeout = parse_timeout(request); timeout > 0) {
    watch->deadline = Clock::now() + std::chrono::seconds(timeout);
  }
  const std::string send_initial = query_value(request, "sendInitialEvents").value_or("");
  const std::string rv_text = query_value(request, "resourceVersion").value_or("");
  const std::uint64_t current = state.store.current_resource_version();
  watch->last_rv = current;
  ApiResult result;
  result.response.status = 200;
  if (rv_text.empty() || rv_text == "0" || send_initial == "true") {
    // "Start at most recent" and "any": the current state as ADDED events, then changes.
    for (const auto& [key, object] : state.store.objects(watch->resource_key)) {
      if (watch->matches(object)) {
        watch->lines.push_back(event_line("ADDED", *object.bytes));
      }
    }
    if (send_initial == "true" && watch->bookmarks) {
      watch->lines.push_back(bookmark_line(*watch, true));
    }
  } else {
    std::uint64_t from = 0;
    try {
      std::size_t used = 0;
      from = std::stoull(rv_text, &used);
      if (used != rv_text.size()) {
        throw std::invalid_argument(rv_text);
      }
    } catch (const std::exception&) {
      throw bad_request("resourceVersion: Invalid value: \"" + rv_text +
                        "\": invalid resource version");
    }
    if (from < state.store.oldest_watchable()) {
      StatusError expired(410, "Expired",
                          "too old resource version: " + rv_text + " (" +
                              std::to_string(state.store.oldest_watchable()) + ")");
      watch->lines.push_back(event_line("ERROR", expired.status().dump()));
      watch->closed = true;
      result.watch = std::make_unique<Stream>(watch);
      return result;
    }
    for (const ChangeEvent& event : state.store.events_after(from)) {
      deliver(*watch, event);
    }
    watch->last_rv = current;
  }
  state.hub->add(watch);
  result.watch = std::make_unique<Stream>(watch);
  return result;
}

} // namespace fakekube
