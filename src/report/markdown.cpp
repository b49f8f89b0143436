// SPDX-License-Identifier: Apache-2.0
// diagnose -o markdown: the summary an SRE pastes into an incident ticket or a chat thread.
// Same facts as the table report, in GitHub-flavoured Markdown, no colour.
#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/report.hpp>

#include "report/inventory.hpp"

namespace gpuslice::report {

namespace {

using diagnose::Diagnosis;
using diagnose::Finding;
using diagnose::Severity;

// A table cell: pipes escaped, line breaks flattened, so one value never breaks the table.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_reasons(const std::vector<diagnose::Reason>& reasons) {
  std::string out;
  for (const diagnose::Reason& r : reasons) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", r.count, r.text);
  }
  return out;
}

std::string markdown_scheduler_cell(const diagnose::PendingPod& pod) {
  if (pod.scheduler.parsed && !pod.scheduler.parsed->reasons.empty()) {
    return fmt::format("0/{} nodes: {}", pod.scheduler.parsed->nodes_total,
                       markdown_reasons(pod.scheduler.parsed->reasons));
  }
  return pod.scheduler.message.empty() ? "—" : pod.scheduler.message;
}

std::string markdown_scaler_cell(const diagnose::PendingPod& pod) {
  if (pod.scaler.verdict.empty()) return "—";
  if (pod.scaler.autoscaler && !pod.scaler.autoscaler->reasons.empty()) {
    return fmt::format("{}: {}", pod.scaler.verdict, markdown_reasons(pod.scaler.autoscaler->reasons));
  }
  return fmt::format("{}: {}", pod.scaler.verdict, pod.scaler.message);
}

void markdown_findings(const Diagnosis& d, std::string& out) {
  if (d.findings.empty()) {
    out += "No findings.\n";
    return;
  }
  out += "| severity | code | finding |\n|---|---|---|\n";
  for (const Finding& f : d.findings) {
    out += fmt::format("| {} | {} {} | {} |\n", diagnose::to_string(f.severity), diagnose::to_string(f.code), f.name,
                       markdown_cell(f.summary));
  }
  for (const Finding& f : d.findings) {
    out += fmt::format("\n### {} {} ({})\n\n{}\n", diagnose::to_string(f.code), f.name,
                       diagnose::to_string(f.severity), f.summary);
    if (!f.evidence.empty()) out += "\n";
    for (const std::string& e : f.evidence) out += fmt::format("- {}\n", e);
    if (!f.remedy.text.empty()) out += fmt::format("\n**Fix:** {}\n", f.remedy.text);
    if (!f.remedy.command.empty()) out += fmt::format("\n```sh\n{}\n```\n", f.remedy.command);
  }
}

void markdown_nodes(const Diagnosis& d, std::string& out) {
  out += "\n### GPU nodes\n\n";
  if (d.nodes.empty()) {
    out += "No GPU nodes.\n";
    return;
  }
  // A MIG column only where some node has MIG slices, as in the text table.
  const bool any_mig = std::any_of(d.nodes.begin(), d.nodes.end(), [](const auto& n) { return !n.mig.empty(); });
  const bool any_dra = std::any_of(d.nodes.begin(), d.nodes.end(), [](const auto& n) { return n.dra.devices > 0; });
  out += fmt::format("| node | instance type | GPU | physical | replicas | allocatable | requested | free |{}{} taints |\n"
                     "|---|---|---|---:|---:|---:|---:|---:|{}{}---|\n",
                     any_mig ? " MIG |" : "", any_dra ? " DRA |" : "", any_mig ? "---|" : "", any_dra ? "---|" : "");
  for (const diagnose::NodeInventory& n : d.nodes) {
    std::string taints;
    for (const std::string& t : n.taints) taints += (taints.empty() ? "" : ", ") + t;
    const std::string mig = any_mig ? fmt::format(" {} |", markdown_cell(mig_slots_text(n.mig))) : "";
    const std::string dra = any_dra ? fmt::format(" {} |", dra_gpus_text(n.dra)) : "";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |{}{} {} |\n", markdown_cell(n.name),
                       markdown_cell(n.instance_type), markdown_cell(n.gpu_product), n.physical_gpus, n.replicas,
                       n.allocatable, n.requested, n.free, mig, dra, markdown_cell(taints));
  }
}

void markdown_pending(const Diagnosis& d, std::string& out) {
  if (d.pending_pods.empty()) return;
  out += "\n### Pending GPU pods\n\n| pod | request | scheduler | autoscaler |\n|---|---|---|---|\n";
  for (const diagnose::PendingPod& p : d.pending_pods) {
    out += fmt::format("| {}/{} | {} {} | {} | {} |\n", markdown_cell(p.ns), markdown_cell(p.name), p.gpu_request,
                       markdown_cell(p.resource), markdown_cell(markdown_scheduler_cell(p)), markdown_cell(markdown_scaler_cell(p)));
  }
}

} // namespace

std::optional<DocumentFormat> parse_document_format(std::string_view text) {
  if (text == "markdown" || text == "md") return DocumentFormat::markdown;
  if (text == "junit") return DocumentFormat::junit;
  return std::nullopt;
}

std::vector<std::string> output_format_names() { return {"table", "json", "yaml", "markdown", "junit"}; }

std::string render_diagnosis_markdown(const Diagnosis& d, const ClusterInfo& cluster) {
  std::size_t counts[3] = {0, 0, 0};
  for (const Finding& f : d.findings) ++counts[static_cast<int>(f.severity)];
  const std::string pods = d.pending_pods.empty() ? std::string("No GPU pods Pending")
                                                  : fmt::format("{} GPU pod(s) Pending", d.pending_pods.size());
  std::string out = fmt::format("## GPU diagnosis: {}{}\n\n", pods,
                                cluster.context.empty() ? "" : fmt::format(" (context `{}`)", cluster.context));
  const GpuTotals totals = gpu_totals(d.nodes);
  out += fmt::format("**{} error(s), {} warning(s), {} info** · {} GPU node(s) · {} physical GPU(s) · "
                     "{} of {} GPU slot(s) requested\n\n",
                     counts[0], counts[1], counts[2], d.nodes.size(), totals.physical, totals.requested, totals.slots);
  if (!totals.mig.empty()) out.insert(out.size() - 2, fmt::format(" · MIG slices (not GPU slots): {}", mig_slots_text(totals.mig)));
  if (totals.dra.devices > 0) out.insert(out.size() - 2, fmt::format(" · DRA GPUs (claimed, not slots): {}", dra_gpus_text(totals.dra)));
  markdown_findings(d, out);
  markdown_nodes(d, out);
  markdown_pending(d, out);
  if (!d.notes.empty()) {
    out += "\n### Notes\n\n";
    for (const std::string& n : d.notes) out += fmt::format("- {}\n", n);
  }
  out += "\n<sub>kubectl gpuslice diagnose -o markdown</sub>\n";
  return out;
}

std::string render_diagnosis_document(const Diagnosis& d, const ClusterInfo& cluster, DocumentFormat format) {
  return format == DocumentFormat::junit ? render_diagnosis_junit(d, cluster) : render_diagnosis_markdown(d, cluster);
}

} // namespace gpuslice::report
