// SPDX-License-Identifier: Apache-2.0
// Cluster-wide checks: GPU workloads tolerate the GPU taint, formerly Pending GPU pods are
// scheduled, and the autoscaler's node templates agree with the replicas.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include <gpuslice/diagnose.hpp>

#include "remedy/verify_checks.hpp"

namespace gpuslice::remedy::verify_checks {

namespace {

bool verify_asks_for_gpu(const model::PodSpec& spec) {
  return model::gpu_units(model::effective_gpu_requests(spec)) > 0;
}

// A pod of the workload, scheduled ones first: its tolerations are the ones admission really
// gave (EKS's ExtendedResourceToleration adds nvidia.com/gpu to pods, not to the template).
const model::Pod* verify_admitted_pod_of(const Snapshot& snapshot, const model::Workload& w) {
  if (!w.selector || w.selector->requirements.empty()) return nullptr;
  const model::Pod* found = nullptr;
  for (const model::Pod& pod : snapshot.pods) {
    if (pod.meta.ns != w.meta.ns || !model::selector_matches(*w.selector, pod.meta.labels)) continue;
    if (!found || (found->spec.node_name.empty() && !pod.spec.node_name.empty())) found = &pod;
  }
  return found;
}

std::string verify_kind_word(std::string kind) {
  std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return kind;
}

} // namespace

void check_workloads(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows) {
  if (!options.taint) {
    rows.push_back({std::string(k_check_workload_toleration), "cluster", CheckResult::skipped, "", "", "no --taint given"});
    return;
  }
  const std::string taint = model::to_string(*options.taint);
  for (const auto* list : {&snapshot.deployments, &snapshot.statefulsets}) {
    for (const model::Workload& w : *list) {
      if (!verify_asks_for_gpu(w.pod_template.spec)) continue;
      const std::string kind = verify_kind_word(w.kind.empty() ? "Deployment" : w.kind);
      CheckRow row{std::string(k_check_workload_toleration), fmt::format("{}/{}/{}", kind, w.meta.ns, w.meta.name),
                   CheckResult::pass, "tolerates " + taint, "", ""};
      const model::Pod* pod = verify_admitted_pod_of(snapshot, w);
      const bool ok = model::tolerated(pod ? pod->spec.tolerations : w.pod_template.spec.tolerations, *options.taint);
      row.actual = ok ? "tolerated" : "not tolerated";
      row.detail = pod ? fmt::format("judged on pod {} (tolerations as admitted)", pod->meta.name)
                       : std::string("judged on the pod template");
      if (!ok) {
        row.result = CheckResult::fail;
        row.detail = fmt::format("kubectl -n {} patch {} {} --type json -p '[{{\"op\":\"add\",\"path\":"
                                 "\"/spec/template/spec/tolerations/-\",\"value\":{{\"key\":\"{}\",\"operator\":"
                                 "\"Exists\",\"effect\":\"{}\"}}}}]'",
                                 w.meta.ns, kind, w.meta.name, options.taint->key, options.taint->effect);
        if (w.pod_template.spec.tolerations.empty()) {
          // "add …/tolerations/-" needs the list: create it instead.
          row.detail = fmt::format("kubectl -n {} patch {} {} --type json -p '[{{\"op\":\"add\",\"path\":"
                                   "\"/spec/template/spec/tolerations\",\"value\":[{{\"key\":\"{}\",\"operator\":"
                                   "\"Exists\",\"effect\":\"{}\"}}]}}]'",
                                   w.meta.ns, kind, w.meta.name, options.taint->key, options.taint->effect);
        }
      }
      rows.push_back(std::move(row));
    }
  }
}

void check_pending(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows) {
  const std::size_t first = rows.size();
  std::set<std::string> listed;
  for (const std::string& key : options.formerly_pending) {
    listed.insert(key);
    CheckRow row{std::string(k_check_pending_scheduled), "pod/" + key, CheckResult::pass, "scheduled", "", ""};
    const auto it = std::find_if(snapshot.pods.begin(), snapshot.pods.end(),
                                 [&](const model::Pod& p) { return p.meta.ns + "/" + p.meta.name == key; });
    if (it == snapshot.pods.end()) {
      row.result = CheckResult::unknown;
      row.actual = "gone";
      row.detail = "the pod no longer exists (deleted or replaced); its replacement is checked below if Pending";
    } else if (it->is_unscheduled()) {
      row.result = CheckResult::fail;
      row.actual = "Pending";
      row.detail = fmt::format("kubectl -n {} describe pod {}", it->meta.ns, it->meta.name);
    } else {
      row.actual = "on " + it->spec.node_name;
    }
    rows.push_back(std::move(row));
  }
  std::vector<const model::Pod*> pending;
  for (const model::Pod& pod : snapshot.pods)
    if (pod.is_unscheduled() && verify_asks_for_gpu(pod.spec) && !listed.contains(pod.meta.ns + "/" + pod.meta.name))
      pending.push_back(&pod);
  std::sort(pending.begin(), pending.end(), [](const model::Pod* a, const model::Pod* b) {
    return std::tie(a->meta.ns, a->meta.name) < std::tie(b->meta.ns, b->meta.name);
  });
  for (const model::Pod* pod : pending)
    rows.push_back({std::string(k_check_pending_scheduled), fmt::format("pod/{}/{}", pod->meta.ns, pod->meta.name),
                    CheckResult::fail, "scheduled", "Pending",
                    fmt::format("kubectl gpuslice diagnose -n {}", pod->meta.ns)});
  if (rows.size() == first)
    rows.push_back({std::string(k_check_pending_scheduled), "cluster", CheckResult::pass, "no GPU pod Pending",
                    "none Pending", ""});
}

void check_autoscaler(const Snapshot& snapshot, const VerifyOptions& options, std::vector<CheckRow>& rows) {
  CheckRow row{std::string(k_check_autoscaler_template), "cluster", CheckResult::pass, "", "", ""};
  const bool present = snapshot.autoscaler_status.has_value() ||
                       std::any_of(snapshot.events.begin(), snapshot.events.end(),
                                   [](const model::Event& e) { return e.component() == "cluster-autoscaler"; });
  if (!present) {
    row.result = CheckResult::skipped;
    row.detail = "no cluster-autoscaler seen";
    rows.push_back(std::move(row));
    return;
  }
  row.expected = fmt::format("GPU templates advertise physical × {}", options.replicas);
  diagnose::AnalyzeOptions analyze_options;
  analyze_options.replicas = options.replicas;
  const diagnose::Diagnosis diagnosis = diagnose::analyze(snapshot, analyze_options);
  const auto lacks_gpu = std::find_if(diagnosis.findings.begin(), diagnosis.findings.end(), [](const diagnose::Finding& f) {
    return f.code == diagnose::FindingCode::GS202;
  });
  if (lacks_gpu != diagnosis.findings.end()) {
    row.result = CheckResult::fail;
    row.actual = "a template has no GPU";
    row.detail = lacks_gpu->remedy.command.empty() ? lacks_gpu->summary : lacks_gpu->remedy.command;
  } else if (options.replicas > 1) {
    // Scale-from-zero templates come from the instance type (physical GPUs) unless the node
    // group carries a resources tag; the snapshot cannot see cloud tags.
    row.result = CheckResult::unknown;
    row.actual = "not visible in the cluster";
    row.detail = fmt::format("tag each GPU node group k8s.io/cluster-autoscaler/node-template/resources/"
                             "nvidia.com/gpu=<GPUs per node × {}>", options.replicas);
  } else {
    row.actual = "physical GPUs";
  }
  rows.push_back(std::move(row));
}

} // namespace gpuslice::remedy::verify_checks
