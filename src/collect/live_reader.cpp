// SPDX-License-Identifier: Apache-2.0
#include "collect/live_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/kube/api_error.hpp>

#include "collect/json_from_simdjson.hpp"
#include "collect/page_items.hpp"

namespace gpuslice::collect {
namespace {

// "secrets in kube-system", "daemonsets in all namespaces", "nodes".
std::string describe(const kube::ResourceRef& type, const std::string& namespace_name) {
  if (!type.namespaced) return type.resource;
  return fmt::format("{} in {}", type.resource, namespace_name.empty() ? "all namespaces" : namespace_name);
}

} // namespace

LiveReader::LiveReader(kube::Client& client, std::int64_t page_size, PageObserver on_page)
    : m_client(client), m_page_size(page_size), m_on_page(std::move(on_page)) {}

std::vector<nlohmann::json> LiveReader::list(const kube::ResourceRef& type, kube::ListOptions options,
                                             const KeepItem& keep) {
  std::vector<nlohmann::json> kept;
  const bool read = list_each_item(
      type, std::move(options), {},
      [&](simdjson::dom::element item) {
        nlohmann::json value = json_of_simdjson(item);
        if (keep(value)) kept.push_back(std::move(value));
      },
      [&] { kept.clear(); });
  if (!read) kept.clear();
  return kept;
}

bool LiveReader::list_each_item(const kube::ResourceRef& type, kube::ListOptions options, const RawPrefilter& prefilter,
                                const OnItem& on_item, const OnRestart& on_restart, const OnPageEnd& on_page_end) {
  options.limit = m_page_size;
  const std::string what = describe(type, options.namespace_name);
  try {
    SimdjsonDom parser;
    // Progress names the selectors too: several lists of one resource may run at once.
    std::string selectors = options.field_selector;
    if (!options.label_selector.empty()) selectors += (selectors.empty() ? "" : ",") + options.label_selector;
    const std::string listed = selectors.empty() ? what : fmt::format("{} ({})", what, selectors);
    PageRead progress{listed, 0, 0};
    m_client.list(type, options, [&](const kube::ListPage& page) {
      if (page.restarted) {
        progress = PageRead{listed, 0, 0};
        on_restart();
      }
      // Items are parsed one at a time, and only those the prefilter lets through.
      for_each_page_item(page.body, what, [&](std::string_view raw) {
        ++progress.items;
        if (prefilter && !prefilter(raw)) return;
        std::optional<simdjson::dom::element> item = parser.parse(raw);
        if (!item) throw RuntimeError(fmt::format("list {}: an item is not valid JSON", what));
        on_item(*item);
      });
      ++progress.page;
      if (m_on_page) m_on_page(progress);
      if (on_page_end) on_page_end(page.last);
    });
  } catch (const kube::ApiError& error) {
    absorb(error, "read", what);
    return false;
  }
  return true;
}

std::optional<nlohmann::json> LiveReader::get(const kube::ObjectRef& ref) {
  try {
    return m_client.get(ref);
  } catch (const kube::ApiError& error) {
    std::string what = ref.namespace_name.empty() ? fmt::format("{} {}", ref.type.resource, ref.name)
                                                   : fmt::format("{} {}/{}", ref.type.resource, ref.namespace_name, ref.name);
    absorb(error, "read", what);
    return std::nullopt;
  }
}

bool LiveReader::served(const std::string& path) {
  try {
    m_client.get_raw(path);
    return true;
  } catch (const kube::ApiError& error) {
    absorb(error, "read", path);
    return false;
  }
}

std::optional<nlohmann::json> LiveReader::discovery(const std::string& path) {
  std::string body;
  try {
    body = m_client.get_raw(path);
  } catch (const kube::ApiError& error) {
    absorb(error, "read", path);
    return std::nullopt;
  }
  nlohmann::json document = nlohmann::json::parse(body, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    note(fmt::format("{}: the discovery document is not a JSON object; read as not served", path));
    return std::nullopt;
  }
  return document;
}

std::vector<std::string> LiveReader::notes() const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> sorted = m_notes;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

void LiveReader::note(std::string text) {
  std::lock_guard lock(m_mutex);
  m_notes.push_back(std::move(text));
}

void LiveReader::absorb(const kube::ApiError& error, std::string_view verb, const std::string& what) {
  if (error.is_not_found()) return;
  if (!error.is_forbidden()) throw; // called from the catch block: rethrows the original
  // The server's message names the user and the verb it lacks; it never carries secret data.
  std::lock_guard lock(m_mutex);
  m_notes.push_back(fmt::format("could not {} {}: {}", verb, what, error.message));
}

void merge_items(Snapshot& snapshot, std::string_view kind, std::vector<nlohmann::json> items) {
  if (items.empty()) return;
  nlohmann::json list = {{"apiVersion", "v1"}, {"kind", fmt::format("{}List", kind)}, {"items", std::move(items)}};
  merge_object(snapshot, list, "the API server");
}

} // namespace gpuslice::collect
