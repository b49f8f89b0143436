// SPDX-License-Identifier: Apache-2.0
#include "capacity.hpp"

#include <algorithm>
#include <vector>

namespace gpuslice::diagnose {

namespace {

bool can_take_pods(const GpuNode& n) {
  return n.inventory.ready && n.inventory.schedulable && n.inventory.allocatable > 0;
}

bool insufficient_gpu(const Reason& r) {
  return r.kind == ReasonKind::insufficient_resource && model::is_gpu_resource(r.resource);
}

} // namespace

int usable_physical_gpus(const Context& ctx) {
  int total = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (can_take_pods(n)) total += n.gpus.physical;
  }
  return total;
}

int recommended_replicas(const Context& ctx) {
  if (ctx.options.replicas > 0) return ctx.options.replicas;
  const int physical = usable_physical_gpus(ctx);
  if (physical == 0) return k_min_recommended_replicas;
  long long demand = 0;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (can_take_pods(n)) demand += n.inventory.requested;
  }
  for (const PendingGpuPod& p : ctx.pending) demand += p.view.gpu_request;
  const long long needed = (demand + physical - 1) / physical;
  return static_cast<int>(std::clamp<long long>(needed, k_min_recommended_replicas, k_max_recommended_replicas));
}

int pods_that_fit(const Context& ctx, int replicas) {
  // GPU units free on each node that takes pods, by gpu_nodes position (-1: takes none).
  std::vector<long long> free(ctx.gpu_nodes.size(), -1);
  for (std::size_t i = 0; i < ctx.gpu_nodes.size(); ++i) {
    const GpuNode& n = ctx.gpu_nodes[i];
    if (can_take_pods(n)) {
      free[i] = std::max(0LL, static_cast<long long>(n.gpus.physical) * replicas - n.inventory.requested);
    }
  }
  int placed = 0;
  for (const PendingGpuPod& p : ctx.pending) {
    if (model::gpu_resource_kind(p.view.resource) == model::GpuResourceKind::mig) continue;
    // First fit in name order over the nodes the pod's selector admits and whose taints it tolerates.
    const Placement& placement = ctx.placement(p);
    for (std::size_t k = 0; k < placement.admitted.size(); ++k) {
      long long& units = free[static_cast<std::size_t>(placement.admitted[k] - ctx.gpu_nodes.data())];
      if (units < 0 || units < p.view.gpu_request || placement.tainted[k]) continue;
      units -= p.view.gpu_request;
      ++placed;
      break;
    }
  }
  return placed;
}

std::vector<const PendingGpuPod*> pods_short_of_gpus(const Context& ctx) {
  std::vector<const PendingGpuPod*> out;
  for (const PendingGpuPod& p : ctx.pending) {
    const auto& parsed = p.view.scheduler.parsed;
    if (parsed && std::any_of(parsed->reasons.begin(), parsed->reasons.end(), insufficient_gpu)) out.push_back(&p);
  }
  return out;
}

} // namespace gpuslice::diagnose
