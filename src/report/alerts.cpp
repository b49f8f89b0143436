// SPDX-License-Identifier: Apache-2.0
// The PrometheusRule `alerts` prints or applies. Time-slicing shares a GPU's memory with no
// isolation (NVIDIA/k8s-device-plugin#461), so the alert that matters is "memory nearly full
// on a shared GPU", with a threshold that tightens as more pods share one GPU. DCGM cannot
// attribute metrics to pods under time-slicing, so every rule is per GPU (Hostname, gpu).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

namespace {

using nlohmann::ordered_json;

// Sustained use above this is saturation: the shares queue for the GPU.
constexpr int k_saturation_percent = 90;
// Above this a single allocation can fail: out-of-memory errors are imminent.
constexpr double k_memory_exhausted = 0.98;

ordered_json alert_rule(const std::string& name, const std::string& expr, const std::string& duration,
                        const std::string& severity, const std::string& summary, const std::string& description) {
  ordered_json rule;
  rule["alert"] = name;
  rule["expr"] = expr;
  rule["for"] = duration;
  rule["labels"] = {{"severity", severity}};
  rule["annotations"] = {{"summary", summary}, {"description", description}};
  return rule;
}

std::string memory_used_fraction() {
  return "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)";
}

} // namespace

double memory_alert_threshold(int replicas) {
  const double shares = std::max(1, replicas);
  const double threshold = std::max(0.75, 1.0 - 1.0 / (2.0 * shares));
  return std::round(threshold * 10000.0) / 10000.0; // a readable number in the rule
}

nlohmann::ordered_json prometheus_rule(const AlertRuleOptions& options) {
  const int replicas = std::max(1, options.replicas);
  const double threshold = memory_alert_threshold(replicas);
  const std::string sharing = replicas > 1 ? fmt::format("shared by up to {} pods (time-slicing, no memory isolation)", replicas)
                                           : std::string("not shared");
  ordered_json rules = ordered_json::array();
  rules.push_back(alert_rule(
      "GpuMemoryNearlyFull", fmt::format("{} > {}", memory_used_fraction(), threshold), "5m", "warning",
      "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} has less than half a share of memory left",
      fmt::format("{{{{ $value | humanizePercentage }}}} of the GPU's memory is in use. The GPU is {}; at {} replicas one "
                  "share is {}% of its memory, so the next pod to allocate may fail with out-of-memory.",
                  sharing, replicas, 100 / replicas)));
  rules.push_back(alert_rule(
      "GpuMemoryExhausted", fmt::format("{} > {}", memory_used_fraction(), k_memory_exhausted), "1m", "critical",
      "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} is out of memory",
      fmt::format("{{{{ $value | humanizePercentage }}}} of the GPU's memory is in use. With time-slicing one pod can take "
                  "memory from its neighbours: lower the replicas or move memory-hungry pods to unshared or MIG GPUs.")));
  rules.push_back(alert_rule(
      "GpuSaturated", fmt::format("avg_over_time(DCGM_FI_DEV_GPU_UTIL[15m]) > {}", k_saturation_percent), "15m",
      "warning", "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} has been saturated for 15 minutes",
      fmt::format("Utilisation {{{{ $value }}}}% for 15 minutes. The GPU is {}; when busy, each of {} pods gets about "
                  "{}% of it: expect higher latency, or add GPUs.",
                  sharing, replicas, 100 / replicas)));
  rules.push_back(alert_rule("GpuMetricsAbsent", "absent(DCGM_FI_DEV_GPU_UTIL)", "10m", "warning",
                             "No DCGM exporter metrics: GPU memory and utilisation are invisible",
                             "No series of DCGM_FI_DEV_GPU_UTIL for 10 minutes. Install or repair NVIDIA's DCGM "
                             "exporter (kubectl gpuslice explain GS700)."));

  ordered_json rule;
  rule["apiVersion"] = "monitoring.coreos.com/v1";
  rule["kind"] = "PrometheusRule";
  rule["metadata"]["name"] = options.name;
  rule["metadata"]["namespace"] = options.ns;
  ordered_json labels = {{"app.kubernetes.io/managed-by", "kubectl-gpuslice"}};
  for (const auto& [key, value] : options.labels) labels[key] = value;
  rule["metadata"]["labels"] = labels;
  rule["metadata"]["annotations"] = {{"gpuslice.dev/replicas", std::to_string(replicas)}};
  ordered_json group;
  group["name"] = "gpuslice.gpu";
  group["rules"] = rules;
  rule["spec"]["groups"] = ordered_json::array();
  rule["spec"]["groups"].push_back(group);
  return rule;
}

} // namespace gpuslice::report
