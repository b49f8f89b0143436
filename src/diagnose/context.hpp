// SPDX-License-Identifier: Apache-2.0
// What every analyzer reads, worked out once from the Snapshot: GPU nodes with their
// inventory, pending GPU pods with the verdicts about them, bound pods, and the GPU add-ons
// (device plugin, GFD, DCGM exporter) recognised among the DaemonSets.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gpuslice/diagnose.hpp>
#include <gpuslice/model.hpp>
#include <gpuslice/snapshot.hpp>
#include <gpuslice/timeslicing.hpp>

namespace gpuslice::diagnose {

struct GpuNode {
  const model::Node* node = nullptr;
  model::NodeGpus gpus;
  NodeInventory inventory;
  // Units of each GPU resource requested by pods bound here (nvidia.com/gpu, …/mig-1g.5gb).
  std::map<std::string, long long, std::less<>> requested;
  // A device plugin pod on this node that is not ready after restarts (crash-looping): what
  // apply's plugin step cannot mend, and the pod whose log says why.
  const model::Pod* crashing_plugin_pod = nullptr;
};

struct PendingGpuPod {
  const model::Pod* pod = nullptr;
  PendingPod view;
  std::size_t placement = 0;  // Context::placements position
};

// The GPU nodes a pending pod's nodeSelector and required affinity admit (in gpu_nodes order),
// and for each whether a taint blocks it. Pods with the same selector, affinity, tolerations
// and GPU resource share one. (Which taints is left to the one analyzer that names them: at L
// copies of them for 200 placements x 500 nodes were ~15 MB.)
struct Placement {
  std::vector<const GpuNode*> admitted;
  std::vector<char> tainted;  // tainted[i]: a taint of admitted[i] blocks the pods
};

enum class AddonKind { device_plugin, feature_discovery, dcgm_exporter, mps_daemon };

// A GPU add-on DaemonSet and its pods in the snapshot.
struct Addon {
  const model::DaemonSet* daemonset = nullptr;
  AddonKind kind = AddonKind::device_plugin;
  bool operator_managed = false;  // controller owner is a GPU Operator ClusterPolicy
  std::vector<const model::Pod*> pods;
};

// A device-plugin config the cluster holds: which ConfigMap key, and how it checks out.
struct SharingConfigSource {
  const model::ConfigMap* configmap = nullptr;
  std::string key;
  ConfigCheck check;
  bool used = false;  // mounted by a device plugin DaemonSet or named by a ClusterPolicy
};

struct Context {
  const Snapshot& snapshot;
  AnalyzeOptions options;
  std::vector<GpuNode> gpu_nodes;
  std::vector<PendingGpuPod> pending;
  std::vector<Placement> placements;  // of the pending pods
  std::vector<const model::Pod*> bound_pods;  // on a node and not finished
  std::vector<Addon> addons;
  std::vector<SharingConfigSource> sharing_configs;
  bool autoscaler_present = false;  // CA status map or CA events seen
  std::map<std::string, std::size_t, std::less<>> gpu_node_index;  // name → gpu_nodes position

  const GpuNode* gpu_node(std::string_view name) const;
  std::vector<const Addon*> addons_of(AddonKind kind) const;
  // Some GPU node advertises more than one slot per physical GPU.
  bool time_slicing_on() const;
  // The Deployment/StatefulSet in the pod's namespace whose selector matches its labels.
  const model::Workload* owner_workload(const model::Pod& pod) const;
  const Placement& placement(const PendingGpuPod& p) const { return placements[p.placement]; }
};

Context make_context(const Snapshot& snapshot, const AnalyzeOptions& options);
// Fills ctx.placements and each pending pod's position in it (placement.cpp).
void place_pending(Context& ctx);

// ----- placement, as the scheduler's filters judge it -----------------------------------

// nodeSelector and required node affinity admit the node.
bool selector_admits(const model::PodSpec& spec, const model::Node& node);
// The taints of node that block spec (NoSchedule/NoExecute, untolerated).
std::vector<model::Taint> blocking_taints(const model::PodSpec& spec, const model::Node& node);
// The GPU resource spec requests most of ("" if none) and how much.
std::pair<std::string, long long> main_gpu_request(const model::PodSpec& spec);

// ----- text for evidence and remedies -----------------------------------------------------

// "ns/name"
std::string qualified(const model::ObjectMeta& meta);
// Names joined with ", ", at most `limit` then "and N more".
std::string name_list(const std::vector<std::string>& names, std::size_t limit = 5);
// A kubectl patch that appends a toleration of key (operator Exists, effect NoSchedule) to the
// pod template of a workload or DaemonSet (kind as kubectl spells it: "deployment", …).
std::string toleration_patch_command(std::string_view kind, const model::ObjectMeta& meta,
                                     const model::PodSpec& spec, std::string_view key);
// The same for a Deployment/StatefulSet view.
std::string toleration_patch_command(const model::Workload& workload, std::string_view key);
// Evidence lines for (who, what) pairs, each distinct `what` once with everyone it applies
// to: "ml/a, ml/b: <what>"; at most `limit` lines, in first-seen order.
std::vector<std::string> grouped_evidence(const std::vector<std::pair<std::string, std::string>>& who_what,
                                          std::size_t limit = 5);
// "kubectl gpuslice apply --replicas N"; on GKE, whose plugin is not ours, the same with
// --dry-run=client (it prints the gcloud node-pool command); "" on EKS Auto Mode (not configurable).
std::string apply_command(const Context& ctx, int replicas);
// The sentence a time-slicing remedy adds on those platforms ("" elsewhere).
std::string apply_platform_note(const Context& ctx);
// A taint that only the node lifecycle sets (node.kubernetes.io/…): a node state, not a GPU policy.
bool is_system_taint(const model::Taint& taint);
// The node runs Bottlerocket, whose NVIDIA variants run the device plugin on the host.
bool has_host_device_plugin(const model::Node& node);
ObjectRef object_ref(std::string_view kind, const model::ObjectMeta& meta);

} // namespace gpuslice::diagnose
