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

// Per-node lists cost one request per GPU node but move only the pods of GPU nodes, and run side
// by side (8 in flight); the cluster-wide list moves every pod of the cluster in ceil(pods / page)
// requests, one after another (each page's continue token comes from the page before). The API
// server answers a spec.nodeName list from its watch cache's pod index (resourceVersion=0, below),
// so a per-node list costs it that node's pods, not a scan of all of them. Measured at scenario L
// (5,000 nodes, 150,000 pods) against fakekube with that index (tests/bench/RESULTS.md):
//  - 500 GPU nodes (10 %): per-node 547 requests, 6.9 MB, diagnose 21 s; cluster-wide 347
//    requests, 32.5 MB, diagnose 83-100 s, in the same run.
//  - the pod lists alone, fetched by curl 8 at a time: per-node lists of 1,000 / 2,500 nodes took
//    4.6 / 17.3 s against 16.5 s for the 300 cluster-wide pages, so per-node stops paying near
//    half the nodes even for a client that could fetch pages in parallel.
//  - the client's read limit (50 QPS past a burst of 300, client.hpp) adds a floor of
//    (requests - 300) / 50 s: 25 s for 1,500 GPU nodes, already the cluster-wide list's whole
//    wall time at L (24.7 s in a quieter run), so the line is drawn at a quarter of the nodes.
// There is no ceiling on the count of per-node lists: it grows with GPU nodes, not with all pods.
inline constexpr std::size_t k_max_per_node_percent = 25;

// per_node when 0 < gpu_nodes <= 25 % of all_nodes; none when there is no GPU node; cluster_wide
// otherwise. `started`: of the gpu_nodes, those whose per-node lists already began while the node
// list paged (the collector starts them when the nodes listed so far pass this rule). Their cost
// is spent, so only the rest is weighed: per_node when gpu_nodes - started <= 25 % of all_nodes.
PodListing choose_pod_listing(std::size_t gpu_nodes, std::size_t all_nodes, std::size_t started = 0);

// Per-node lists ask for resourceVersion=0 ("any"): the API server answers them from its watch
// cache, which indexes pods by spec.nodeName (pkg/registry/core/pod: NodeNameIndexFunc), as it
// does each kubelet's list of its own pods. Without it each is a consistent read: from the cache
// too where ConsistentListFromCache is on (beta, default on since 1.31, with etcd 3.4.31+/3.5.13+),
// otherwise a quorum read that ranges over every pod in etcd: 500 scans instead of one.
inline constexpr std::string_view k_per_node_resource_version = "0";

// Pods still holding resources: the kubelet releases a pod's requests once it has finished.
inline constexpr std::string_view k_unfinished_pods_selector = "status.phase!=Succeeded,status.phase!=Failed";
inline constexpr std::string_view k_pending_pods_selector = "status.phase=Pending";
// Failed pods: those the kubelet refused at admission (UnexpectedAdmissionError) stay Failed and
// their workload short of replicas (GS603). Filtered while streaming: finished Jobs are many.
inline constexpr std::string_view k_failed_pods_selector = "status.phase=Failed";

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

// Dynamic Resource Allocation: the versions of resource.k8s.io, most preferred first (v1 since
// Kubernetes 1.34, v1beta2 in 1.33, v1beta1 in 1.32). The collector reads the first one
// discovery serves; model/dra.hpp reads the shapes of all three.
inline constexpr std::array<std::string_view, 3> k_dra_versions = {"v1", "v1beta2", "v1beta1"};
// The DRA resources at one version: deviceclasses and resourceslices (cluster-scoped),
// resourceclaims and resourceclaimtemplates (namespaced).
kube::ResourceRef dra_resource(std::string_view version, std::string_view plural);

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
