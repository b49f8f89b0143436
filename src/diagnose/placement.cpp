// SPDX-License-Identifier: Apache-2.0
// Pending pods grouped by what decides where they may go, each group judged against every GPU
// node once: the pods of one Deployment share their template, so 2,000 pending pods at L make a
// few hundred groups, and 2,000 × 500 node judgements become a tenth of that.
#include "context.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <vector>

namespace gpuslice::diagnose {

namespace {

void mix(std::size_t& seed, std::string_view text) {
  seed ^= std::hash<std::string_view>{}(text) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

// A hash of what same_placement compares; equal placements hash alike.
std::size_t placement_hash(const PendingGpuPod& p) {
  std::size_t seed = 0;
  mix(seed, p.view.resource);
  for (const auto& [key, value] : p.pod->spec.node_selector) {
    mix(seed, key);
    mix(seed, value);
  }
  for (const model::Toleration& t : p.pod->spec.tolerations) {
    mix(seed, t.key);
    mix(seed, t.value);
    mix(seed, t.effect);
  }
  if (p.pod->spec.required_affinity) {
    for (const model::NodeSelectorTerm& term : p.pod->spec.required_affinity->terms) {
      for (const model::Requirement& r : term.match_expressions) mix(seed, r.key);
    }
  }
  return seed;
}

bool same_placement(const PendingGpuPod& a, const PendingGpuPod& b) {
  const model::PodSpec& x = a.pod->spec;
  const model::PodSpec& y = b.pod->spec;
  return a.view.resource == b.view.resource && x.node_selector == y.node_selector &&
         x.tolerations == y.tolerations && x.required_affinity == y.required_affinity;
}

Placement judge(const Context& ctx, const model::PodSpec& spec) {
  Placement out;
  for (const GpuNode& n : ctx.gpu_nodes) {
    if (!selector_admits(spec, *n.node)) continue;
    out.admitted.push_back(&n);
    out.tainted.push_back(!blocking_taints(spec, *n.node).empty());
  }
  return out;
}

} // namespace

void place_pending(Context& ctx) {
  std::unordered_multimap<std::size_t, std::size_t> by_hash;  // hash → placements position
  std::vector<const PendingGpuPod*> representative;
  for (PendingGpuPod& p : ctx.pending) {
    const std::size_t hash = placement_hash(p);
    const auto [first, last] = by_hash.equal_range(hash);
    const auto same = std::find_if(first, last, [&](const auto& entry) {
      return same_placement(*representative[entry.second], p);
    });
    if (same != last) {
      p.placement = same->second;
      continue;
    }
    p.placement = ctx.placements.size();
    by_hash.emplace(hash, p.placement);
    representative.push_back(&p);
    ctx.placements.push_back(judge(ctx, p.pod->spec));
  }
}

} // namespace gpuslice::diagnose
