// SPDX-License-Identifier: Apache-2.0
// GS808: a ResourceClaimTemplate that configures GPU sharing (the NVIDIA driver's GpuConfig,
// TimeSlicing or MPS) used by several pods. A template makes one claim per pod, so the sharing
// is among one pod's containers only: every pod still takes a GPU of its own. Pods meant to
// share a GPU must name one ResourceClaim.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzers.hpp"
#include "dra_allocation.hpp"

namespace gpuslice::diagnose {

namespace {

struct TemplateUse {
  const model::ResourceClaimTemplate* claim_template = nullptr;
  std::vector<const model::Pod*> pods;     // not finished, using the template
  std::vector<const model::Pod*> pending;  // of those, not yet scheduled
  std::vector<std::string> claims;         // ns/name of the claims made for them
};

bool finished(const model::Pod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

std::map<std::string, TemplateUse> sharing_template_uses(const Snapshot& s) {
  std::map<std::string, TemplateUse> uses;
  for (const model::ResourceClaimTemplate& t : s.resource_claim_templates) {
    if (!t.gpu_sharing.empty()) uses[fmt::format("{}/{}", t.meta.ns, t.meta.name)].claim_template = &t;
  }
  if (uses.empty()) return uses;
  for (const model::Pod& pod : s.pods) {
    if (finished(pod)) continue;
    for (const model::PodResourceClaim& pc : pod.spec.resource_claims) {
      if (pc.template_name.empty()) continue;
      const auto it = uses.find(fmt::format("{}/{}", pod.meta.ns, pc.template_name));
      if (it == uses.end()) continue;
      TemplateUse& use = it->second;
      if (use.pods.empty() || use.pods.back() != &pod) use.pods.push_back(&pod);
      if (pod.is_unscheduled() && (use.pending.empty() || use.pending.back() != &pod)) use.pending.push_back(&pod);
      for (const model::PodResourceClaimStatus& st : pod.claim_statuses) {
        if (st.name == pc.name && !st.claim_name.empty()) use.claims.push_back(fmt::format("{}/{}", pod.meta.ns, st.claim_name));
      }
    }
  }
  return uses;
}

// A node where one claim of the template's requests could be allocated, counting the devices
// the group's own claims hold as free (they are released when the pods move to the shared
// claim), and which admits the pods; "" when there is none.
std::string node_for_shared_claim(const Context& ctx, const TemplateUse& use) {
  const model::ResourceClaimTemplate& t = *use.claim_template;
  const auto requests = replay_requests(ctx.snapshot, fmt::format("{}/{}", t.meta.ns, t.meta.name), t.requests);
  if (requests.empty()) return {};
  std::map<std::string, std::size_t> satisfied;  // node → requests it can take
  for (const std::vector<RequestCheck>& alternatives : requests) {
    std::vector<std::string> nodes;
    for (const RequestCheck& r : alternatives) {
      if (r.class_missing || r.all) continue;
      for (const NodeDevices& n : r.nodes) {
        if (n.cel_error) continue;
        long long usable = n.free;
        for (const std::string& holder : n.held_by) {
          if (std::find(use.claims.begin(), use.claims.end(), holder) != use.claims.end()) ++usable;  // ≥ 1 each
        }
        if (usable >= r.count && std::find(nodes.begin(), nodes.end(), n.node) == nodes.end()) nodes.push_back(n.node);
      }
    }
    for (const std::string& n : nodes) ++satisfied[n];
  }
  for (const auto& [name, count] : satisfied) {
    if (count != requests.size()) continue;
    const model::Node* node = node_named(ctx.snapshot, name);
    if (!node || node->unschedulable) continue;
    const model::PodSpec& spec = use.pending.front()->spec;
    if (selector_admits(spec, *node) && blocking_taints(spec, *node).empty()) return name;
  }
  return {};
}

} // namespace

void find_dra_unshared_templates(const Context& ctx, std::vector<Finding>& out) {
  for (const auto& [key, use] : sharing_template_uses(ctx.snapshot)) {
    if (use.pods.size() < 2 || use.pending.empty()) continue;
    const model::ResourceClaimTemplate& t = *use.claim_template;
    Finding f = make_finding(FindingCode::GS808, "");
    f.objects.push_back(object_ref("ResourceClaimTemplate", t.meta));
    std::vector<std::string> pending;
    for (const model::Pod* p : use.pending) {
      f.objects.push_back(object_ref("Pod", p->meta));
      pending.push_back(qualified(p->meta));
    }
    f.evidence.push_back(fmt::format("ResourceClaimTemplate {} configures GpuConfig sharing {}, but a template makes one "
                                     "claim per pod: {} pod(s) use it, each with a device of its own",
                                     key, t.gpu_sharing, use.pods.size()));
    f.evidence.push_back(fmt::format("{} of them wait: {}", use.pending.size(), name_list(pending, 3)));
    f.summary = fmt::format("{} pods each get their own claim from ResourceClaimTemplate {}, so its {} sharing does not "
                            "share a GPU between them",
                            use.pods.size(), key, t.gpu_sharing);
    const std::string how = fmt::format(
        "To share devices between pods, create one ResourceClaim in {} with the template's spec (kubectl -n {} get "
        "resourceclaimtemplate {} -o jsonpath='{{.spec.spec}}' prints it) and have the pods name it with "
        "resourceClaimName instead of resourceClaimTemplateName",
        t.meta.ns, t.meta.ns, t.meta.name);
    const std::string node = node_for_shared_claim(ctx, use);
    f.remedy.text = node.empty()
                        ? how + "; but no node that admits the pods has the devices for one such claim free now, "
                                "so free or add devices first."
                        : fmt::format("{}; node {} has the devices for it, and every pod sharing the claim runs "
                                      "there.",
                                      how, node);
    out.push_back(std::move(f));
  }
}

} // namespace gpuslice::diagnose
