// SPDX-License-Identifier: Apache-2.0
// One classifier for the reason wordings of kube-scheduler (every version in
// reference/scheduling.md §1.3-1.4), cluster-autoscaler skip reasons (§2.2) and Karpenter's
// inner errors (§5): CA quotes scheduler reasons verbatim, so the kinds are shared.
#include <gpuslice/diagnose.hpp>

#include "text.hpp"

namespace gpuslice::diagnose {

namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// "{key: value}" as printed by the scheduler (value may be empty).
void read_braced_taint(std::string_view text, Reason& reason) {
  const std::size_t open = text.find('{');
  const std::size_t close = text.find('}', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return;
  const std::string_view inner = text.substr(open + 1, close - open - 1);
  const std::size_t colon = inner.find(':');
  reason.taint_key = std::string(trim(inner.substr(0, colon)));
  if (colon != std::string_view::npos) reason.taint_value = std::string(trim(inner.substr(colon + 1)));
}

// "key=value:Effect" or "key:Effect" as printed by Karpenter.
void read_karpenter_taint(std::string_view taint, Reason& reason) {
  taint = trim(taint);
  const std::size_t colon = taint.rfind(':');
  if (colon != std::string_view::npos) {
    reason.taint_effect = std::string(taint.substr(colon + 1));
    taint = taint.substr(0, colon);
  }
  const std::size_t eq = taint.find('=');
  reason.taint_key = std::string(taint.substr(0, eq));
  if (eq != std::string_view::npos) reason.taint_value = std::string(taint.substr(eq + 1));
}

// Karpenter: "did not tolerate k=v:E", "did not tolerate taint (taint=k=v:E)".
void read_karpenter_toleration(std::string_view text, Reason& reason) {
  std::string_view rest = text.substr(text.find("did not tolerate") + 16);
  rest = trim(rest);
  if (const std::size_t open = rest.find("(taint="); open != std::string_view::npos) {
    const std::size_t close = rest.find(')', open);
    read_karpenter_taint(rest.substr(open + 7, close == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : close - open - 7),
                         reason);
    return;
  }
  if (rest.empty() || rest.starts_with("taint")) return;
  read_karpenter_taint(rest.substr(0, rest.find_first_of(" ;,")), reason);
}

// "didn't satisfy plugin(s) [A B] …" / "didn't satisfy plugin A" → "A B" / "A".
std::string read_plugins(std::string_view text) {
  const std::size_t open = text.find('[');
  if (open != std::string_view::npos) {
    const std::size_t close = text.find(']', open);
    if (close != std::string_view::npos) return std::string(text.substr(open + 1, close - open - 1));
  }
  std::string_view rest = text.substr(text.find("didn't satisfy plugin") + 21);
  rest = trim(rest);
  return std::string(rest.substr(0, rest.find(' ')));
}

ReasonKind kind_of_scheduler_reason(std::string_view t) {
  if (t == "Too many pods") return ReasonKind::too_many_pods;
  if (contains(t, "taint")) return ReasonKind::untolerated_taint;
  // Before node affinity: "node(s) had volume node affinity conflict" is about a PV.
  if (contains(t, "volume") || contains(t, "PersistentVolumeClaim") || contains(t, "pvc") ||
      contains(t, "disk") || contains(t, "free storage")) {
    return ReasonKind::volume;
  }
  if (contains(t, "node affinity") || contains(t, "node selector") ||
      contains(t, "incompatible requirements")) {
    return ReasonKind::selector_mismatch;
  }
  if (contains(t, "were unschedulable")) return ReasonKind::unschedulable;
  if (contains(t, "unknown conditions") || contains(t, "not ready")) return ReasonKind::node_not_ready;
  if (contains(t, "requested node name") || contains(t, "requested hostname")) {
    return ReasonKind::node_name;
  }
  if (contains(t, "free ports") || contains(t, "hostport")) return ReasonKind::host_ports;
  if (contains(t, "topology spread")) return ReasonKind::topology_spread;
  if (contains(t, "affinity") || contains(t, "anti-affinity")) return ReasonKind::pod_affinity;
  if (contains(t, "preemption") || contains(t, "Preemption")) return ReasonKind::preemption;
  return ReasonKind::other;
}

} // namespace

std::string_view to_string(ReasonKind kind) {
  switch (kind) {
  case ReasonKind::insufficient_resource: return "insufficient-resource";
  case ReasonKind::too_many_pods: return "too-many-pods";
  case ReasonKind::untolerated_taint: return "untolerated-taint";
  case ReasonKind::selector_mismatch: return "selector-mismatch";
  case ReasonKind::unschedulable: return "unschedulable";
  case ReasonKind::node_not_ready: return "node-not-ready";
  case ReasonKind::node_name: return "node-name";
  case ReasonKind::host_ports: return "host-ports";
  case ReasonKind::pod_affinity: return "pod-affinity";
  case ReasonKind::topology_spread: return "topology-spread";
  case ReasonKind::volume: return "volume";
  case ReasonKind::plugin_filtered: return "plugin-filtered";
  case ReasonKind::preemption: return "preemption";
  case ReasonKind::max_node_group_size: return "max-node-group-size";
  case ReasonKind::max_total_nodes: return "max-total-nodes";
  case ReasonKind::resource_limit: return "resource-limit";
  case ReasonKind::backoff: return "backoff";
  case ReasonKind::group_not_ready: return "group-not-ready";
  case ReasonKind::no_instance_type: return "no-instance-type";
  case ReasonKind::other: return "other";
  }
  return "other";
}

Reason classify_reason(std::string_view text, int count) {
  text = trim(text);
  Reason r;
  r.count = count;
  r.text = std::string(text);
  std::string_view rest = text;
  if (strip_prefix(rest, "Insufficient ")) {
    // "Insufficient pods" is the ≤1.17 wording of "Too many pods"; keep it a resource.
    r.kind = ReasonKind::insufficient_resource;
    r.resource = std::string(trim(rest));
    return r;
  }
  // cluster-autoscaler skip reasons (§2.2); "max limit reached" is CA ~1.15.
  if (text == "max node group size reached" || text == "max limit reached") {
    r.kind = ReasonKind::max_node_group_size;
    return r;
  }
  if (text == "max total nodes in cluster reached" ||
      text == "atomic scale-up exceeds cluster node count limit") {
    r.kind = ReasonKind::max_total_nodes;
    return r;
  }
  if (strip_prefix(rest, "max cluster ") && strip_suffix(rest, " limit reached")) {
    r.kind = ReasonKind::resource_limit;
    r.resource = std::string(rest);
    return r;
  }
  rest = text;
  if (strip_prefix(rest, "exceeded quota: ")) {
    r.kind = ReasonKind::resource_limit;
    if (const std::size_t pos = rest.find("resources: "); pos != std::string_view::npos) {
      r.resource = std::string(trim(rest.substr(pos + 11)));
    }
    return r;
  }
  if (text == "in backoff after failed scale-up") {
    r.kind = ReasonKind::backoff;
    return r;
  }
  if (text == "not ready for scale-up") {
    r.kind = ReasonKind::group_not_ready;
    return r;
  }
  // Karpenter inner errors.
  if (contains(text, "did not tolerate")) {
    r.kind = ReasonKind::untolerated_taint;
    read_karpenter_toleration(text, r);
    return r;
  }
  if (text.starts_with("no instance type")) {
    r.kind = ReasonKind::no_instance_type;
    return r;
  }
  if (contains(text, "exceed limits for nodepool") || contains(text, "limits have been exhausted")) {
    r.kind = ReasonKind::resource_limit;
    return r;
  }
  // "didn't satisfy plugin(s) [NodeAffinity]" is how ≥1.31 counts nodes a PreFilter removed.
  if (contains(text, "didn't satisfy plugin")) {
    r.plugins = read_plugins(text);
    r.kind = r.plugins == "NodeAffinity" ? ReasonKind::selector_mismatch : ReasonKind::plugin_filtered;
    return r;
  }
  r.kind = kind_of_scheduler_reason(text);
  if (r.kind == ReasonKind::untolerated_taint) read_braced_taint(text, r);
  return r;
}

} // namespace gpuslice::diagnose
