// SPDX-License-Identifier: Apache-2.0
// The Diagnosis JSON contract (DESIGN §4.3). Keys and shapes are public: scripts read them.
#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

#include "report/inventory.hpp"

namespace gpuslice::report {

namespace {

using diagnose::Diagnosis;
using diagnose::Finding;
using diagnose::Reason;
using json = nlohmann::ordered_json;

json reasons_json(const std::vector<Reason>& reasons) {
  json out = json::array();
  for (const Reason& r : reasons) {
    out.push_back({{"count", r.count}, {"reason", r.text}});
  }
  return out;
}

json finding_json(const Finding& f) {
  json objects = json::array();
  for (const auto& o : f.objects) {
    json obj = {{"kind", o.kind}};
    if (!o.ns.empty()) {
      obj["namespace"] = o.ns;
    }
    obj["name"] = o.name;
    objects.push_back(std::move(obj));
  }
  json remedy = {{"text", f.remedy.text}};
  if (!f.remedy.command.empty()) {
    remedy["command"] = f.remedy.command;
  }
  return {{"code", diagnose::to_string(f.code)},
          {"name", f.name},
          {"severity", std::string(diagnose::to_string(f.severity))},
          {"summary", f.summary},
          {"objects", std::move(objects)},
          {"evidence", f.evidence},
          {"remedy", std::move(remedy)}};
}

json pending_pod_json(const diagnose::PendingPod& p) {
  json pod = {{"namespace", p.ns},
              {"name", p.name},
              {"gpuRequest", p.gpu_request},
              {"resource", p.resource}};
  if (!p.scheduler.message.empty()) {
    json scheduler = {{"source", p.scheduler.source},
                      {"scheduler", p.scheduler.scheduler},
                      {"message", p.scheduler.message}};
    if (p.scheduler.parsed) {
      scheduler["nodesTotal"] = p.scheduler.parsed->nodes_total;
      scheduler["reasons"] = reasons_json(p.scheduler.parsed->reasons);
    }
    pod["scheduler"] = std::move(scheduler);
  }
  if (!p.scaler.verdict.empty()) {
    json scaler = {{"verdict", p.scaler.verdict},
                   {"component", p.scaler.component},
                   {"message", p.scaler.message}};
    if (p.scaler.autoscaler) {
      scaler["reasons"] = reasons_json(p.scaler.autoscaler->reasons);
    } else if (p.scaler.karpenter) {
      std::vector<Reason> reasons;
      for (const auto& e : p.scaler.karpenter->errors) {
        reasons.push_back(e.reason);
      }
      scaler["reasons"] = reasons_json(reasons);
    }
    pod["autoscaler"] = std::move(scaler);
  }
  return pod;
}

} // namespace

json diagnosis_to_json(const Diagnosis& diagnosis, const ClusterInfo& cluster) {
  const GpuTotals totals = gpu_totals(diagnosis.nodes);
  json nodes = json::array();
  for (const auto& n : diagnosis.nodes) {
    nodes.push_back(node_json(n));
  }
  json counts = {{"error", 0}, {"warning", 0}, {"info", 0}};
  json findings = json::array();
  for (const auto& f : diagnosis.findings) {
    counts[std::string(diagnose::to_string(f.severity))] =
        counts[std::string(diagnose::to_string(f.severity))].get<int>() + 1;
    findings.push_back(finding_json(f));
  }
  json pending = json::array();
  for (const auto& p : diagnosis.pending_pods) {
    pending.push_back(pending_pod_json(p));
  }
  return {{"apiVersion", "gpuslice/v1alpha1"},
          {"kind", "Diagnosis"},
          {"cluster", {{"context", cluster.context}, {"server", cluster.server}}},
          {"summary",
           {{"pendingGpuPods", diagnosis.pending_pods.size()},
            {"gpuNodes", diagnosis.nodes.size()},
            {"physicalGpus", totals.physical},
            {"gpuSlots", totals.slots},
            {"gpuSlotsRequested", totals.requested},
            {"findings", std::move(counts)}}},
          {"findings", std::move(findings)},
          {"nodes", std::move(nodes)},
          {"pendingPods", std::move(pending)},
          {"notes", diagnosis.notes}};
}

std::optional<Format> parse_format(std::string_view text) {
  if (text.empty() || text == "table") return Format::table;
  if (text == "json") return Format::json;
  if (text == "yaml") return Format::yaml;
  return std::nullopt;
}

std::string render_diagnosis(const Diagnosis& diagnosis, const ClusterInfo& cluster, Format format,
                             const Style& style) {
  switch (format) {
  case Format::json: return diagnosis_to_json(diagnosis, cluster).dump(2) + "\n";
  case Format::yaml: return to_yaml(diagnosis_to_json(diagnosis, cluster));
  case Format::table: break;
  }
  return render_diagnosis_table(diagnosis, cluster, style);
}

} // namespace gpuslice::report
