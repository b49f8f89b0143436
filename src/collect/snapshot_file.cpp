// SPDX-License-Identifier: Apache-2.0
// Our snapshot file: a kubectl-style List, so `kubectl get -f snapshot.json` and jq read it
// too; SnapshotMeta rides in the List's metadata annotations.
#include <nlohmann/json.hpp>

#include <gpuslice/collect.hpp>
#include <gpuslice/snapshot.hpp>

namespace gpuslice {

nlohmann::json snapshot_to_json(const Snapshot& snapshot) {
  nlohmann::json items = nlohmann::json::array();
  for (const model::Node& node : snapshot.nodes) items.push_back(model::to_json(node));
  for (const model::Pod& pod : snapshot.pods) items.push_back(model::to_json(pod));
  for (const model::Event& event : snapshot.events) items.push_back(model::to_json(event));
  for (const model::DaemonSet& daemonset : snapshot.daemonsets) items.push_back(model::to_json(daemonset));
  for (const model::Workload& workload : snapshot.deployments) items.push_back(model::to_json(workload));
  for (const model::Workload& workload : snapshot.statefulsets) items.push_back(model::to_json(workload));
  for (const model::ConfigMap& configmap : snapshot.configmaps) items.push_back(model::to_json(configmap));
  if (const std::optional<AutoscalerStatus>& status = snapshot.autoscaler_status) {
    model::ConfigMap map;
    map.meta.name = std::string(k_autoscaler_status_name);
    map.meta.ns = status->ns;
    if (!status->last_updated.empty())
      map.meta.annotations.emplace(k_autoscaler_last_updated, status->last_updated);
    map.data.emplace("status", status->text);
    items.push_back(model::to_json(map));
  }
  for (const model::ClusterPolicy& policy : snapshot.cluster_policies) items.push_back(model::to_json(policy));
  for (const model::DeviceClass& c : snapshot.device_classes) items.push_back(model::to_json(c));
  for (const model::ResourceSlice& s : snapshot.resource_slices) items.push_back(model::to_json(s));
  for (const model::ResourceClaim& c : snapshot.resource_claims) items.push_back(model::to_json(c));
  for (const model::ResourceClaimTemplate& t : snapshot.resource_claim_templates) items.push_back(model::to_json(t));
  for (const model::HelmRelease& release : snapshot.helm_releases)
    items.push_back(collect::helm_release_secret_json(release));

  const SnapshotMeta& meta = snapshot.meta;
  nlohmann::json annotations = {{k_annotation_snapshot, "1"},
                                {k_annotation_context, meta.context},
                                {k_annotation_server, meta.server},
                                {k_annotation_collected_at, meta.collected_at},
                                {k_annotation_namespace, meta.namespace_scope},
                                {k_annotation_notes, nlohmann::json(meta.notes).dump()}};
  return {{"apiVersion", "v1"},
          {"kind", "List"},
          {"metadata", {{"resourceVersion", ""}, {"annotations", annotations}}},
          {"items", std::move(items)}};
}

std::string write_snapshot(const Snapshot& snapshot) { // Replace, not throw, if a YAML input carried bytes that are not UTF-8.
  return snapshot_to_json(snapshot).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; }

} // namespace gpuslice
