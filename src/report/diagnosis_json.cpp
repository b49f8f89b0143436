// SPDX-License-Identifier: Apache-2.0
// The Diagnosis JSON contract (DESIGN §4.3). Keys and shapes are public: scripts read them.
#include <ostream>

#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

#include "report/inventory.hpp"
#include "report/json_text_writer.hpp"

namespace gpuslice::report {

namespace {

using diagnose::Diagnosis;
using diagnose::Finding;
using diagnose::Reason;

// The producers below take any sink with JsonTextWriter's calls (the text writer or the tree
// builder), so -o json and the tree share one description of the shape.
template <class Sink>
void write_reasons(Sink& out, const std::vector<Reason>& reasons) {
  out.begin_array();
  for (const Reason& r : reasons) {
    out.begin_object();
    out.key("count");
    out.integer(r.count);
    out.key("reason");
    out.string(r.text);
    out.end_object();
  }
  out.end_array();
}

template <class Sink>
void write_finding(Sink& out, const Finding& f) {
  out.begin_object();
  write_strings(out, {{"code", diagnose::to_string(f.code)},
                      {"name", f.name},
                      {"severity", diagnose::to_string(f.severity)},
                      {"summary", f.summary}});
  out.key("objects");
  out.begin_array();
  for (const auto& o : f.objects) {
    out.begin_object();
    out.key("kind");
    out.string(o.kind);
    if (!o.ns.empty()) {
      out.key("namespace");
      out.string(o.ns);
    }
    out.key("name");
    out.string(o.name);
    out.end_object();
  }
  out.end_array();
  out.key("evidence");
  out.strings(f.evidence);
  out.key("remedy");
  out.begin_object();
  out.key("text");
  out.string(f.remedy.text);
  if (!f.remedy.command.empty()) {
    out.key("command");
    out.string(f.remedy.command);
  }
  out.end_object();
  out.end_object();
}

template <class Sink>
void write_scheduler(Sink& out, const diagnose::SchedulerVerdict& s) {
  out.begin_object();
  write_strings(out, {{"source", s.source}, {"scheduler", s.scheduler}, {"message", s.message}});
  if (s.parsed) {
    out.key("nodesTotal");
    out.integer(s.parsed->nodes_total);
    out.key("reasons");
    write_reasons(out, s.parsed->reasons);
  }
  out.end_object();
}

template <class Sink>
void write_scaler(Sink& out, const diagnose::ScalerVerdict& s) {
  out.begin_object();
  write_strings(out, {{"verdict", s.verdict}, {"component", s.component}, {"message", s.message}});
  if (s.autoscaler) {
    out.key("reasons");
    write_reasons(out, s.autoscaler->reasons);
  } else if (s.karpenter) {
    std::vector<Reason> reasons;
    for (const auto& e : s.karpenter->errors) {
      reasons.push_back(e.reason);
    }
    out.key("reasons");
    write_reasons(out, reasons);
  }
  out.end_object();
}

template <class Sink>
void write_pending_pod(Sink& out, const diagnose::PendingPod& p) {
  out.begin_object();
  write_strings(out, {{"namespace", p.ns}, {"name", p.name}});
  out.key("gpuRequest");
  out.integer(p.gpu_request);
  out.key("resource");
  out.string(p.resource);
  if (!p.scheduler.message.empty()) {
    out.key("scheduler");
    write_scheduler(out, p.scheduler);
  }
  if (!p.scaler.verdict.empty()) {
    out.key("autoscaler");
    write_scaler(out, p.scaler);
  }
  out.end_object();
}

template <class Sink>
void write_diagnosis(Sink& out, const Diagnosis& diagnosis, const ClusterInfo& cluster) {
  const GpuTotals totals = gpu_totals(diagnosis.nodes);
  long long by_severity[3] = {0, 0, 0}; // error, warning, info
  for (const auto& f : diagnosis.findings) {
    const std::string_view severity = diagnose::to_string(f.severity);
    ++by_severity[severity == "error" ? 0 : severity == "warning" ? 1 : 2];
  }
  out.begin_object();
  write_strings(out, {{"apiVersion", "gpuslice/v1alpha1"}, {"kind", "Diagnosis"}});
  out.key("cluster");
  write_cluster(out, cluster);
  out.key("summary");
  out.begin_object();
  write_integers(out, {{"pendingGpuPods", static_cast<long long>(diagnosis.pending_pods.size())},
                       {"gpuNodes", static_cast<long long>(diagnosis.nodes.size())},
                       {"physicalGpus", totals.physical},
                       {"gpuSlots", totals.slots},
                       {"gpuSlotsRequested", totals.requested}});
  if (!totals.mig.empty()) { // MIG slices are not GPU slots: apart, per profile, on MIG clusters only
    out.key("migSlots");
    write_mig(out, totals.mig);
  }
  if (totals.dra.devices > 0) { // DRA GPUs are claimed, not slots: apart, on DRA clusters only
    out.key("draGpus");
    write_dra(out, totals.dra);
  }
  out.key("findings");
  out.begin_object();
  write_integers(out, {{"error", by_severity[0]}, {"warning", by_severity[1]}, {"info", by_severity[2]}});
  out.end_object();
  out.end_object();
  out.key("findings");
  out.begin_array();
  for (const auto& f : diagnosis.findings) write_finding(out, f);
  out.end_array();
  out.key("nodes");
  out.begin_array();
  for (const auto& n : diagnosis.nodes) write_node(out, n);
  out.end_array();
  out.key("pendingPods");
  out.begin_array();
  for (const auto& p : diagnosis.pending_pods) write_pending_pod(out, p);
  out.end_array();
  out.key("notes");
  out.strings(diagnosis.notes);
  out.end_object();
}

// -o json without a tree; text that is not UTF-8 takes the tree's path, whose dump throws
// nlohmann's own error for it.
std::string diagnosis_json_text(const Diagnosis& diagnosis, const ClusterInfo& cluster) {
  try {
    JsonTextWriter out;
    write_diagnosis(out, diagnosis, cluster);
    return out.take() + "\n";
  } catch (const InvalidUtf8&) {
    return diagnosis_to_json(diagnosis, cluster).dump(2) + "\n";
  }
}

// -o json streamed to `sink` as it is written (the text of a live read at L is ~5 MB, which
// held whole, and then copied with its newline, was the last 11 MB of diagnose's peak RSS).
// Checked for UTF-8 first, so bad text gives the tree's error before any byte is written.
void stream_diagnosis_json(std::ostream& sink, const Diagnosis& diagnosis, const ClusterInfo& cluster) {
  try {
    JsonUtf8Check check;
    write_diagnosis(check, diagnosis, cluster);
  } catch (const InvalidUtf8&) {
    sink << diagnosis_to_json(diagnosis, cluster).dump(2) << '\n';
    return;
  }
  JsonTextWriter out(sink);
  write_diagnosis(out, diagnosis, cluster);
  out.flush();
  sink << '\n';
}

} // namespace

nlohmann::ordered_json diagnosis_to_json(const Diagnosis& diagnosis, const ClusterInfo& cluster) {
  JsonTreeBuilder out;
  write_diagnosis(out, diagnosis, cluster);
  return out.take();
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
  case Format::json: return diagnosis_json_text(diagnosis, cluster);
  case Format::yaml: return to_yaml(diagnosis_to_json(diagnosis, cluster));
  case Format::table: break;
  }
  return render_diagnosis_table(diagnosis, cluster, style);
}

void print_diagnosis(std::ostream& out, const Diagnosis& diagnosis, const ClusterInfo& cluster, Format format,
                     const Style& style) {
  if (format == Format::json) return stream_diagnosis_json(out, diagnosis, cluster);
  out << render_diagnosis(diagnosis, cluster, format, style);
}

} // namespace gpuslice::report
