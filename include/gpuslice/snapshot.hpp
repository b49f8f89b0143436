// SPDX-License-Identifier: Apache-2.0
// Snapshot: the plain value diagnose and the planner consume, live or read from files, and
// its file form — a kubectl-style `List` whose metadata annotations carry our metadata.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model.hpp>

namespace gpuslice {

// Where a snapshot came from and what could not be read.
struct SnapshotMeta {
  std::string context;
  std::string server;
  std::string collected_at;    // RFC 3339
  std::string namespace_scope; // "" = all namespaces
  std::vector<std::string> notes; // sources that could not be read, e.g. "could not read secrets in kube-system: forbidden"
  bool operator==(const SnapshotMeta&) const = default;
};

// The cluster-autoscaler-status ConfigMap: data.status (text ≤1.29 or YAML ≥1.30) and the
// cluster-autoscaler.kubernetes.io/last-updated annotation.
struct AutoscalerStatus {
  std::string ns;
  std::string text;
  std::string last_updated;
  bool operator==(const AutoscalerStatus&) const = default;
};

// Everything a diagnosis reads. Pods are the pending ones and those on GPU nodes (files may
// hold more; nothing is dropped on read). Helm releases are summaries only: no Secret data.
struct Snapshot {
  SnapshotMeta meta;
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  std::vector<model::Event> events;
  std::vector<model::DaemonSet> daemonsets;
  std::vector<model::Workload> deployments;
  std::vector<model::Workload> statefulsets;
  std::vector<model::ConfigMap> configmaps; // without the autoscaler status map
  std::vector<model::HelmRelease> helm_releases;
  std::vector<model::ClusterPolicy> cluster_policies;
  // Dynamic Resource Allocation (resource.k8s.io, any served version), as model/dra.hpp reads it.
  std::vector<model::DeviceClass> device_classes;
  std::vector<model::ResourceSlice> resource_slices;
  std::vector<model::ResourceClaim> resource_claims;
  std::vector<model::ResourceClaimTemplate> resource_claim_templates;
  std::optional<AutoscalerStatus> autoscaler_status;
  bool operator==(const Snapshot&) const = default;
};

inline constexpr std::string_view k_autoscaler_status_name = "cluster-autoscaler-status";
inline constexpr std::string_view k_autoscaler_last_updated = "cluster-autoscaler.kubernetes.io/last-updated";
// List annotations that carry SnapshotMeta.
inline constexpr std::string_view k_annotation_snapshot = "gpuslice.dev/snapshot";   // format version "1"
inline constexpr std::string_view k_annotation_context = "gpuslice.dev/context";
inline constexpr std::string_view k_annotation_server = "gpuslice.dev/server";
inline constexpr std::string_view k_annotation_collected_at = "gpuslice.dev/collected-at";
inline constexpr std::string_view k_annotation_namespace = "gpuslice.dev/namespace";
inline constexpr std::string_view k_annotation_notes = "gpuslice.dev/notes"; // JSON array of strings
// On a Secret item: the Helm release summary (JSON) that replaced its data.
inline constexpr std::string_view k_annotation_helm_release = "gpuslice.dev/helm-release";

// The snapshot as a `List` (apiVersion v1, kind List) of API-shaped items in a stable order:
// nodes, pods, events, daemonsets, deployments, statefulsets, configmaps (autoscaler status
// last), ClusterPolicies, DRA DeviceClasses, ResourceSlices, ResourceClaims and
// ResourceClaimTemplates (resource.k8s.io/v1), then Helm release Secrets reduced to metadata
// plus the summary.
nlohmann::json snapshot_to_json(const Snapshot& snapshot);
// The same, serialized with two-space indentation and a trailing newline.
std::string write_snapshot(const Snapshot& snapshot);

} // namespace gpuslice
