// SPDX-License-Identifier: Apache-2.0
// GPU slot arithmetic and the placement check shared by the analyzers: what demand there is,
// how many replicas to recommend, which filter rejects a pending pod on a node, and how many
// pending pods a remedy would place (DESIGN §4.2, "Remedies are gated by placement").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "context.hpp"

namespace gpuslice::diagnose {

// NVIDIA's sample value; we never recommend fewer, so one apply leaves headroom.
inline constexpr int k_min_recommended_replicas = 4;
// Beyond this each share of even an 80 GB GPU gets little memory: say how many fit instead.
inline constexpr int k_max_recommended_replicas = 16;
// A share below this much GPU memory is a risk for typical inference containers (GS304):
// a T4 split 4 ways (3840 MiB) is below it, split 2 ways (7680 MiB) is not.
inline constexpr int k_small_share_mib = 4096;

// Physical GPUs on GPU nodes that can take pods (ready, schedulable, advertising GPUs).
int usable_physical_gpus(const Context& ctx);
// The replicas to recommend: options.replicas when set, else enough for every slot in use
// plus every pending request, at least k_min_recommended_replicas, at most the max.
int recommended_replicas(const Context& ctx);

// The snapshot as a remedy would leave it. Empty: as it is.
struct Fix {
  // `apply --replicas N`: GPU nodes whose device plugin we can run advertise physical whole
  // GPUs × N of nvidia.com/gpu (MIG slices stay MIG slices, a crash-looping plugin stays
  // broken, a host plugin is not ours to change); every GPU node gets the nvidia.com/gpu
  // taint and the pods of GPU Deployments/StatefulSets its toleration, as apply's steps do.
  int replicas = 0;
  std::string tolerate;  // the pods of `pods` (every pending pod when empty) tolerate this key
  bool uncordon = false; // cordoned nodes take pods again
  std::string request;   // the pods of `pods` request this resource instead of their own
  std::vector<const PendingGpuPod*> pods;
};

// The first filter that rejects a pod on a node, in kube-scheduler's order (NodeUnschedulable,
// TaintToleration, NodeAffinity, NodeResourcesFit). not_ready: a node-lifecycle taint
// (not-ready, unreachable, pressure) or, for placement, a NotReady node. lacks_resource: the
// node has none of the requested resource at all, which is not a shortage of it.
enum class NodeVerdict { fits, unschedulable, not_ready, taint, selector, lacks_resource, insufficient };

// Pending GPU pods that first-fit (in ns/name order, nodes by name) on the snapshot after fix.
int pods_that_fit(const Context& ctx, const Fix& fix = {});
// pods_that_fit(fix) - pods_that_fit(): the pods the fix itself places.
int pods_the_fix_places(const Context& ctx, const Fix& fix);
// Pending pods whose scheduler verdict says their GPU resource is insufficient and for which
// some GPU node passes every other filter and has that resource: a real shortage. Pods whose
// only "Insufficient" nodes have none of the resource (CPU nodes, MIG-only nodes) are not here.
std::vector<const PendingGpuPod*> pods_short_of_gpus(const Context& ctx);
// "of 5 GPU node(s): 2 have a taint it does not tolerate (k=v:NoSchedule), 3 have no
// nvidia.com/gpu (they advertise nvidia.com/mig-1g.5gb)": why pod p does not fit after fix.
std::string why_pod_does_not_fit(const Context& ctx, const PendingGpuPod& p, const Fix& fix = {});
// Where the scheduler's counts for p disagree with the same filters run over the snapshot's
// nodes: one evidence line that says so and why it may be (stale snapshot, unmodeled filter);
// nullopt when they agree or the verdict has no counts.
std::optional<std::string> scheduler_disagreement(const Context& ctx, const PendingGpuPod& p);
// How many of the nodes the scheduler counts as Insufficient <resource> for p have none of it.
int insufficient_nodes_lacking_resource(const Context& ctx, const PendingGpuPod& p);

// Raising a node group's max size, as the autoscaler would use it: new nodes built like one of
// `templates` (its labels but hostname, its policy taints, its allocatable; Ready, schedulable,
// no pods), opened one after another as the pending pods need them.
struct ScaleUp {
  int pods = 0;                  // pending pods a new node would take
  int nodes = 0;                 // new nodes they take, first fit
  const GpuNode* like = nullptr; // the template of the first new node
};
ScaleUp new_nodes_place(const Context& ctx, const std::vector<const GpuNode*>& templates);
// "a new node like gpu-1 would have a taint it does not tolerate (dedicated=ml:NoSchedule)":
// why the first pending pod fits no new node built like `templates` (not empty).
std::string why_new_node_rejects(const Context& ctx, const std::vector<const GpuNode*>& templates);

// The remedy `apply --replicas N` with its text, gated by the placement check: offered when no
// GPU pod is pending or when it places at least one ("With --replicas N, 3 of 4 pending pod(s)
// would fit." is appended); otherwise the command is withheld and the text says why.
Remedy gated_apply_remedy(const Context& ctx, int replicas, std::string text);

} // namespace gpuslice::diagnose
