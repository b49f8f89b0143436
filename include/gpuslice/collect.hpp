// SPDX-License-Identifier: Apache-2.0
// Filling a Snapshot: from files (diagnose --from-file) or live from the API server (collect).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::kube {
class Client;
} // namespace gpuslice::kube

namespace gpuslice::collect {

// Reads and merges files: our snapshot, `kubectl get … -o json` Lists (List or <Kind>List),
// single objects, and multi-document YAML. Objects of kinds diagnose does not use are skipped;
// Secrets are reduced to a Helm release summary at once (their data is never kept).
// Throws UsageError naming the file and the problem: missing or unreadable file, empty file,
// not JSON/YAML, truncated, a document that is not a Kubernetes object, or a file with no
// object of a kind diagnose uses.
Snapshot load_snapshot_files(const std::vector<std::string>& paths);

// Parses one file's text (origin names it in errors) and merges it into `snapshot`.
// Same errors as load_snapshot_files.
void merge_text(Snapshot& snapshot, std::string_view text, const std::string& origin);

// Merges one API object or List (any of the shapes above) into `snapshot`; returns how many
// objects were kept. Throws UsageError (naming origin) for a document without kind; then
// nothing of `object` is merged.
std::size_t merge_object(Snapshot& snapshot, const nlohmann::json& object, const std::string& origin);

// Decodes a Helm release Secret (type helm.sh/release.v1): data.release is base64 of base64 of
// gzip of JSON (or base64 of base64 of JSON for old releases). Returns the summary, or an
// error text; never keeps values, config or templates. A Secret that carries our
// gpuslice.dev/helm-release annotation instead of data is read from that.
model::Parsed<model::HelmRelease> helm_release_from_secret(const nlohmann::json& secret);

// A Secret's metadata with the release summary annotation and no data: what snapshots store.
nlohmann::json helm_release_secret_json(const model::HelmRelease& release);

// One list page read, for progress lines: "pods in all namespaces", its 1-based page number
// and the items read so far in that list.
struct PageRead {
  std::string what;
  int page = 0;
  std::size_t items = 0;
};
// Called after each list page; lists run in parallel, so it may be called from several
// threads at once and must synchronise itself. It must not throw.
using PageObserver = std::function<void(const PageRead&)>;

// What a live collection covers.
struct Scope {
  std::string namespace_name;   // pending pods, events, Deployments, StatefulSets; "" = all namespaces (-A)
  std::int64_t page_size = 500; // list page size (kubectl's --chunk-size)
  PageObserver on_page;         // optional: progress
};

// Reads what a diagnosis needs from the cluster, following the query plan (collect/query_plan.hpp):
// every node; pending GPU pods in scope; the pods on GPU nodes (all namespaces: they share the
// nodes' capacity); FailedScheduling/NotTriggerScaleUp/TriggeredScaleUp events about those
// pods or GPU nodes; GPU-stack DaemonSets and the ConfigMaps they use; GPU Helm release
// summaries; the ClusterPolicy when its CRD exists; the cluster-autoscaler Deployment and
// status ConfigMap; GPU Deployments and StatefulSets in scope. Independent reads run in
// parallel. A read the user is forbidden (403) becomes a note in meta.notes; a missing
// optional object (404) is skipped; any other failure throws the client's ApiError.
Snapshot collect(kube::Client& client, const Scope& scope);

} // namespace gpuslice::collect
