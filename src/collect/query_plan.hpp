// SPDX-License-Identifier: Apache-2.0
// The live collector's query plan: which lists and field selectors a diagnosis needs, and the
// rule that picks per-node pod lists or one cluster-wide list. Pure: no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include <gpuslice/kube/client.hpp>

namespace gpuslice::collect {

// How the pods on GPU nodes are read.
enum class PodListing {
  none,         // no GPU node: nothing to read
  per_node,     // one spec.nodeName=<node> list per GPU node, run in parallel
  cluster_wide, // one paged list of every running pod, filtered to GPU nodes while streaming
};

// Per-node lists cost one request per GPU node but move only the pods of GPU nodes; the
// cluster-wide list moves every pod of the cluster in ceil(pods / page) requests. A pod list
// of a 5,000-node cluster is ~100 MB (kubeclient.md §12), so per-node wins while GPU nodes
// are a small share of the cluster; past 100 of them the request count (and the client's
// rate limit) dominates, and past 20 % the pods of the other nodes are too few to be worth
// skipping. Measured at scenario L (500 GPU nodes of 5,000): per-node lists there moved 6.9 MB
// instead of 32.5, but fakekube scans every pod for each field-selected list, so the 500 of
// them took 14x as long as the cluster-wide list (tests/bench/RESULTS.md); the ceiling stays
// until that is measured against a server that indexes spec.nodeName.
inline constexpr std::size_t k_max_per_node_lists = 100;
inline constexpr std::size_t k_max_per_node_percent = 20;

// per_node when 0 < gpu_nodes <= 100 and gpu_nodes <= 20 % of all_nodes; none when there is
// no GPU node; cluster_wide otherwise.
PodListing choose_pod_listing(std::size_t gpu_nodes, std::size_t all_nodes);

// Per-node lists ask for resourceVersion=0 ("any"): the API server answers them from its watch
// cache, which indexes pods by spec.nodeName, as it does each kubelet's list of its own pods.
// Without it every one of them is a quorum read that scans all pods in etcd (before 1.31's
// consistent reads from the cache): 500 scans of the whole pod range instead of one.
inline constexpr std::string_view k_per_node_resource_version = "0";

// Pods still holding resources: the kubelet releases a pod's requests once it has finished.
inline constexpr std::string_view k_unfinished_pods_selector = "status.phase!=Succeeded,status.phase!=Failed";
inline constexpr std::string_view k_pending_pods_selector = "status.phase=Pending";

// "spec.nodeName=<node>,status.phase!=Succeeded,status.phase!=Failed"
std::string pods_on_node_selector(std::string_view node);

// Event reasons a diagnosis reads, each listed with fieldSelector=reason=<reason>: the
// scheduler's verdict and the cluster-autoscaler's two (Karpenter also uses FailedScheduling).
// core/v1 only: the scheduler writes through events.k8s.io/v1, but both versions are views of
// one stored resource, and core/v1 reads keep eventTime, series and reportingComponent
// (scheduling.md §1.5), so a second events.k8s.io list would return the same events again.
inline constexpr std::array<std::string_view, 3> k_event_reasons = {"FailedScheduling", "NotTriggerScaleUp",
                                                                     "TriggeredScaleUp"};
// "reason=<reason>"
std::string event_reason_selector(std::string_view reason);

// Helm 3 labels every release Secret owner=helm (and name=<release>, status=, version=).
inline constexpr std::string_view k_helm_release_selector = "owner=helm";

// The API group/version the GPU Operator's CRD serves; discovery answers 404 without it.
inline constexpr std::string_view k_nvidia_group_path = "/apis/nvidia.com/v1";

// The resources the collector reads.
inline const kube::ResourceRef k_nodes{"", "v1", "nodes", false};
inline const kube::ResourceRef k_pods{"", "v1", "pods", true};
inline const kube::ResourceRef k_events{"", "v1", "events", true};
inline const kube::ResourceRef k_configmaps{"", "v1", "configmaps", true};
inline const kube::ResourceRef k_secrets{"", "v1", "secrets", true};
inline const kube::ResourceRef k_daemonsets{"apps", "v1", "daemonsets", true};
inline const kube::ResourceRef k_deployments{"apps", "v1", "deployments", true};
inline const kube::ResourceRef k_statefulsets{"apps", "v1", "statefulsets", true};
inline const kube::ResourceRef k_cluster_policies{"nvidia.com", "v1", "clusterpolicies", false};

} // namespace gpuslice::collect
