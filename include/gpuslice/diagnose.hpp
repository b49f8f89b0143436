// SPDX-License-Identifier: Apache-2.0
// diagnose/: the finding catalog (DESIGN §4.2), the parsers of scheduler, cluster-autoscaler
// and Karpenter messages, and the Diagnosis value that analyze() returns. Everything here is
// pure: values in, values out, no I/O.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpuslice/model/labels.hpp>

namespace gpuslice {
struct Snapshot;
}

namespace gpuslice::diagnose {

// ---------------------------------------------------------------------------------------
// Finding catalog
// ---------------------------------------------------------------------------------------

// Ordered from worst to mildest, so a smaller value is more severe.
enum class Severity { error, warning, info };

// "error" | "warning" | "info": the strings of the JSON contract.
std::string_view to_string(Severity severity);

// Parses "error" | "warning" | "info"; nullopt for anything else.
std::optional<Severity> parse_severity(std::string_view text);

// Public, stable finding codes (DESIGN §4.2); the value is the number after "GS".
enum class FindingCode : int {
  GS100 = 100, GS101 = 101, GS102 = 102, GS103 = 103, GS104 = 104, GS105 = 105,
  GS200 = 200, GS201 = 201, GS202 = 202, GS203 = 203, GS204 = 204,
  GS300 = 300, GS301 = 301, GS302 = 302, GS303 = 303, GS304 = 304,
  GS400 = 400, GS401 = 401, GS402 = 402, GS403 = 403, GS404 = 404, GS405 = 405, GS406 = 406,
  GS407 = 407, GS408 = 408,
  GS500 = 500, GS501 = 501, GS502 = 502, GS503 = 503,
  GS600 = 600, GS601 = 601, GS602 = 602, GS603 = 603,
  GS700 = 700, GS701 = 701,
  GS800 = 800, GS801 = 801, GS802 = 802, GS803 = 803, GS804 = 804, GS805 = 805, GS806 = 806, GS807 = 807, GS808 = 808,
};

// One row of the catalog table.
struct CatalogEntry {
  FindingCode code;
  std::string_view name;     // kebab-case, e.g. "time-slicing-disabled"
  Severity severity;         // default severity
  std::string_view summary;  // one line: when it fires
  // For `explain` and the man page: why it matters, how to fix it, and what it rests on.
  std::string_view why = {};
  std::string_view fix = {};
  std::string_view reference = {};
};

// The whole catalog, sorted by code.
std::span<const CatalogEntry> catalog();

// The catalog row of code (every enumerator has one).
const CatalogEntry& catalog_entry(FindingCode code);

// "GS300" for FindingCode::GS300.
std::string to_string(FindingCode code);

// Parses "GS300" (case-insensitive "gs300" too) into a catalogued code; nullopt otherwise.
std::optional<FindingCode> parse_finding_code(std::string_view text);

// A Kubernetes object a finding is about; ns is empty for cluster-scoped objects.
struct ObjectRef {
  std::string kind;
  std::string ns;
  std::string name;
  bool operator==(const ObjectRef&) const = default;
};

// What to do: a sentence and the exact command (may be empty when no command applies).
struct Remedy {
  std::string text;
  std::string command;
};

struct Finding {
  FindingCode code;
  std::string name;
  Severity severity;
  std::string summary;                // specific to this occurrence, one line
  std::vector<ObjectRef> objects;
  std::vector<std::string> evidence;  // the facts it rests on, quoted
  Remedy remedy;
};

// A finding of code with name and default severity from the catalog and the given summary.
Finding make_finding(FindingCode code, std::string summary);

// ---------------------------------------------------------------------------------------
// Reasons shared by scheduler, cluster-autoscaler and Karpenter messages
// ---------------------------------------------------------------------------------------

// What a reason is about. Scheduler predicate reasons also appear in NotTriggerScaleUp
// (CA simulates the scheduler against node group templates).
enum class ReasonKind {
  insufficient_resource,  // "Insufficient nvidia.com/gpu", "Insufficient pods"
  too_many_pods,          // "Too many pods"
  untolerated_taint,      // any taint wording; key/value when the message names them
  selector_mismatch,      // nodeSelector / node affinity, incl. "didn't satisfy plugin(s) [NodeAffinity]"
  unschedulable,          // "node(s) were unschedulable" (cordoned)
  node_not_ready,         // "node(s) had unknown conditions"
  node_name,              // "didn't match the requested node name/hostname"
  host_ports,
  pod_affinity,           // inter-pod affinity / anti-affinity
  topology_spread,
  volume,                 // any PV/PVC/volume reason
  plugin_filtered,        // "didn't satisfy plugin(s) [X]" for plugins other than NodeAffinity
  preemption,             // "No preemption victims found…", "Preemption is not helpful…"
  max_node_group_size,    // CA: "max node group size reached" (old: "max limit reached")
  max_total_nodes,        // CA: "max total nodes in cluster reached", atomic node count limit
  resource_limit,         // CA: "max cluster X limit reached", "exceeded quota: …"; Karpenter limits
  backoff,                // CA: "in backoff after failed scale-up"
  group_not_ready,        // CA: "not ready for scale-up"
  no_instance_type,       // Karpenter: no instance type satisfies resources/requirements
  other,                  // kept verbatim in text
};

// "insufficient-resource", "untolerated-taint", …: stable names for output and tests.
std::string_view to_string(ReasonKind kind);

// One "<count> <reason>" entry of a histogram, or one Karpenter per-NodePool error.
struct Reason {
  int count = 0;             // nodes (scheduler) or node groups (CA); 1 for Karpenter
  std::string text;          // the reason verbatim, without the count
  ReasonKind kind = ReasonKind::other;
  std::string resource;      // insufficient_resource / resource_limit: "nvidia.com/gpu", "cpu, memory"
  std::string taint_key;     // untolerated_taint when named
  std::string taint_value;
  std::string taint_effect;  // Karpenter wordings name it
  std::string plugins;       // plugin_filtered / selector_mismatch from "[X]": "NodeAffinity"
};

// Classifies a reason text (no leading count) of any producer.
Reason classify_reason(std::string_view text, int count);

// ---------------------------------------------------------------------------------------
// kube-scheduler FailedScheduling / PodScheduled=False messages
// ---------------------------------------------------------------------------------------

struct SchedulerMessage {
  int nodes_total = 0;                  // the N of "0/N nodes are available"
  std::vector<Reason> reasons;          // the filter histogram, in message order
  std::string prefilter;                // a PreFilter message (no counts), if that is what it was
  bool has_preemption = false;          // a "preemption: …" part was present
  std::string preemption;               // its text verbatim, after "preemption: "
  std::vector<Reason> preemption_reasons;
  bool truncated = false;               // event note cut at 1024 chars (" ..."); last entry dropped
};

// Parses a FitError message of any version ("0/9 nodes are available: …", pre-1.8 "No nodes
// are available that match all of the following predicates:: …", "no nodes available to
// schedule pods"). nullopt if text is not such a message. Never throws.
std::optional<SchedulerMessage> parse_scheduler_message(std::string_view text);

// ---------------------------------------------------------------------------------------
// cluster-autoscaler events
// ---------------------------------------------------------------------------------------

enum class AutoscalerEventKind {
  not_triggered,         // NotTriggerScaleUp on a pod
  triggered,             // TriggeredScaleUp on a pod
  scale_up_set,          // ScaledUpGroup: "Scale-up: setting group X size to N …"
  scale_up_failed,       // FailedToScaleUpGroup / ScaleUpFailed
  scale_up_timed_out,    // ScaleUpTimedOut: nodes failed to register
};

// One node group a scale-up touched; -1 when the message does not say.
struct ScaleUpGroup {
  std::string group;
  int from = -1;
  int to = -1;
  int max = -1;
};

struct AutoscalerMessage {
  AutoscalerEventKind kind = AutoscalerEventKind::not_triggered;
  std::vector<Reason> reasons;       // NotTriggerScaleUp; counts are NODE GROUPS
  bool wouldnt_fit_prefix = false;   // CA ≤1.19 "(it wouldn't fit if a new node is added)"
  std::vector<ScaleUpGroup> groups;  // triggered / scale_up_* (the group named)
  std::string error;                 // scale_up_failed: the cloud error verbatim
};

// Parses a cluster-autoscaler event message of the kinds above; nullopt if it is none of
// them. Reason lists are multisets (CA's order is random). Never throws.
std::optional<AutoscalerMessage> parse_autoscaler_message(std::string_view text);

// Health of one node group (or the cluster-wide record) from the CA status ConfigMap.
// Counts are -1 when the format in use does not carry them.
struct NodeGroupStatus {
  std::string name;                // empty for cluster-wide
  std::string health;              // "Healthy" | "Unhealthy" | …
  int ready = -1;
  int unready = -1;
  int resource_unready = -1;       // GPU not advertised yet (CA ≥1.24)
  int not_started = -1;
  int registered = -1;
  int long_unregistered = -1;
  int cloud_provider_target = -1;
  int min_size = -1;
  int max_size = -1;
  std::string scale_up;            // "InProgress" | "Backoff" | "NoActivity" | "Unhealthy"
  std::string backoff_error_code;  // YAML format only
  std::string backoff_error_message;
  std::string scale_down;          // "CandidatesPresent" | "NoCandidates"
};

// The parsed status map (the snapshot's gpuslice::AutoscalerStatus is the raw ConfigMap).
struct AutoscalerHealth {
  bool legacy_text = false;        // the ≤1.29 text format; false = YAML (≥1.30)
  std::string time;                // as written
  std::string autoscaler_status;   // "Running" | "Initializing" | "" (text format)
  NodeGroupStatus cluster_wide;
  std::vector<NodeGroupStatus> node_groups;
};

// Result of a parser that can reject its input (model's type): error names what was wrong.
using model::Parsed;

// Parses data.status of the cluster-autoscaler-status ConfigMap in either format.
Parsed<AutoscalerHealth> parse_autoscaler_status(std::string_view text);

// ---------------------------------------------------------------------------------------
// Karpenter pod events (source "karpenter")
// ---------------------------------------------------------------------------------------

// One inner error; nodepool names the NodePool (or old Provisioner), "" when unnamed (v1.5+).
struct KarpenterError {
  std::string nodepool;
  Reason reason;  // count 1
};

struct KarpenterMessage {
  bool nominated = false;  // "Pod should schedule on: nodeclaim/X[, node/Y]"
  std::string nodeclaim;
  std::string node;
  std::vector<KarpenterError> errors;
};

// Parses Karpenter's "Failed to schedule pod, …" (and log bodies "incompatible with
// nodepool …"), "Could not schedule pod, …", and Nominated messages; nullopt otherwise.
std::optional<KarpenterMessage> parse_karpenter_message(std::string_view text);

// ---------------------------------------------------------------------------------------
// Diagnosis: what analyze() returns
// ---------------------------------------------------------------------------------------

// One MIG profile's slices on a node (nvidia.com/mig-<profile>): never slots of nvidia.com/gpu.
struct MigSlots {
  std::string profile;        // "1g.5gb" (resource nvidia.com/mig-1g.5gb)
  long long allocatable = 0;
  long long requested = 0;    // by pods bound to the node
  long long free = 0;
  bool operator==(const MigSlots&) const = default;
};

// GPUs the NVIDIA DRA driver publishes for a node in ResourceSlices (driver gpu.nvidia.com):
// allocated through ResourceClaims, never in allocatable, so counted apart from slots.
struct DraGpus {
  long long devices = 0;
  long long allocated = 0;  // held by an allocated claim
  long long free = 0;
  bool operator==(const DraGpus&) const = default;
};

// One GPU node's capacity (DESIGN §4.3 "nodes"). Slots are what the scheduler counts:
// physical GPUs × replicas when time-sliced.
struct NodeInventory {
  std::string name;
  std::string instance_type;
  std::string gpu_product;      // GFD label, else the instance catalog's model
  std::string resource;         // the GPU resource it advertises most of ("" = none)
  int physical_gpus = 0;
  int replicas = 1;             // time-slicing replicas per GPU (1 = not shared)
  long long allocatable = 0;    // GPU slots in allocatable (nvidia.com/gpu and .shared; not MIG)
  long long requested = 0;      // those slots requested by pods bound to it
  long long free = 0;           // allocatable - requested, never negative
  int memory_mib = 0;           // per physical GPU; 0 unknown
  bool ready = true;
  bool schedulable = true;      // not cordoned
  std::vector<std::string> taints;  // "key=value:Effect"
  std::vector<MigSlots> mig;    // MIG slices per profile, by profile name
  DraGpus dra;                  // devices == 0 where the DRA driver publishes nothing
};

// What the scheduler said about a pending pod.
struct SchedulerVerdict {
  std::string source;     // "condition" (PodScheduled message) | "event" | "" (nothing seen)
  std::string scheduler;  // schedulerName / event component
  std::string message;    // verbatim
  std::optional<SchedulerMessage> parsed;
};

// What cluster-autoscaler (or Karpenter) said about a pending pod.
struct ScalerVerdict {
  std::string verdict;  // "NotTriggerScaleUp" | "TriggeredScaleUp" | "FailedScheduling" (karpenter) | ""
  std::string component;  // "cluster-autoscaler" | "karpenter"
  std::string message;
  std::optional<AutoscalerMessage> autoscaler;
  std::optional<KarpenterMessage> karpenter;
};

struct PendingPod {
  std::string ns;
  std::string name;
  std::string resource;      // the GPU resource it requests most of
  long long gpu_request = 0; // of that resource
  SchedulerVerdict scheduler;
  ScalerVerdict scaler;
};

struct Diagnosis {
  std::vector<NodeInventory> nodes;        // GPU nodes, by name
  std::vector<PendingPod> pending_pods;    // unscheduled pods requesting a GPU, by ns/name
  std::vector<Finding> findings;           // worst severity first, then by code
  std::vector<std::string> notes;          // sources not read, assumptions made
};

struct AnalyzeOptions {
  int replicas = 0;  // the --replicas to recommend; 0 = work it out from demand
};

// The placement check that gates `apply --replicas N` remedies (DESIGN §4.2): how many pending
// GPU pods first-fit on the snapshot as it is, and as apply would leave it.
struct FitCheck {
  int pending = 0;
  int before = 0;
  int after = 0;
};
FitCheck check_apply_fit(const Snapshot& snapshot, int replicas);

// Runs every analyzer over the snapshot. Pure; never throws on odd cluster data (a value it
// cannot read becomes a note).
Diagnosis analyze(const Snapshot& snapshot, const AnalyzeOptions& options = {});

} // namespace gpuslice::diagnose
