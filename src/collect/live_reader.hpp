// SPDX-License-Identifier: Apache-2.0
// The live collector's reads with its error policy in one place: a forbidden read (403)
// becomes a note, a missing optional source (404) is nothing, anything else propagates.
// Safe to use from parallel tasks.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <gpuslice/collect.hpp>
#include <gpuslice/kube/api_error.hpp>
#include <gpuslice/kube/client.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Decides per item, while a small list streams, whether to keep its JSON value.
using KeepItem = std::function<bool(const nlohmann::json& item)>;
// Decides from an item's raw JSON whether it is worth parsing at all.
using RawPrefilter = std::function<bool(std::string_view raw_item)>;
// Receives one parsed item, valid during the call only: the caller decodes what it keeps.
using OnItem = std::function<void(simdjson::dom::element item)>;
// Called when a list begins again after 410 Expired: drop what its earlier pages gave.
using OnRestart = std::function<void()>;
// Called after each page's items, with whether it was the list's last page.
using OnPageEnd = std::function<void(bool last)>;

class LiveReader {
public:
  LiveReader(kube::Client& client, std::int64_t page_size, PageObserver on_page = {});

  // Lists `type` page by page and returns the items `keep` accepts as JSON values (only those
  // stay in memory; a list restarted after 410 Expired drops what earlier pages gave). For
  // lists of few kept objects (DaemonSets, Helm Secrets). Forbidden or not found: a note
  // (403) or nothing (404), and an empty result.
  std::vector<nlohmann::json> list(const kube::ResourceRef& type, kube::ListOptions options, const KeepItem& keep);
  // The same, item by item: each item that passes `prefilter` (none: all) is parsed into
  // simdjson's DOM and handed to on_item while its page is read, so no JSON value outlives
  // the call (the caller decodes what it keeps into typed records), then on_page_end (if
  // any). Errors as list(): a 403 is a note, a 404 nothing; both return false.
  bool list_each_item(const kube::ResourceRef& type, kube::ListOptions options, const RawPrefilter& prefilter,
                      const OnItem& on_item, const OnRestart& on_restart, const OnPageEnd& on_page_end = {});
  // GET one object; nullopt when forbidden (noted) or absent.
  std::optional<nlohmann::json> get(const kube::ObjectRef& ref);
  // Whether a discovery path (e.g. /apis/nvidia.com/v1) is served; 404 = no.
  bool served(const std::string& path);
  // A discovery document (e.g. the APIGroup at /apis/resource.k8s.io); nullopt on 404, or on
  // 403 (noted).
  std::optional<nlohmann::json> discovery(const std::string& path);

  // Adds a note of its own (e.g. a Helm release that would not decode).
  void note(std::string text);
  // Notes so far, sorted so that parallel reads give the same text every run.
  std::vector<std::string> notes() const;

private:
  // Records a 403 as "could not <verb> <what>: <server message>", ignores a 404, and rethrows
  // anything else. Call only from inside a catch block.
  void absorb(const kube::ApiError& error, std::string_view verb, const std::string& what);

  kube::Client& m_client;
  std::int64_t m_page_size;
  PageObserver m_on_page;
  mutable std::mutex m_mutex;
  std::vector<std::string> m_notes;
};

// Puts API items of one kind into `snapshot` through merge_object (the file source's path),
// so live and file snapshots are filled by the same code.
void merge_items(Snapshot& snapshot, std::string_view kind, std::vector<nlohmann::json> items);

} // namespace gpuslice::collect
