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
                 "pods requesting a GPU resource are Pending (unscheduled)"},
    CatalogEntry{GS101, "insufficient-gpu", error,
                 "the scheduler reports Insufficient <gpu resource>"},
    CatalogEntry{GS102, "untolerated-gpu-taint", error,
                 "a pending GPU pod does not tolerate a taint that every fitting GPU node carries"},
    CatalogEntry{GS103, "gpu-selector-mismatch", error,
                 "a pending GPU pod's nodeSelector/affinity matches no GPU node"},
    CatalogEntry{GS104, "gpu-resource-not-advertised", error,
                 "no node advertises the requested resource (device plugin absent or not registered)"},
    CatalogEntry{GS105, "gpu-resource-name-mismatch", error,
                 "pods request one GPU resource name but nodes advertise another (gpu / gpu.shared / MIG)"},
    CatalogEntry{GS200, "autoscaler-max-size-reached", error,
                 "cluster-autoscaler: max node group size reached (or max total nodes)"},
    CatalogEntry{GS201, "autoscaler-group-selector-mismatch", warning,
                 "cluster-autoscaler: node groups didn't match Pod's node affinity/selector"},
    CatalogEntry{GS202, "autoscaler-template-lacks-gpu", error,
                 "cluster-autoscaler: a node group's template has no GPU"},
    CatalogEntry{GS203, "autoscaler-backoff", warning,
                 "cluster-autoscaler: node group in backoff / failed scale-up / not ready"},
    CatalogEntry{GS204, "autoscaler-blind-to-replicas", warning,
                 "time-slicing is on but the autoscaler's node template advertises physical GPUs"},
    CatalogEntry{GS300, "time-slicing-disabled", error,
                 "GPU pods are Pending for want of GPUs while GPU nodes advertise only physical GPUs"},
    CatalogEntry{GS301, "gpu-slots-exhausted", error,
                 "every GPU slot (after sharing) is allocated: more nodes or replicas are needed"},
    CatalogEntry{GS302, "replicas-not-advertised", error,
                 "the configured replicas are not reflected in node allocatable (config not picked up)"},
    CatalogEntry{GS303, "non-gpu-pods-on-gpu-nodes", warning,
                 "pods that request no GPU occupy GPU nodes"},
    CatalogEntry{GS304, "vram-oversubscription-risk", info,
                 "time-slicing splits a GPU so finely that each share has little memory; no isolation"},
    CatalogEntry{GS400, "device-plugin-missing", error, "no NVIDIA device plugin is installed"},
    CatalogEntry{GS401, "device-plugin-not-on-all-gpu-nodes", error,
                 "the device plugin DaemonSet does not cover every GPU node"},
    CatalogEntry{GS402, "device-plugin-unhealthy", error,
                 "device plugin pods not ready / crash-looping"},
    CatalogEntry{GS403, "time-slicing-config-invalid", error,
                 "the time-slicing config fails validation"},
    CatalogEntry{GS404, "time-slicing-config-unused", error,
                 "a time-slicing config exists but the device plugin is not configured to use it"},
    CatalogEntry{GS405, "device-plugin-operator-managed", info,
                 "the device plugin belongs to the GPU Operator: change the ClusterPolicy, not the DaemonSet"},
    CatalogEntry{GS406, "multiple-device-plugins", error,
                 "more than one component advertises the same GPU resource"},
    CatalogEntry{GS407, "gpu-feature-discovery-missing", warning,
                 "GFD is not running: no product/replica labels"},
    CatalogEntry{GS500, "gpu-node-missing-present-label", warning,
                 "a GPU node lacks nvidia.com/gpu.present=true"},
    CatalogEntry{GS501, "gpu-node-untainted", warning,
                 "a GPU node lacks the nvidia.com/gpu NoSchedule taint"},
    CatalogEntry{GS502, "gpu-node-not-ready", warning, "a GPU node is NotReady or cordoned"},
    CatalogEntry{GS503, "gpu-node-advertises-nothing", error,
                 "a GPU instance type advertises no GPU (driver, toolkit or plugin broken on it)"},
    CatalogEntry{GS600, "workload-lacks-gpu-toleration", error,
                 "a Deployment requesting GPUs does not tolerate the GPU taint"},
    CatalogEntry{GS601, "multi-gpu-request-time-sliced", warning,
                 "a pod requests more than one time-sliced GPU"},
    CatalogEntry{GS602, "selector-on-shared-product-label", error,
                 "a selector pins nvidia.com/gpu.product=X but shared nodes label it X-SHARED"},
    CatalogEntry{GS700, "gpu-metrics-missing", warning,
                 "time-slicing is on but no DCGM exporter is running: VRAM per share is invisible"},
    CatalogEntry{GS701, "mig-capable-gpu", info,
                 "the GPUs support MIG, which gives hard isolation that time-slicing lacks"},
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
