// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/diagnose.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace gpuslice::diagnose {

namespace {

using enum FindingCode;
using enum Severity;

// DESIGN §4.2, row for row. Codes are public: never renumber or reuse one.
constexpr std::array k_catalog{
    CatalogEntry{GS100, "gpu-pods-pending", error,
                 "pods requesting a GPU resource are Pending (unscheduled)",
                 "A Pending GPU pod is work that is not running: an inference replica not serving, a training job not training. The other findings say why; this one says how many are waiting.",
                 "Read the findings that follow it; each names the cause and the command that fixes it. `kubectl describe pod` shows the scheduler's own words.",
                 "Kubernetes: Pod phase Pending with condition PodScheduled=False, reason Unschedulable"},
    CatalogEntry{GS101, "insufficient-gpu", error,
                 "the scheduler reports Insufficient <gpu resource>",
                 "The scheduler found no node with enough free GPU slots. Adding pods will not help; only more slots will: more GPU nodes, or sharing each GPU among several pods.",
                 "Share GPUs with time-slicing (`kubectl gpuslice apply --replicas N`), let the autoscaler add GPU nodes, or lower the pods' GPU requests.",
                 "kube-scheduler NodeResourcesFit: \"Insufficient nvidia.com/gpu\" in FailedScheduling"},
    CatalogEntry{GS102, "untolerated-gpu-taint", error,
                 "a pending GPU pod does not tolerate a taint that every fitting GPU node carries",
                 "GPU nodes are usually tainted so that only GPU workloads land on them; a GPU pod without the matching toleration can never be placed there.",
                 "Add a toleration for the taint to the workload (`kubectl gpuslice workloads tolerate` or edit the Deployment's pod template).",
                 "Kubernetes taints and tolerations; kube-scheduler TaintToleration plugin"},
    CatalogEntry{GS103, "gpu-selector-mismatch", error,
                 "a pending GPU pod's nodeSelector/affinity matches no GPU node",
                 "A nodeSelector or node affinity that no GPU node satisfies keeps the pod Pending forever, whatever the capacity.",
                 "Fix the selector to match the GPU nodes' labels (`kubectl get nodes --show-labels`), or label the nodes.",
                 "kube-scheduler NodeAffinity plugin: \"didn't match Pod's node affinity/selector\""},
    CatalogEntry{GS104, "gpu-resource-not-advertised", error,
                 "no node advertises the requested resource (device plugin absent or not registered)",
                 "No node advertises the requested resource, so the scheduler has nowhere to put the pod: the device plugin is absent, broken or not registered with the kubelet.",
                 "Install or repair the NVIDIA device plugin and check that nodes show the resource in `kubectl describe node`.",
                 "Kubernetes device plugin framework; NVIDIA/k8s-device-plugin; awslabs/amazon-eks-ami#2342"},
    CatalogEntry{GS105, "gpu-resource-name-mismatch", error,
                 "pods request one GPU resource name but nodes advertise another (gpu / gpu.shared / MIG)",
                 "Pods ask for one resource name (nvidia.com/gpu) while nodes advertise another (nvidia.com/gpu.shared, nvidia.com/mig-*): to the scheduler they are unrelated resources.",
                 "Request the name the nodes advertise, or turn renameByDefault off in the time-slicing config so nodes keep nvidia.com/gpu.",
                 "NVIDIA device plugin sharing.timeSlicing.renameByDefault; MIG strategies single/mixed"},
    CatalogEntry{GS200, "autoscaler-max-size-reached", error,
                 "cluster-autoscaler: max node group size reached (or max total nodes)",
                 "The cluster-autoscaler would add a node for the pod but the node group is at its maximum size, so nothing will change until someone raises it.",
                 "Raise the node group's maximum (ASG / managed node group max size), or fit more pods per node with time-slicing.",
                 "cluster-autoscaler NotTriggerScaleUp: \"max node group size reached\""},
    CatalogEntry{GS201, "autoscaler-group-selector-mismatch", warning,
                 "cluster-autoscaler: node groups didn't match Pod's node affinity/selector",
                 "The autoscaler's node groups do not match the pod's selector or affinity, so no scale-up can help it; often only the CPU groups are named here, which is expected.",
                 "Make sure a GPU node group's labels match the pod's nodeSelector/affinity (and its template carries them for scale-from-zero).",
                 "cluster-autoscaler NotTriggerScaleUp: \"didn't match Pod's node affinity/selector\""},
    CatalogEntry{GS202, "autoscaler-template-lacks-gpu", error,
                 "cluster-autoscaler: a node group's template has no GPU",
                 "The autoscaler simulates a new node from the group's template; a template without GPUs can never fit a GPU pod, so the group never scales for it.",
                 "Tag the node group for scale-from-zero with the GPU resource (k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu) or use an instance type the autoscaler knows has GPUs.",
                 "cluster-autoscaler FAQ: scale-up from 0 with node-template tags"},
    CatalogEntry{GS203, "autoscaler-backoff", warning,
                 "cluster-autoscaler: node group in backoff / failed scale-up / not ready",
                 "A node group in backoff or failing scale-ups (capacity, quota, launch errors) will not deliver nodes; pods wait for minutes or forever.",
                 "Read the scale-up error in the cluster-autoscaler-status ConfigMap or the cloud console (insufficient capacity, quota) and pick another instance type or zone.",
                 "cluster-autoscaler status ConfigMap (cluster-autoscaler-status): Backoff, ScaleUpFailed"},
    CatalogEntry{GS204, "autoscaler-blind-to-replicas", warning,
                 "time-slicing is on but the autoscaler's node template advertises physical GPUs",
                 "With time-slicing a node offers N slots per GPU, but the autoscaler's template still advertises physical GPUs: it adds one node per pod and over-scales, or refuses a group that would fit.",
                 "Tag each GPU node group's Auto Scaling group with GPUs × replicas (and the GPU label and taint apply set) for scale-from-zero: the finding prints the aws autoscaling create-or-update-tags command with the ASG names from the status map.",
                 "Azure/AKS#3427; kubernetes-sigs/karpenter#729"},
    CatalogEntry{GS300, "time-slicing-disabled", error,
                 "GPU pods are Pending for want of GPUs while GPU nodes advertise only physical GPUs",
                 "Every GPU is held by one pod while more GPU pods wait; small inference pods rarely need a whole GPU, and time-slicing lets several share one.",
                 "Enable NVIDIA time-slicing: `kubectl gpuslice apply --replicas N`. Mind that shares have no memory isolation (GS304).",
                 "NVIDIA device plugin sharing.timeSlicing (replicas >= 2); NVIDIA GPU Operator time-slicing guide"},
    CatalogEntry{GS301, "gpu-slots-exhausted", error,
                 "every GPU slot (after sharing) is allocated: more nodes or replicas are needed",
                 "Even after sharing, every GPU slot is allocated: the pending pods need more slots than exist.",
                 "Add GPU nodes (raise the node group maximum), raise the replicas if memory allows, or reduce the demand.",
                 "kube-scheduler NodeResourcesFit; NVIDIA time-slicing replicas"},
    CatalogEntry{GS302, "replicas-not-advertised", error,
                 "the configured replicas are not reflected in node allocatable (config not picked up)",
                 "A time-slicing config asks for N replicas but nodes still advertise their physical GPU count: the device plugin did not pick the config up, so no sharing happens.",
                 "Check the config name and node label match, then restart the device plugin pods (it does not watch its ConfigMap): `kubectl rollout restart`.",
                 "NVIDIA/k8s-device-plugin#990; NVIDIA/gpu-operator#1144, #529"},
    CatalogEntry{GS303, "non-gpu-pods-on-gpu-nodes", warning,
                 "pods that request no GPU occupy GPU nodes",
                 "Pods that need no GPU take CPU, memory and pod slots on expensive GPU nodes and can crowd out GPU pods.",
                 "Taint GPU nodes with nvidia.com/gpu:NoSchedule (`kubectl gpuslice nodes taint`) and tolerate it only in GPU workloads.",
                 "Kubernetes taints and tolerations (dedicated nodes)"},
    CatalogEntry{GS304, "vram-oversubscription-risk", info,
                 "time-slicing splits a GPU so finely that each share has little memory; no isolation",
                 "Time-slicing gives each share a turn on the GPU, not a slice of its memory: one pod can use all of it and crash its neighbours with out-of-memory errors.",
                 "Keep replicas low enough that each workload's memory fits, limit memory in the application, or use MIG for isolation.",
                 "NVIDIA/k8s-device-plugin#461; NVIDIA time-slicing docs (no memory or fault isolation)"},
    CatalogEntry{GS400, "device-plugin-missing", error, "no NVIDIA device plugin is installed",
                 "Without a device plugin the kubelet advertises no GPUs at all, so no GPU pod can ever be scheduled.",
                 "Install the NVIDIA device plugin (Helm chart nvidia-device-plugin, or the GPU Operator).",
                 "NVIDIA/k8s-device-plugin README; Kubernetes device plugins"},
    CatalogEntry{GS401, "device-plugin-not-on-all-gpu-nodes", error,
                 "the device plugin DaemonSet does not cover every GPU node",
                 "A GPU node without a device plugin pod advertises no GPUs; often the DaemonSet's node affinity (chart >= 0.15) wants a label the node lacks, or it does not tolerate the GPU taint.",
                 "Label the node nvidia.com/gpu.present=true or enable GFD/NFD, and make the DaemonSet tolerate the node's taints.",
                 "NVIDIA/k8s-device-plugin#607 (chart affinity)"},
    CatalogEntry{GS402, "device-plugin-unhealthy", error,
                 "device plugin pods not ready / crash-looping",
                 "Crash-looping or unready plugin pods stop advertising GPUs on their nodes; pods Pending there will not recover on their own.",
                 "Read the plugin's logs (`kubectl logs` on the DaemonSet, all containers) and fix the config or driver problem it names.",
                 "NVIDIA/k8s-device-plugin#1668, #1469"},
    CatalogEntry{GS403, "time-slicing-config-invalid", error,
                 "the time-slicing config fails validation",
                 "An invalid config makes the plugin fail at start-up or ignore the setting silently (keys in the wrong place, replicas < 2).",
                 "Fix the config as the finding says; `kubectl gpuslice apply` writes a valid one.",
                 "NVIDIA device plugin config schema; NVIDIA/k8s-device-plugin#1433, #1022"},
    CatalogEntry{GS404, "time-slicing-config-unused", error,
                 "a time-slicing config exists but the device plugin is not configured to use it",
                 "A time-slicing ConfigMap exists, but the device plugin is not told to read it, so nothing is shared.",
                 "Point the plugin at it (Helm config.name and config.default, or the ClusterPolicy's devicePlugin.config) and restart the plugin pods.",
                 "NVIDIA device plugin Helm chart config.name; NVIDIA/k8s-device-plugin#615"},
    CatalogEntry{GS405, "device-plugin-operator-managed", info,
                 "the device plugin belongs to the GPU Operator: change the ClusterPolicy, not the DaemonSet",
                 "The GPU Operator owns this DaemonSet and reverts direct edits or deletions; configuration goes through its ClusterPolicy.",
                 "Change ClusterPolicy.spec.devicePlugin.config instead of the DaemonSet.",
                 "NVIDIA GPU Operator: ClusterPolicy devicePlugin.config"},
    CatalogEntry{GS406, "multiple-device-plugins", error,
                 "more than one component advertises the same GPU resource",
                 "Two device plugins registering the same resource fight in the kubelet: the last to register wins, and the advertised count flips.",
                 "Remove one of them (keep the one that carries your time-slicing config).",
                 "Kubernetes device plugin registration; Bottlerocket's host plugin; HAMi FAQ #646"},
    CatalogEntry{GS407, "gpu-feature-discovery-missing", warning,
                 "GFD is not running: no product/replica labels",
                 "Without GPU Feature Discovery nodes carry no nvidia.com/gpu.product or replicas labels: selectors, dashboards and this tool see less.",
                 "Enable GFD (Helm gfd.enabled=true, or the GPU Operator).",
                 "NVIDIA gpu-feature-discovery"},
    CatalogEntry{GS408, "gpu-feature-discovery-labels-stale", warning,
                 "GPU nodes carry GFD labels but GFD is not running: the labels are stale",
                 "GFD labels outlive GFD: nvidia.com/gpu.product, gpu.replicas and the rest keep the values of the last GFD run, and mislead selectors, dashboards and checks after the sharing config changes.",
                 "Remove the stale labels (`kubectl label node NODE nvidia.com/gpu.replicas- ...`), or run GFD again (`kubectl gpuslice apply --gfd`).",
                 "NVIDIA gpu-feature-discovery README (labels); reference/nvidia.md §4.1"},
    CatalogEntry{GS500, "gpu-node-missing-present-label", warning,
                 "a GPU node lacks nvidia.com/gpu.present=true",
                 "Chart >= 0.15 schedules the device plugin only on nodes labelled nvidia.com/gpu.present=true (or NFD's PCI label); without it the node never advertises GPUs.",
                 "`kubectl label nodes NODE nvidia.com/gpu.present=true` (or `kubectl gpuslice nodes label`).",
                 "NVIDIA/k8s-device-plugin#607; eksctl-io/eksctl#8866"},
    CatalogEntry{GS501, "gpu-node-untainted", warning,
                 "a GPU node lacks the nvidia.com/gpu NoSchedule taint",
                 "Untainted GPU nodes accept any pod, so CPU pods fill them and GPU pods wait.",
                 "`kubectl taint nodes NODE nvidia.com/gpu=present:NoSchedule` (or `kubectl gpuslice nodes taint`) and add tolerations to GPU workloads.",
                 "Kubernetes taints and tolerations (dedicated nodes)"},
    CatalogEntry{GS502, "gpu-node-not-ready", warning, "a GPU node is NotReady or cordoned",
                 "A NotReady or cordoned GPU node takes no new pods; its GPUs count in capacity but cannot be used.",
                 "Find out why it is NotReady (`kubectl describe node`) or uncordon it.",
                 "Kubernetes node conditions; kubectl cordon/uncordon"},
    CatalogEntry{GS503, "gpu-node-advertises-nothing", error,
                 "a GPU instance type advertises no GPU (driver, toolkit or plugin broken on it)",
                 "A node of a GPU instance type that advertises no GPU has a broken driver, container toolkit or device plugin: you pay for a GPU you cannot use.",
                 "Check the device plugin pod and the driver on that node; replace the node if it does not recover.",
                 "EKS accelerated AMIs; cluster-autoscaler resourceUnready"},
    CatalogEntry{GS600, "workload-lacks-gpu-toleration", error,
                 "a Deployment requesting GPUs does not tolerate the GPU taint",
                 "A GPU Deployment that does not tolerate the GPU taint cannot run on GPU nodes, so every new replica stays Pending.",
                 "Add the toleration to the Deployment (`kubectl gpuslice workloads tolerate`).",
                 "Kubernetes taints and tolerations"},
    CatalogEntry{GS601, "multi-gpu-request-time-sliced", warning,
                 "a pod requests more than one time-sliced GPU",
                 "Asking for several time-sliced GPUs does not give more compute (the shares may be on the same GPU), and failRequestsGreaterThanOne rejects it outright.",
                 "Request one shared GPU per container, or run such pods on unshared GPUs.",
                 "NVIDIA/k8s-device-plugin#321, #491"},
    CatalogEntry{GS602, "selector-on-shared-product-label", error,
                 "a selector pins nvidia.com/gpu.product=X but shared nodes label it X-SHARED",
                 "With time-slicing and renameByDefault off, GFD labels the product with a -SHARED suffix: a selector on the plain product name then matches no node.",
                 "Select on the -SHARED value (or on nvidia.com/gpu.present) instead of the bare product.",
                 "NVIDIA gpu-feature-discovery labels under time-slicing"},
    CatalogEntry{GS603, "gpu-pods-failed-admission", error,
                 "GPU pods failed kubelet admission (UnexpectedAdmissionError) and will not recover",
                 "The scheduler placed the pod but the kubelet refused it when the device plugin's Allocate failed: the pod stays Failed, nothing retries it, and its ReplicaSet makes replacements that fail alike. On a time-sliced GPU the usual cause is a request above 1 (failRequestsGreaterThanOne, or GKE's GPU time-sharing).",
                 "Set the workload's GPU request to 1 (or set failRequestsGreaterThanOne: false, which admits larger requests but gives them no more GPU), then delete the failed pods: `kubectl delete pod -n NS POD…`. Other Allocate errors name the device plugin problem to fix first.",
                 "NVIDIA/k8s-device-plugin: \"maximum request size for shared resources is 1\"; GKE: \"at most 1 nvidia.com/gpu can be requested\"; kubelet UnexpectedAdmissionError"},
    CatalogEntry{GS700, "gpu-metrics-missing", warning,
                 "time-slicing is on but no DCGM exporter is running: VRAM per share is invisible",
                 "Shares of one GPU have no memory isolation; without DCGM metrics nobody sees a GPU nearing full memory before pods crash.",
                 "Install NVIDIA's DCGM exporter and alert on memory and utilisation: `kubectl gpuslice alerts --replicas N`.",
                 "NVIDIA dcgm-exporter: DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_GPU_UTIL"},
    CatalogEntry{GS701, "mig-capable-gpu", info,
                 "the GPUs support MIG, which gives hard isolation that time-slicing lacks",
                 "MIG splits a GPU into partitions with their own memory and faults, which time-slicing cannot give.",
                 "Consider MIG (GPU Operator MIG manager) for memory-hungry or untrusted workloads.",
                 "NVIDIA Multi-Instance GPU user guide"},
    CatalogEntry{GS800, "dra-claim-missing", error,
                 "a pending pod's ResourceClaim (or the template it is made from) does not exist",
                 "The scheduler does not try a pod until every ResourceClaim it names exists, and says nothing while it waits: no FailedScheduling event, only Pending.",
                 "Create the ResourceClaimTemplate or ResourceClaim the pod names (or fix the name); for templates, kube-controller-manager must have DynamicResourceAllocation on to make the claims.",
                 "Kubernetes DRA: pod.spec.resourceClaims, status.resourceClaimStatuses; resource claim controller"},
    CatalogEntry{GS801, "dra-device-class-missing", error,
                 "a claim request names a DeviceClass that does not exist",
                 "A request for devices of a class nobody defined can never be allocated; usually the DRA driver (which creates its classes) is not installed, or the class name is misspelt.",
                 "Install the DRA driver (NVIDIA's creates gpu.nvidia.com and mig.nvidia.com) or use an existing class in deviceClassName.",
                 "Kubernetes DRA: DeviceClass; kube-scheduler DynamicResources plugin"},
    CatalogEntry{GS802, "dra-devices-unavailable", error,
                 "no node has enough free devices that match a claim request (class, selectors, count)",
                 "The scheduler only says \"cannot allocate all claims\". Replaying the request against the ResourceSlices, minus devices other claims hold, says which request fails where: devices taken, selectors that match nothing, or a count no node has.",
                 "Free devices held by idle claims, fix the request's selectors or count, share one named ResourceClaim among pods, or add nodes whose driver publishes such devices.",
                 "kube-scheduler DynamicResources plugin: \"cannot allocate all claims\"; ResourceSlice devices"},
    CatalogEntry{GS803, "dra-gpu-node-without-slices", warning,
                 "a GPU node publishes no GPU to DRA (no ResourceSlice of gpu.nvidia.com) on a cluster that uses it",
                 "DRA GPUs exist only in ResourceSlices that the driver's kubelet plugin publishes per node; a GPU node without one (plugin not running, GPUs unhealthy) takes no DRA pod.",
                 "Check the NVIDIA DRA driver's kubelet-plugin pod on the node and its log; its slices appear in `kubectl get resourceslices`.",
                 "kubernetes-sigs/dra-driver-nvidia-gpu kubelet plugin; ResourceSlice spec.nodeName"},
    CatalogEntry{GS804, "dra-prepare-failed", error,
                 "the kubelet cannot prepare a scheduled pod's DRA claims (FailedPrepareDynamicResources)",
                 "A pod whose claims were allocated is bound to the node but cannot start until the driver's kubelet plugin prepares its devices; when the plugin is not registered there, it never will.",
                 "Check the DRA driver's kubelet-plugin pod on the node (running, registered) and its log.",
                 "kubelet: FailedPrepareDynamicResources \"Failed to prepare dynamic resources: ... DRA driver X is not registered\""},
    CatalogEntry{GS805, "dra-autoscaler-unsupported", error,
                 "the autoscaler will not add nodes for DRA pods (Karpenter ignores DRA requests; cluster-autoscaler runs without DRA)",
                 "Karpenter skips pods with DRA claims (IGNORE_DRA_REQUESTS, its default): no node is added however long they wait. cluster-autoscaler before 1.35 models ResourceClaims only with --enable-dynamic-resource-allocation, off by default.",
                 "Give DRA pods nodes Karpenter does not manage (a static or cluster-autoscaler node group running the DRA driver), or free devices on existing nodes; run cluster-autoscaler with --enable-dynamic-resource-allocation=true (or 1.35+).",
                 "Karpenter: \"pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter\"; cluster-autoscaler flag --enable-dynamic-resource-allocation"},
    CatalogEntry{GS806, "dra-and-device-plugin-on-node", error,
                 "a node's GPUs are advertised by the device plugin and published by the DRA driver at once",
                 "The device plugin and the DRA driver keep separate books: each can give a pod a GPU the other already gave, so two pods share a GPU nobody meant to share.",
                 "Run one GPU allocator per node: keep the device plugin off the DRA driver's nodes (node label + nodeAffinity), or remove one.",
                 "NVIDIA DRA driver for GPUs: the device plugin must not manage the same GPUs"},
    CatalogEntry{GS807, "dra-claim-pinned-elsewhere", error,
                 "a pending pod shares a ResourceClaim allocated on a node that will not take the pod",
                 "A claim's allocation names one node; while other pods hold the claim it stays there, so every pod sharing it must run on that node. The scheduler says \"resourceclaim not available on the node\" for every other node and the node's own refusal (cordon, taint, selector) for that one.",
                 "Make the claim's node accept the pods (uncordon, tolerate its taint, widen the node selection), or give pods that need not share the devices a ResourceClaimTemplate of their own.",
                 "kube-scheduler DynamicResources Filter: \"resourceclaim not available on the node\""},
    CatalogEntry{GS808, "dra-template-sharing-per-pod", error,
                 "a ResourceClaimTemplate configures GPU sharing, but several pods use it and each gets a claim of its own",
                 "A template makes one ResourceClaim per pod: its GpuConfig sharing (TimeSlicing, MPS) shares a GPU among one pod's containers only, so every pod still takes a whole device.",
                 "Create one ResourceClaim with the template's spec and have the pods name it (resourceClaimName) instead of the template.",
                 "NVIDIA DRA driver for GPUs: GpuConfig sharing applies to the devices of one claim"},
};

static_assert(std::is_sorted(k_catalog.begin(), k_catalog.end(),
                             [](const CatalogEntry& a, const CatalogEntry& b) {
                               return a.code < b.code;
                             }),
              "the catalog is sorted by code");

} // namespace

std::string_view to_string(Severity severity) {
  switch (severity) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::info: return "info";
  }
  return "error";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (Severity s : {Severity::error, Severity::warning, Severity::info}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

std::span<const CatalogEntry> catalog() { return k_catalog; }

const CatalogEntry& catalog_entry(FindingCode code) {
  const auto* it = std::lower_bound(
      k_catalog.begin(), k_catalog.end(), code,
      [](const CatalogEntry& e, FindingCode c) { return e.code < c; });
  // Every enumerator is in the table (tested), so this only guards a cast-in value.
  if (it == k_catalog.end() || it->code != code) return k_catalog.front();
  return *it;
}

std::string to_string(FindingCode code) {
  return fmt::format("GS{}", static_cast<int>(code));
}

std::optional<FindingCode> parse_finding_code(std::string_view text) {
  if (text.size() != 5 || std::toupper(static_cast<unsigned char>(text[0])) != 'G' ||
      std::toupper(static_cast<unsigned char>(text[1])) != 'S') {
    return std::nullopt;
  }
  int number = 0;
  const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), number);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  for (const CatalogEntry& e : k_catalog) {
    if (static_cast<int>(e.code) == number) return e.code;
  }
  return std::nullopt;
}

Finding make_finding(FindingCode code, std::string summary) {
  const CatalogEntry& entry = catalog_entry(code);
  Finding f{code, std::string(entry.name), entry.severity, std::move(summary), {}, {}, {}};
  if (f.summary.empty()) f.summary = std::string(entry.summary);
  return f;
}

} // namespace gpuslice::diagnose
