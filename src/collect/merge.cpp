// SPDX-License-Identifier: Apache-2.0
// Merging API objects (single, List, <Kind>List, our snapshot) into a Snapshot. The same
// object read twice (two overlapping files) replaces the earlier copy instead of doubling.
#include <algorithm>
#include <future>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/error.hpp>
#include <gpuslice/model/json_fields.hpp>

#include "collect/json_from_simdjson.hpp"
#include "collect/list_batches.hpp"
#include "collect/list_window.hpp"
#include "collect/record_gather.hpp"
#include "collect/record_lists.hpp"
#include "collect/simdjson_access.hpp"
#include "model/decode.hpp"
#include "model/decode_dra.hpp"
#include "merge.hpp"

namespace gpuslice::collect {
namespace {

using namespace model::json_fields;
using model::json_read::is_object;

// The nlohmann value the Helm release decoder reads (Secrets are few: they keep that path).
const nlohmann::json& as_nlohmann(const nlohmann::json& object) { return object; }
nlohmann::json as_nlohmann(simdjson::dom::element object) { return json_of_simdjson(object); }

// A gather for each record list of a Snapshot, named as its lists (see record_lists.hpp).
struct SnapshotGathers {
  explicit SnapshotGathers(Snapshot& s)
      : nodes(s.nodes), pods(s.pods), events(s.events), daemonsets(s.daemonsets), deployments(s.deployments),
        statefulsets(s.statefulsets), configmaps(s.configmaps), helm_releases(s.helm_releases),
        cluster_policies(s.cluster_policies), device_classes(s.device_classes), resource_slices(s.resource_slices),
        resource_claims(s.resource_claims), resource_claim_templates(s.resource_claim_templates) {}
  RecordGather<model::Node> nodes;
  RecordGather<model::Pod> pods;
  RecordGather<model::Event> events;
  RecordGather<model::DaemonSet> daemonsets;
  RecordGather<model::Workload> deployments;
  RecordGather<model::Workload> statefulsets;
  RecordGather<model::ConfigMap> configmaps;
  RecordGather<model::HelmRelease> helm_releases;
  RecordGather<model::ClusterPolicy> cluster_policies;
  RecordGather<model::DeviceClass> device_classes;
  RecordGather<model::ResourceSlice> resource_slices;
  RecordGather<model::ResourceClaim> resource_claims;
  RecordGather<model::ResourceClaimTemplate> resource_claim_templates;
};

class Merger {
public:
  Merger(Snapshot& snapshot, const std::string& origin) : m_snapshot(snapshot), m_origin(origin), m_lists(snapshot) {}

  // Merges a document; `position` says where it sits for error messages.
  void document(const nlohmann::json& object, const std::string& position) {
    if (!object.is_object())
      throw UsageError(fmt::format("{}: {} is not a Kubernetes object (expected a mapping with apiVersion and kind)",
                                   m_origin, position));
    std::string kind = string_at(object, "kind");
    if (kind.empty())
      throw UsageError(fmt::format("{}: {} has no \"kind\"; expected a Kubernetes object or List", m_origin, position));
    if (kind.size() > 4 && kind.ends_with("List") && field(object, "items")) {
      list(object, kind == "List" ? std::string{} : kind.substr(0, kind.size() - 4), position);
      return;
    }
    if (kind == "List") {
      list(object, {}, position);
      return;
    }
    item(object, kind);
  }

  std::size_t kept() const { return m_kept; }
  const std::set<std::string>& skipped() const { return m_skipped; }

  // What a batch of items decoded by another Merger (its records handed over): its records
  // after those taken so far, in its order; its notes; its counts.
  void take(ItemBatch& batch) {
    for_each_record_list([](auto& gather, auto& blocks) { gather.take(blocks); }, m_lists, batch.blocks);
    Snapshot& part = batch.part;
    for (std::string& note : part.meta.notes) m_snapshot.meta.notes.push_back(std::move(note));
    if (part.autoscaler_status) m_snapshot.autoscaler_status = std::move(part.autoscaler_status);
    m_kept += batch.kept;
    m_skipped.insert(batch.skipped.begin(), batch.skipped.end());
  }

  // Puts the records read into the snapshot; without it they are dropped (as on an error).
  void finish() {
    if (m_lists.pods.size() < k_pods_aside) return for_each_record_list([](auto& gather) { gather.finish(); }, m_lists);
    // Many pods (most of the records of a large List): their move into the list, and the
    // search for their copies, run on a thread of their own beside the other lists'.
    std::future<void> pods;
    try {
      pods = std::async(std::launch::async, [this] { m_lists.pods.finish(); });
    } catch (const std::system_error&) {
      m_lists.pods.finish(); // no thread to be had: in turn
    }
    for_each_record_list([](auto& gather) {
      if constexpr (!std::is_same_v<std::decay_t<decltype(gather)>, RecordGather<model::Pod>>) gather.finish();
    }, m_lists);
    if (pods.valid()) pods.get();
  }

  // Instead of finish(): the records read, in blocks, for another Merger to take().
  void hand_over(RecordBlocks& to) {
    for_each_record_list([](auto& gather, auto& blocks) { gather.hand_over(blocks); }, m_lists, to);
  }

  // At most `count` more items will be read: a new block of records need hold no more.
  void expect_at_most(std::size_t count) { m_at_most = count; }

private:
  void list(const nlohmann::json& object, const std::string& item_kind, const std::string& position) {
    const nlohmann::json* items = field(object, "items");
    if (items && !items->is_array())
      throw UsageError(fmt::format("{}: {}: \"items\" is not a list", m_origin, position));
    read_snapshot_meta(object_at(object_at(object, "metadata"), "annotations"));
    std::size_t index = 0;
    for (const nlohmann::json& entry : array_at(object, "items"))
      list_item(entry, item_kind, fmt::format("{} item {}", position, ++index));
  }

public:
  // The List's metadata (raw JSON), read after its items: its notes go before theirs, as
  // when the metadata is read first.
  void list_metadata_after_items(std::string_view metadata) {
    std::vector<std::string> item_notes = std::move(m_snapshot.meta.notes);
    m_snapshot.meta.notes.clear();
    nlohmann::json meta = nlohmann::json::parse(metadata, nullptr, false);
    if (!meta.is_discarded()) read_snapshot_meta(object_at(meta, "annotations"));
    for (std::string& note : item_notes) m_snapshot.meta.notes.push_back(std::move(note));
  }

  // Throws when the input held objects but none of a kind diagnose reads.
  void check_usable() const {
    if (m_kept > 0 || m_skipped.empty()) return;
    std::string kinds;
    for (const std::string& kind : m_skipped) kinds += (kinds.empty() ? "" : ", ") + kind;
    throw UsageError(fmt::format("{}: no object diagnose reads (found {}); expected Nodes, Pods, Events, DaemonSets, "
                                 "Deployments, StatefulSets, ConfigMaps, Helm release Secrets, ClusterPolicies or DRA objects",
                                 m_origin, kinds));
  }

  // `where` names the item in errors: a text, or the index of an item of document 1.
  template <class J, class Where> void list_item(const J& entry, const std::string& item_kind, const Where& where) {
    auto position = [&] {
      if constexpr (std::is_same_v<Where, std::string>)
        return where;
      else
        return fmt::format("document 1 item {}", where);
    };
    if (!is_object(entry)) throw UsageError(fmt::format("{}: {} is not an object", m_origin, position()));
    // API list responses (PodList, …) leave kind off their items.
    std::string kind = model::json_read::string_at(entry, "kind");
    if (kind.empty()) kind = item_kind;
    if (kind.empty()) throw UsageError(fmt::format("{}: {} has no \"kind\"", m_origin, position()));
    if (kind == "List" || kind.ends_with("List"))
      throw UsageError(fmt::format("{}: {} is a nested {}", m_origin, position(), kind));
    item(entry, kind);
  }

private:
  void read_snapshot_meta(const nlohmann::json& annotations) {
    if (!field(annotations, "gpuslice.dev/snapshot")) return;
    SnapshotMeta& meta = m_snapshot.meta;
    // The first snapshot read names the cluster; later files only add notes.
    if (meta.context.empty()) meta.context = string_at(annotations, "gpuslice.dev/context");
    if (meta.server.empty()) meta.server = string_at(annotations, "gpuslice.dev/server");
    if (meta.collected_at.empty()) meta.collected_at = string_at(annotations, "gpuslice.dev/collected-at");
    if (meta.namespace_scope.empty()) meta.namespace_scope = string_at(annotations, "gpuslice.dev/namespace");
    nlohmann::json notes = nlohmann::json::parse(string_at(annotations, "gpuslice.dev/notes"), nullptr, false);
    if (notes.is_array())
      for (const nlohmann::json& note : notes)
        if (note.is_string()) meta.notes.push_back(note.get<std::string>());
  }

  template <class J> void item(const J& object, const std::string& kind) {
    namespace decode = model::decode;
    ++m_kept;
    if (kind == "Node") return m_lists.nodes.put(decode::node(object), m_at_most);
    if (kind == "Pod") return m_lists.pods.put(decode::pod(object), m_at_most);
    if (kind == "Event") return m_lists.events.put(decode::event(object), m_at_most);
    if (kind == "DaemonSet") return m_lists.daemonsets.put(decode::daemonset(object), m_at_most);
    if (kind == "Deployment") return m_lists.deployments.put(decode::workload(object, kind), m_at_most);
    if (kind == "StatefulSet") return m_lists.statefulsets.put(decode::workload(object, kind), m_at_most);
    if (kind == "ClusterPolicy") return m_lists.cluster_policies.put(decode::cluster_policy(object), m_at_most);
    if (kind == "DeviceClass") return m_lists.device_classes.put(decode::device_class(object), m_at_most);
    if (kind == "ResourceSlice") return m_lists.resource_slices.put(decode::resource_slice(object), m_at_most);
    if (kind == "ResourceClaim") return m_lists.resource_claims.put(decode::resource_claim(object), m_at_most);
    if (kind == "ResourceClaimTemplate")
      return m_lists.resource_claim_templates.put(decode::resource_claim_template(object), m_at_most);
    if (kind == "ConfigMap") return configmap(decode::configmap(object));
    if (kind == "Secret" && secret(object)) return;
    --m_kept;
    m_skipped.insert(kind);
  }

  void configmap(model::ConfigMap map) {
    if (map.meta.name != k_autoscaler_status_name) return m_lists.configmaps.put(std::move(map), m_at_most);
    AutoscalerStatus status;
    status.ns = map.meta.ns;
    auto text = map.data.find("status");
    if (text != map.data.end()) status.text = text->second;
    auto updated = map.meta.annotations.find(k_autoscaler_last_updated);
    if (updated != map.meta.annotations.end()) status.last_updated = updated->second;
    m_snapshot.autoscaler_status = std::move(status);
  }

  // Keeps a Helm release summary and drops everything else a Secret holds.
  template <class J> bool secret(const J& object) {
    namespace read = model::json_read;
    bool helm = read::string_at(object, "type") == "helm.sh/release.v1" ||
                read::string_at(read::object_at(object, "metadata"), "name").starts_with("sh.helm.release.v1.");
    if (!helm) return false;
    model::Parsed<model::HelmRelease> release = helm_release_from_secret(as_nlohmann(object));
    if (!release) {
      m_snapshot.meta.notes.push_back(fmt::format("{}: {}", m_origin, release.error));
      return true;
    }
    m_lists.helm_releases.put(std::move(*release.value), m_at_most);
    return true;
  }

  Snapshot& m_snapshot;
  const std::string& m_origin;
  static constexpr std::size_t k_pods_aside = 4096;
  SnapshotGathers m_lists;
  std::size_t m_at_most = 0; // 0: unknown
  std::size_t m_kept = 0;
  std::set<std::string> m_skipped;
};

// Moves what one input gave into what earlier inputs gave, by the rules of merging directly:
// the first snapshot names the cluster, notes add up, the same object replaces its copy.
void absorb(Snapshot& into, Snapshot part) {
  if (into == Snapshot{}) {
    into = std::move(part);
    return;
  }
  SnapshotMeta& meta = into.meta;
  for (auto [mine, theirs] : {std::pair{&meta.context, &part.meta.context}, {&meta.server, &part.meta.server},
                              {&meta.collected_at, &part.meta.collected_at},
                              {&meta.namespace_scope, &part.meta.namespace_scope}})
    if (mine->empty()) *mine = std::move(*theirs);
  for (std::string& note : part.meta.notes) meta.notes.push_back(std::move(note));
  for_each_record_list([](auto& items, auto& more) {
    std::vector<std::remove_reference_t<decltype(more)>> blocks;
    blocks.push_back(std::move(more));
    append_blocks(items, blocks);
    replace_copies(items);
  }, into, part);
  if (part.autoscaler_status) into.autoscaler_status = std::move(part.autoscaler_status);
}

// Thrown inside a windowed read to give up on it: the whole-input read then decides.
struct NotWindowed {};

// The kind a List's items have when they name none ("" for a List: each must name its own),
// from the List's raw "kind"; nullopt when that is not List or <Kind>List.
std::optional<std::string> kind_of_list_items(std::string_view raw_kind) {
  const nlohmann::json kind_json = nlohmann::json::parse(raw_kind, nullptr, false);
  const std::string kind = kind_json.is_string() ? kind_json.get<std::string>() : std::string{};
  if (kind.size() < 4 || !kind.ends_with("List")) return std::nullopt;
  return kind == "List" ? std::string{} : kind.substr(0, kind.size() - 4);
}

// The kind to merge an item as: its own, else its List's when known; nullopt to wait.
std::optional<std::string> list_item_kind(simdjson::dom::element item, std::string_view raw_list_kind) {
  if (!model::json_read::string_at(item, "kind").empty()) return std::string{};
  if (raw_list_kind.empty()) return std::nullopt;
  std::optional<std::string> kind = kind_of_list_items(raw_list_kind);
  if (!kind) throw NotWindowed{}; // not a List: read whole
  return kind;
}

} // namespace

std::size_t merge_object(Snapshot& snapshot, const nlohmann::json& object, const std::string& origin) {
  Merger merger(snapshot, origin);
  merger.document(object, "document 1");
  merger.finish();
  return merger.kept();
}

void merge_documents(Snapshot& snapshot, const std::vector<nlohmann::json>& documents, const std::string& origin) {
  if (documents.empty()) throw UsageError(fmt::format("{}: empty file (no JSON or YAML document)", origin));
  Merger merger(snapshot, origin);
  std::size_t index = 0;
  for (const nlohmann::json& document : documents) merger.document(document, fmt::format("document {}", ++index));
  merger.check_usable();
  merger.finish();
}

namespace {

// A batch's items decoded into its own part, on a worker thread. It stops at the first item
// that has no kind while the List's is not yet known: that item and all after it wait.
void decode_batch(ItemBatch& batch, SimdjsonDom& parser, const std::string& origin) {
  Merger merger(batch.part, origin);
  for (std::size_t i = 0; i < batch.items.size(); ++i) {
    const std::optional<simdjson::dom::element> entry = parser.parse(batch.item(i));
    if (!entry) throw NotWindowed{};
    const std::optional<std::string> kind = list_item_kind(*entry, batch.list_kind);
    if (!kind) {
      batch.waits_from = i;
      break;
    }
    merger.expect_at_most(batch.items.size() - i);
    merger.list_item(*entry, *kind, batch.first_index + i);
  }
  merger.hand_over(batch.blocks);
  batch.kept = merger.kept();
  batch.skipped.assign(merger.skipped().begin(), merger.skipped().end());
}

// Worker threads for the items of one List: at L the decode is most of diagnose --from-file,
// and items decode independently of each other.
unsigned decode_workers() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

} // namespace

bool merge_list_window(Snapshot& snapshot, const ReadBytes& read, const std::string& origin, std::size_t window) {
  Snapshot part; // merged into `snapshot` only once the whole List has been read
  try {
    Merger merger(part, origin);
    // Items without a kind take the List's: API lists name it before their items, kubectl
    // after. Until it is known they wait, and so do all after them, to keep the order in
    // which the same object replaces its copy.
    std::vector<std::string> waiting;
    auto ready = [&](ItemBatch& batch) {
      if (waiting.empty() && batch.error) std::rethrow_exception(batch.error);
      const std::size_t first_waiting = waiting.empty() ? batch.waits_from : 0;
      if (waiting.empty()) merger.take(batch);
      for (std::size_t i = first_waiting; i < batch.items.size(); ++i) waiting.emplace_back(batch.item(i));
    };
    // Batches of a sixteenth of the window, at most 256 KiB (~160 pods): every worker has one
    // while the next is read, and the few in flight hold little.
    ListBatches batches([&origin](ItemBatch& batch, SimdjsonDom& parser) { decode_batch(batch, parser, origin); },
                        ready, std::clamp<std::size_t>(window / 16, 1, std::size_t{256} << 10), decode_workers());
    std::size_t items = 0;
    const std::optional<ListHead> head = scan_list_items(read, [&](std::string_view raw, const ListHead& before) {
      ++items;
      batches.add(raw, before.kind);
    }, window);
    batches.finish();
    if (!head) return false;
    const std::optional<std::string> item_kind = kind_of_list_items(head->kind);
    if (!item_kind) return false;
    std::size_t index = items - waiting.size();
    SimdjsonDom parser;
    for (const std::string& raw : waiting) {
      std::optional<simdjson::dom::element> entry = parser.parse(raw);
      if (!entry) return false;
      merger.list_item(*entry, *item_kind, ++index);
    }
    merger.list_metadata_after_items(head->metadata);
    merger.check_usable();
    merger.finish();
  } catch (const NotWindowed&) {
    return false;
  } catch (const UsageError&) {
    return false; // the whole-input read gives this error again, or a syntax error found first
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
  absorb(snapshot, std::move(part));
  return true;
}

} // namespace gpuslice::collect
