// SPDX-License-Identifier: Apache-2.0
#include "capacity.hpp"

#include <algorithm>
#include <map>

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
  std::map<std::string, long long, std::less<>> free;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (can_take_pods(n)) {
      free[n.node->name()] = std::max(0LL, static_cast<long long>(n.gpus.physical) * replicas - n.inventory.requested);
    }
  }
  int placed = 0;
  for (const PendingGpuPod& p : ctx.pending) {
    if (model::gpu_resource_kind(p.view.resource) == model::GpuResourceKind::mig) continue;
    for (const GpuNode& n : ctx.gpu_nodes) {
      auto it = free.find(n.node->name());
      if (it == free.end() || it->second < p.view.gpu_request) continue;
      if (!selector_admits(p.pod->spec, *n.node) || !blocking_taints(p.pod->spec, *n.node).empty()) continue;
      it->second -= p.view.gpu_request;
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
