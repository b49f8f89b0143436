// SPDX-License-Identifier: Apache-2.0
// The human diagnosis report: what an SRE reads at 3 a.m. Verdict first, then what to do,
// then the tables that back it up.
#include <fmt/format.h>

#include <gpuslice/report.hpp>

#include "report/inventory.hpp"

namespace gpuslice::report {

namespace {

using diagnose::Diagnosis;
using diagnose::Finding;
using diagnose::Severity;

std::string plural(std::size_t n, const std::string& word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string verdict_line(const Diagnosis& d, const ClusterInfo& cluster, const Style& style) {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  for (const Finding& f : d.findings) {
    (f.severity == Severity::error ? errors : f.severity == Severity::warning ? warnings : infos)++;
  }
  std::string where;
  if (!cluster.context.empty()) {
    where = fmt::format(" (context {})", cluster.context);
  }
  const std::string pods = d.pending_pods.empty()
                                ? std::string("No GPU pods are Pending")
                                : plural(d.pending_pods.size(), "GPU pod") + " Pending";
  const std::string counts = fmt::format("{}, {}, {} info", plural(errors, "error"),
                                         plural(warnings, "warning"), infos);
  const std::string colour = errors > 0 ? "red" : warnings > 0 ? "yellow" : "green";
  return paint(style, colour, paint(style, "bold", pods)) + ": " + counts + where + "\n";
}

std::string severity_heading(Severity s) {
  switch (s) {
  case Severity::error: return "ERRORS";
  case Severity::warning: return "WARNINGS";
  case Severity::info: return "INFO";
  }
  return "";
}

std::string severity_colour(Severity s) {
  return s == Severity::error ? "red" : s == Severity::warning ? "yellow" : "cyan";
}

void render_findings(const Diagnosis& d, const Style& style, std::string& out) {
  for (const Severity s : {Severity::error, Severity::warning, Severity::info}) {
    bool heading_done = false;
    for (const Finding& f : d.findings) {
      if (f.severity != s) {
        continue;
      }
      if (!heading_done) {
        out += "\n" + paint(style, severity_colour(s), severity_heading(s)) + "\n";
        heading_done = true;
      }
      out += fmt::format("  {} {}  {}\n", paint(style, "bold", diagnose::to_string(f.code)),
                         f.name, f.summary);
      for (const std::string& e : f.evidence) {
        out += fmt::format("      {}\n", paint(style, "dim", e));
      }
      if (!f.remedy.text.empty()) {
        out += fmt::format("    fix: {}\n", f.remedy.text);
      }
      if (!f.remedy.command.empty()) {
        out += fmt::format("      $ {}\n", paint(style, "green", f.remedy.command));
      }
    }
  }
}

std::string reason_summary(const std::vector<diagnose::Reason>& reasons) {
  std::string out;
  for (const auto& r : reasons) {
    out += (out.empty() ? "" : ", ") + fmt::format("{} {}", r.count, r.text);
  }
  return out;
}

void render_pending(const Diagnosis& d, const Style& style, std::string& out) {
  if (d.pending_pods.empty()) {
    return;
  }
  out += "\nPENDING GPU PODS\n";
  TextTable table({"namespace", "name", "request", "scheduler", "autoscaler"});
  for (const auto& p : d.pending_pods) {
    std::string scheduler = "-";
    if (p.scheduler.parsed) {
      scheduler = fmt::format("0/{}: {}", p.scheduler.parsed->nodes_total,
                              reason_summary(p.scheduler.parsed->reasons));
    } else if (!p.scheduler.message.empty()) {
      scheduler = p.scheduler.message;
    }
    std::string scaler = "-";
    if (!p.scaler.verdict.empty()) {
      scaler = p.scaler.verdict;
      if (p.scaler.autoscaler && !p.scaler.autoscaler->reasons.empty()) {
        scaler += ": " + reason_summary(p.scaler.autoscaler->reasons);
      }
    }
    table.add_row({p.ns, p.name, fmt::format("{} {}", p.gpu_request, p.resource), scheduler, scaler});
  }
  out += table.render(style);
}

} // namespace

std::string render_diagnosis_table(const Diagnosis& d, const ClusterInfo& cluster,
                                   const Style& style) {
  std::string out = verdict_line(d, cluster, style);
  render_findings(d, style, out);
  out += "\nGPU NODES\n" + render_node_table(d.nodes, style);
  render_pending(d, style, out);
  if (!d.notes.empty()) {
    out += "\nNOTES\n";
    for (const auto& n : d.notes) {
      out += "  " + n + "\n";
    }
  }
  return out;
}

} // namespace gpuslice::report
