// SPDX-License-Identifier: Apache-2.0
#include "collect/live_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/kube/api_error.hpp>

namespace gpuslice::collect {
namespace {

// "secrets in kube-system", "daemonsets in all namespaces", "nodes".
std::string describe(const kube::ResourceRef& type, const std::string& namespace_name) {
  if (!type.namespaced) return type.resource;
  return fmt::format("{} in {}", type.resource, namespace_name.empty() ? "all namespaces" : namespace_name);
}

} // namespace

LiveReader::LiveReader(kube::Client& client, std::int64_t page_size) : m_client(client), m_page_size(page_size) {}

std::vector<nlohmann::json> LiveReader::list(const kube::ResourceRef& type, kube::ListOptions options,
                                             const KeepItem& keep) {
  options.limit = m_page_size;
  std::vector<nlohmann::json> kept;
  try {
    m_client.list(type, options, [&](const kube::ListPage& page) {
      if (page.restarted) kept.clear();
      nlohmann::json body = nlohmann::json::parse(page.body, nullptr, false);
      if (!body.is_object())
        throw RuntimeError(fmt::format("list {}: a page is not a JSON object", describe(type, options.namespace_name)));
      nlohmann::json::iterator items = body.find("items");
      if (items == body.end() || !items->is_array()) return;
      for (nlohmann::json& item : *items)
        if (keep(item)) kept.push_back(std::move(item));
    });
  } catch (const kube::ApiError& error) {
    absorb(error, "read", describe(type, options.namespace_name));
    return {};
  }
  return kept;
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
