// SPDX-License-Identifier: Apache-2.0
// GS807: a pending pod shares a ResourceClaim that is already allocated on one node, so it can
// run only there, and that node will not take it. The scheduler's words for every other node
// are "resourceclaim not available on the node"; what stops it on the claim's node is ours to say.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "dra_allocation.hpp"

namespace gpuslice::diagnose {

namespace {

const model::ResourceClaim* claim_named(const Snapshot& s, const std::string& ns, const std::string& name) {
  const auto it = std::find_if(s.resource_claims.begin(), s.resource_claims.end(), [&](const model::ResourceClaim& c) {
    return c.meta.ns == ns && c.meta.name == name;
  });
  return it == s.resource_claims.end() ? nullptr : &*it;
}

// The ResourceClaim a pod claim resolves to: named, or made from a template and recorded in status.
std::string claim_name(const model::Pod& pod, const model::PodResourceClaim& pc) {
  if (!pc.claim_name.empty()) return pc.claim_name;
  for (const model::PodResourceClaimStatus& st : pod.claim_statuses)
    if (st.name == pc.name) return st.claim_name;
  return {};
}

// Why `node` refuses the pod, as the scheduler's node filters would, and the fix for that one
// reason when it is the only one; empty when nothing we can see stops it.
struct Refusal {
  std::vector<std::string> reasons;
  std::string fix;
};

Refusal refusal(const Context& ctx, const model::Pod& pod, const std::string& node_name) {
  Refusal r;
  const model::Node* node = node_named(ctx.snapshot, node_name);
  if (!node) {
    r.reasons.push_back(fmt::format("node {} no longer exists", node_name));
    return r;
  }
  if (node->unschedulable) {
    r.reasons.push_back(fmt::format("node {} is cordoned", node_name));
    r.fix = fmt::format("kubectl uncordon {}", node_name);
  }
  if (!selector_admits(pod.spec, *node)) {
    r.reasons.push_back(fmt::format("the pod's nodeSelector or node affinity excludes node {}", node_name));
    r.fix.clear();
  }
  std::vector<model::Taint> taints = blocking_taints(pod.spec, *node);
  // The cordon's own taint is the cordon, already said.
  std::erase_if(taints, [](const model::Taint& t) { return t.key == "node.kubernetes.io/unschedulable"; });
  for (const model::Taint& t : taints) {
    r.reasons.push_back(fmt::format("node {} has taint {}{}:{}, which the pod does not tolerate", node_name, t.key,
                                    t.value.empty() ? std::string{} : "=" + t.value, t.effect));
  }
  if (taints.size() == 1 && r.reasons.size() == 1) {
    const model::Workload* owner = ctx.owner_workload(pod);
    r.fix = owner && taints.front().effect == "NoSchedule" ? toleration_patch_command(*owner, taints.front().key) : "";
  } else if (!taints.empty()) {
    r.fix.clear();
  }
  return r;
}

} // namespace

void find_dra_pinned_claims(const Context& ctx, std::vector<Finding>& out) {
  Finding f = make_finding(FindingCode::GS807, "");
  std::vector<std::string> fixes;
  bool all_fixed = true;
  for (const model::Pod& pod : ctx.snapshot.pods) {
    if (!pod.is_unscheduled()) continue;
    for (const model::PodResourceClaim& pc : pod.spec.resource_claims) {
      const model::ResourceClaim* claim = claim_named(ctx.snapshot, pod.meta.ns, claim_name(pod, pc));
      if (!claim || !claim->allocated || claim->allocated_node.empty()) continue;
      // Only a claim other pods hold stays on its node: an unreserved one the scheduler frees itself.
      std::vector<std::string> others;
      for (const std::string& holder : claim->reserved_for)
        if (holder != pod.meta.name) others.push_back(holder);
      if (others.empty()) continue;
      const Refusal r = refusal(ctx, pod, claim->allocated_node);
      if (r.reasons.empty()) continue;  // the node may take it once its other resources free up
      if (std::find(f.objects.begin(), f.objects.end(), object_ref("Pod", pod.meta)) == f.objects.end())
        f.objects.push_back(object_ref("Pod", pod.meta));
      f.evidence.push_back(fmt::format("{}: claim {} is ResourceClaim {}, allocated on node {} and in use by {}: the pod "
                                       "can run only there, but {}",
                                       qualified(pod.meta), pc.name, claim->meta.name, claim->allocated_node,
                                       name_list(others, 3), fmt::join(r.reasons, "; ")));
      // Room for its CPU, memory and the like we cannot judge: a shortage the scheduler names
      // there means lifting the filter alone would not place the pod.
      const model::Condition* scheduled = pod.condition("PodScheduled");
      const bool short_there = scheduled && scheduled->message.find("Insufficient ") != std::string::npos;
      if (r.fix.empty() || short_there) {
        all_fixed = false;
      } else if (std::find(fixes.begin(), fixes.end(), r.fix) == fixes.end()) {
        fixes.push_back(r.fix);
      }
    }
  }
  if (f.objects.empty()) return;
  if (f.evidence.size() > 5) {
    const std::size_t more = f.evidence.size() - 5;
    f.evidence.resize(5);
    f.evidence.push_back(fmt::format("and {} more", more));
  }
  f.summary = fmt::format("{} pending pod(s) share a ResourceClaim already allocated on a node that will not take them",
                          f.objects.size());
  const std::string own_claim = "or, if the pods need not share those devices, give them a ResourceClaimTemplate of "
                                "their own so the scheduler can allocate elsewhere";
  if (all_fixed && fixes.size() == 1) {
    f.remedy.text = fmt::format("Let the claim's node take the pods, {}.", own_claim);
    f.remedy.command = fixes.front();
  } else {
    f.remedy.text = fmt::format("A shared claim's devices stay on its node while any pod uses it: make that node "
                                "accept the pods (uncordon it, tolerate its taint, or widen the pods' node "
                                "selection), {}.",
                                own_claim);
  }
  out.push_back(std::move(f));
}

} // namespace gpuslice::diagnose
