// SPDX-License-Identifier: Apache-2.0
// Runs every analyzer over one Context and orders the findings: worst severity first, then
// by code, so the first line a paged SRE reads is the most pressing one.
#include <algorithm>

#include <fmt/format.h>

#include <gpuslice/snapshot.hpp>

#include "analyzers.hpp"

namespace gpuslice::diagnose {

Diagnosis analyze(const Snapshot& snapshot, const AnalyzeOptions& options) {
  Context ctx = make_context(snapshot, options);
  Diagnosis d;
  for (auto* analyzer : {find_scheduling, find_autoscaler, find_sharing, find_device_plugin, find_nodes,
                         find_workloads, find_observability}) {
    analyzer(ctx, d.findings);
  }
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    return a.severity != b.severity ? a.severity < b.severity : a.code < b.code;
  });

  // The node and pod views move into the diagnosis once every analyzer has read them (copies
  // of 2,000 pending pods' verdicts were ~4 MB at bench scenario L).
  d.notes = snapshot.meta.notes;
  d.nodes.reserve(ctx.gpu_nodes.size());
  for (GpuNode& n : ctx.gpu_nodes) d.nodes.push_back(std::move(n.inventory));
  d.pending_pods.reserve(ctx.pending.size());
  for (PendingGpuPod& p : ctx.pending) {
    // Unknown wording is kept verbatim in the pending pod; say that it was not understood.
    if (!p.view.scheduler.message.empty() && !p.view.scheduler.parsed) {
      d.notes.push_back(fmt::format("scheduler message for pod {}/{} not understood, shown verbatim: \"{}\"",
                                    p.view.ns, p.view.name, p.view.scheduler.message));
    }
    d.pending_pods.push_back(std::move(p.view));
  }
  if (ctx.gpu_nodes.empty()) {
    d.notes.push_back("no GPU nodes found (no GPU capacity, GPU instance type or GPU label on any node)");
  }
  return d;
}

} // namespace gpuslice::diagnose
