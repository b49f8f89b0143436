// SPDX-License-Identifier: Apache-2.0
#include "dra_allocation.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "dra_cel.hpp"

namespace gpuslice::diagnose {

namespace {

// Slices whose devices any node may use (nodeSelector or allNodes) are counted under this name.
constexpr std::string_view k_any_node = "(any node)";

std::string key(std::string_view ns, std::string_view name) { return fmt::format("{}/{}", ns, name); }

// Everything check_pending_claims looks up, indexed once.
class Index {
 public:
  explicit Index(const Snapshot& s) : snapshot_(s) {
    for (const model::ResourceClaim& c : s.resource_claims) {
      claims_.emplace(key(c.meta.ns, c.meta.name), &c);
      for (const model::AllocatedDevice& d : c.devices) {
        held_.emplace(fmt::format("{}/{}/{}", d.driver, d.pool, d.device), key(c.meta.ns, c.meta.name));
      }
    }
    for (const model::ResourceClaimTemplate& t : s.resource_claim_templates) templates_.insert(key(t.meta.ns, t.meta.name));
    for (const model::DeviceClass& c : s.device_classes) classes_.emplace(c.meta.name, &c);
  }

  const model::ResourceClaim* claim(std::string_view ns, std::string_view name) const {
    const auto it = claims_.find(key(ns, name));
    return it == claims_.end() ? nullptr : it->second;
  }
  bool has_template(std::string_view ns, std::string_view name) const { return templates_.contains(key(ns, name)); }
  const model::DeviceClass* device_class(std::string_view name) const {
    const auto it = classes_.find(name);
    return it == classes_.end() ? nullptr : it->second;
  }
  // The claim (ns/name) holding a device, "" when it is free.
  std::string holder(const model::ResourceSlice& slice, const model::Device& d) const {
    const auto it = held_.find(fmt::format("{}/{}/{}", slice.driver, slice.pool, d.name));
    return it == held_.end() ? std::string{} : it->second;
  }
  const DeviceSelector& selector(const std::string& expression) {
    auto it = selectors_.find(expression);
    if (it == selectors_.end()) it = selectors_.emplace(expression, DeviceSelector::parse(expression)).first;
    return it->second;
  }
  const Snapshot& snapshot() const { return snapshot_; }

 private:
  const Snapshot& snapshot_;
  std::map<std::string, const model::ResourceClaim*, std::less<>> claims_;
  std::map<std::string, std::string, std::less<>> held_;
  std::set<std::string, std::less<>> templates_;
  std::map<std::string, const model::DeviceClass*, std::less<>> classes_;
  std::map<std::string, DeviceSelector, std::less<>> selectors_;
};

// Every selector of the class and the request, in order, three-valued: any no_match wins over
// unknown. A runtime error (an attribute the device lacks) makes the allocator give up on the
// node, not just skip the device: `errored` says so, and the first error is kept in `check`.
CelResult select(Index& index, const std::vector<const std::vector<std::string>*>& selector_lists,
                 const model::ResourceSlice& slice, const model::Device& d, RequestCheck& check, bool& errored) {
  CelResult out = CelResult::match;
  for (const std::vector<std::string>* list : selector_lists) {
    for (const std::string& expression : *list) {
      const DeviceSelector& s = index.selector(expression);
      const CelOutcome r = s.evaluate(slice.driver, d);
      errored = errored || !r.error.empty();
      if (!r.error.empty() && check.cel_error.empty()) {
        check.cel_error = fmt::format("selector \"{}\" on device {}/{}/{}: {}", expression, slice.driver, slice.pool,
                                      d.name, r.error);
      }
      if (r.result == CelResult::no_match) return CelResult::no_match;
      if (r.result == CelResult::unknown) {
        out = CelResult::unknown;
        if (check.unsupported.empty()) check.unsupported = s.unsupported().empty() ? expression : s.unsupported();
      }
    }
  }
  return out;
}

RequestCheck check_selection(Index& index, const std::string& claim, const std::string& request,
                             const model::DeviceSelection& sel) {
  RequestCheck out;
  out.claim = claim;
  out.request = request;
  out.device_class = sel.device_class;
  out.all = sel.allocation_mode == "All";
  out.count = sel.count;
  const model::DeviceClass* cls = index.device_class(sel.device_class);
  if (!cls) {
    out.class_missing = true;
    return out;
  }
  const std::vector<const std::vector<std::string>*> lists = {&cls->selectors, &sel.selectors};
  std::map<std::string, NodeDevices, std::less<>> by_node;
  for (const model::ResourceSlice& slice : index.snapshot().resource_slices) {
    const std::string node = slice.node_name.empty() ? std::string(k_any_node) : slice.node_name;
    NodeDevices& n = by_node[node];
    n.node = node;
    for (const model::Device& d : slice.devices) {
      ++n.devices;
      const CelResult r = select(index, lists, slice, d, out, n.cel_error);
      if (r != CelResult::match) continue;
      ++n.matching;
      const std::string holder = index.holder(slice, d);
      if (holder.empty()) {
        ++n.free;
      } else if (std::find(n.held_by.begin(), n.held_by.end(), holder) == n.held_by.end()) {
        n.held_by.push_back(holder);
      }
    }
  }
  for (auto& [name, n] : by_node) out.nodes.push_back(std::move(n));
  return out;
}

bool has_room(const RequestCheck& r, const NodeDevices& n) {
  if (n.cel_error) return false;
  // allocationMode All takes every matching device, so all must be free (and there must be one).
  return r.all ? n.matching > 0 && n.free == n.matching : n.free >= r.count;
}

std::vector<std::vector<RequestCheck>> replay(Index& index, const std::string& claim_key,
                                              const std::vector<model::DeviceRequest>& requests) {
  std::vector<std::vector<RequestCheck>> out;
  for (const model::DeviceRequest& r : requests) {
    std::vector<RequestCheck> alternatives;
    if (r.first_available.empty()) {
      alternatives.push_back(check_selection(index, claim_key, r.name, r.exactly));
    } else {
      for (const model::DeviceSelection& sub : r.first_available) {
        alternatives.push_back(check_selection(index, claim_key, fmt::format("{}/{}", r.name, sub.name), sub));
      }
    }
    out.push_back(std::move(alternatives));
  }
  return out;
}

} // namespace

std::vector<std::vector<RequestCheck>> replay_requests(const Snapshot& snapshot, const std::string& claim,
                                                       const std::vector<model::DeviceRequest>& requests) {
  Index index(snapshot);
  return replay(index, claim, requests);
}

const model::Node* node_named(const Snapshot& s, const std::string& name) {
  const auto it = std::find_if(s.nodes.begin(), s.nodes.end(), [&](const model::Node& n) { return n.name() == name; });
  return it == s.nodes.end() ? nullptr : &*it;
}

int RequestCheck::nodes_with_room() const {
  const NodeDevices* any = nullptr;
  for (const NodeDevices& n : nodes) {
    if (n.node == k_any_node) any = &n;
  }
  int with_room = 0;
  for (const NodeDevices& n : nodes) {
    NodeDevices sum = n;
    if (any && &n != any) {
      sum.matching += any->matching;
      sum.free += any->free;
      sum.cel_error = sum.cel_error || any->cel_error;
    }
    if (has_room(*this, sum)) ++with_room;
  }
  return with_room;
}

bool request_fits_somewhere(const std::vector<RequestCheck>& alternatives) {
  return std::any_of(alternatives.begin(), alternatives.end(), [](const RequestCheck& r) {
    return !r.class_missing && (!r.unsupported.empty() || r.nodes_with_room() > 0);
  });
}

std::vector<PodClaims> check_pending_claims(const Snapshot& snapshot) {
  Index index(snapshot);
  std::vector<PodClaims> out;
  for (const model::Pod& pod : snapshot.pods) {
    if (!pod.is_unscheduled() || pod.spec.resource_claims.empty()) continue;
    PodClaims p;
    p.pod = &pod;
    for (const model::PodResourceClaim& pc : pod.spec.resource_claims) {
      std::string name = pc.claim_name;
      if (name.empty()) {
        // A claim made from a template: the pod's status names it once kube-controller-manager made it.
        for (const model::PodResourceClaimStatus& st : pod.claim_statuses) {
          if (st.name == pc.name) name = st.claim_name;
        }
      }
      const model::ResourceClaim* claim = name.empty() ? nullptr : index.claim(pod.meta.ns, name);
      if (!claim) {
        p.missing.push_back({pc.name, name, pc.template_name,
                             !pc.template_name.empty() && !index.has_template(pod.meta.ns, pc.template_name)});
        continue;
      }
      if (claim->allocated) continue;
      for (std::vector<RequestCheck>& alternatives :
           replay(index, key(claim->meta.ns, claim->meta.name), claim->requests)) {
        p.requests.push_back(std::move(alternatives));
      }
    }
    if (!p.missing.empty() || !p.requests.empty()) out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const PodClaims& a, const PodClaims& b) {
    return std::tie(a.pod->meta.ns, a.pod->meta.name) < std::tie(b.pod->meta.ns, b.pod->meta.name);
  });
  return out;
}

} // namespace gpuslice::diagnose
