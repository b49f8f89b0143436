// SPDX-License-Identifier: Apache-2.0
// Paged list streamed to a callback (client-go tools/pager), and watch streams.
#include <fmt/format.h>
#include <simdjson.h>

#include <gpuslice/kube/api_error.hpp>

#include "kube/client_impl.hpp"
#include "kube/json_member.hpp"

namespace gpuslice::kube {

namespace {

// metadata.continue of a list page, found by parsing the whole page: the slow path, kept for
// the pages the member scan cannot read, so their error is simdjson's.
std::string continue_token_by_parse(std::string_view body, const std::string& path) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(body);
  simdjson::ondemand::document doc;
  std::string_view token;
  simdjson::error_code error = parser.iterate(padded).get(doc);
  if (!error) {
    error = doc.find_field_unordered("metadata").find_field_unordered("continue").get_string().get(token);
  }
  if (error == simdjson::NO_SUCH_FIELD) {
    return {};
  }
  if (error) {
    throw ApiError(fmt::format("list {}: the server's answer is not a JSON list ({})", path,
                               simdjson::error_message(error)),
                   200, "InvalidResponse", "not a JSON list", "list", path);
  }
  return std::string(token);
}

// metadata.continue of a list page. The API server writes the List's metadata before its items,
// so the member scan reads a few hundred bytes and only the metadata object is parsed; at
// scenario L the whole-page parse this replaces was ~5 % of live diagnose's CPU (perf), on top
// of a copy of each page. The rest of the page is the caller's to validate as it reads the items.
std::string continue_token_of(std::string_view body, const std::string& path) {
  const MemberScan metadata = find_top_level_member(body, "metadata");
  if (metadata.outcome == MemberScan::Outcome::found) {
    simdjson::ondemand::parser parser;
    const simdjson::padded_string padded(metadata.value);
    simdjson::ondemand::document doc;
    std::string_view token;
    simdjson::error_code error = parser.iterate(padded).get(doc);
    if (!error) error = doc.find_field_unordered("continue").get_string().get(token);
    if (error == simdjson::NO_SUCH_FIELD) return {};
    if (!error) return std::string(token);
  }
  return continue_token_by_parse(body, path);
}

Query list_query(const ListOptions& options, std::int64_t limit, const std::string& continue_token) {
  Query query;
  if (!options.label_selector.empty()) {
    query.emplace_back("labelSelector", options.label_selector);
  }
  if (!options.field_selector.empty()) {
    query.emplace_back("fieldSelector", options.field_selector);
  }
  if (limit > 0) {
    query.emplace_back("limit", std::to_string(limit));
  }
  if (!continue_token.empty()) {
    query.emplace_back("continue", continue_token);
  } else if (!options.resource_version.empty()) {
    query.emplace_back("resourceVersion", options.resource_version);
  }
  return query;
}

} // namespace

void Client::list(const ResourceRef& type, const ListOptions& options, const PageCallback& on_page) {
  const std::string path = collection_path(type, options.namespace_name);
  std::int64_t limit = options.limit;
  std::string continue_token;
  int index = 0;
  int expirations = 0;
  bool restarted = false;
  for (;;) {
    RestRequest request{"list", "GET", path, list_query(options, limit, continue_token), {}, {}, {}, false};
    HttpResponse response;
    try {
      response = m_impl->execute(request);
    } catch (const ApiError& error) {
      if (!error.is_expired() || continue_token.empty()) {
        throw;
      }
      // The snapshot the continue token pointed into is gone. Start over (the caller drops
      // what it had); if even a fresh paged list expires, fall back to one unpaged list, as
      // client-go's pager does.
      ++expirations;
      if (expirations >= 2) {
        limit = 0;
      }
      continue_token.clear();
      index = 0;
      restarted = true;
      if (m_impl->log.enabled(6)) {
        m_impl->log.write(fmt::format("list {}: continue token expired; restarting the list{}", path,
                                      limit == 0 ? " without paging" : ""));
      }
      continue;
    }
    const std::string next = limit > 0 ? continue_token_of(response.body, path) : std::string{};
    on_page(ListPage{response.body, index, restarted, next.empty()});
    recycle_body(std::move(response.body)); // the next page's, on this thread or the next list's
    restarted = false;
    ++index;
    if (next.empty()) {
      return;
    }
    continue_token = next;
  }
}

nlohmann::json Client::list_items(const ResourceRef& type, const ListOptions& options) {
  nlohmann::json items = nlohmann::json::array();
  list(type, options, [&items](const ListPage& page) {
    if (page.restarted) {
      items = nlohmann::json::array();
    }
    const nlohmann::json parsed = nlohmann::json::parse(page.body, nullptr, false);
    if (!parsed.is_object()) {
      throw RuntimeError("list: a page is not a JSON object");
    }
    if (const auto found = parsed.find("items"); found != parsed.end() && found->is_array()) {
      for (const nlohmann::json& item : *found) {
        items.push_back(item);
      }
    }
  });
  return items;
}

void Client::watch(const ResourceRef& type, const WatchOptions& options, const WatchCallback& on_event) {
  Query query{{"watch", "true"}};
  if (!options.label_selector.empty()) {
    query.emplace_back("labelSelector", options.label_selector);
  }
  if (!options.field_selector.empty()) {
    query.emplace_back("fieldSelector", options.field_selector);
  }
  if (!options.resource_version.empty()) {
    query.emplace_back("resourceVersion", options.resource_version);
  }
  if (options.timeout_seconds > 0) {
    query.emplace_back("timeoutSeconds", std::to_string(options.timeout_seconds));
  }
  if (options.allow_bookmarks) {
    query.emplace_back("allowWatchBookmarks", "true");
  }
  const std::string path = collection_path(type, options.namespace_name);
  std::string pending;
  // Events are newline-terminated JSON objects; a chunk may hold several or part of one.
  auto on_data = [&](std::string_view chunk) {
    pending.append(chunk);
    std::size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) {
        continue;
      }
      nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
      if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) {
        throw ApiError(fmt::format("watch {}: the server sent an event that is not JSON", path), 200,
                       "InvalidResponse", "bad watch event", "watch", path);
      }
      WatchEvent parsed{event["type"].get<std::string>(), std::move(event["object"])};
      const bool is_error = parsed.type == "ERROR";
      if (!on_event(parsed) || is_error) {
        return false;
      }
    }
    return true;
  };
  m_impl->execute(RestRequest{"watch", "GET", path, query, {}, {}, on_data, true});
}

} // namespace gpuslice::kube
