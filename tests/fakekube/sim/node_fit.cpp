// SPDX-License-Identifier: Apache-2.0
#include "node_fit.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace fakekube::sim {
namespace {

namespace model = gpuslice::model;

std::string taint_reason(const model::Taint& taint, int minor) {
  if (minor < 18) return "node(s) had taints that the pod didn't tolerate";
  const std::string shown = "{" + taint.key + ": " + taint.value + "}";
  if (minor < 24) return "node(s) had taint " + shown + ", that the pod didn't tolerate";
  return "node(s) had untolerated taint " + shown;
}

std::string affinity_reason(int minor) {
  if (minor < 20) return "node(s) didn't match node selector";
  if (minor < 21) return "node(s) didn't match Pod's node affinity";
  return "node(s) didn't match Pod's node affinity/selector";
}

// NodeResourcesFit's reasons: pods first, then cpu, memory, ephemeral-storage, then the
// scalar resources (order inside one node does not matter: the message sorts them).
std::vector<std::string> resource_reasons(const model::ResourceList& requests,
                                          const NodeUsage& usage, int minor) {
  std::vector<std::string> reasons;
  const model::ResourceList& allocatable = usage.node->allocatable;
  const model::Quantity pods = model::quantity_of(allocatable, "pods");
  if (usage.pods + 1 > pods.value())
    reasons.push_back(minor < 18 ? "Insufficient pods" : "Too many pods");
  auto short_of = [&](std::string_view resource) {
    const model::Quantity want = model::quantity_of(requests, resource);
    if (want.milli() <= 0) return false;
    const model::Quantity free =
        model::quantity_of(allocatable, resource) - model::quantity_of(usage.requested, resource);
    return want > free;
  };
  for (const char* basic : {"cpu", "memory", "ephemeral-storage"})
    if (short_of(basic)) reasons.push_back(std::string("Insufficient ") + basic);
  for (const auto& [resource, quantity] : requests) {
    if (resource == "cpu" || resource == "memory" || resource == "ephemeral-storage" ||
        resource == "pods")
      continue;
    if (short_of(resource)) reasons.push_back("Insufficient " + std::string(resource));
  }
  return reasons;
}

std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> entries;
  for (const auto& [reason, count] : counts) entries.push_back(std::to_string(count) + " " + reason);
  std::sort(entries.begin(), entries.end()); // sort.Strings over "count reason"
  std::string joined;
  for (const std::string& entry : entries) joined += (joined.empty() ? "" : ", ") + entry;
  return joined;
}

} // namespace

int kube_minor(std::string_view git_version) {
  const std::size_t dot = git_version.find('.');
  if (dot == std::string_view::npos) return 30;
  int minor = 0;
  const char* begin = git_version.data() + dot + 1;
  const char* end = git_version.data() + git_version.size();
  const std::from_chars_result parsed = std::from_chars(begin, end, minor);
  return parsed.ec == std::errc() && parsed.ptr != begin ? minor : 30;
}

FitResult check_fit(const model::PodSpec& spec, const model::ResourceList& requests,
                    const NodeUsage& usage, int minor) {
  const model::Node& node = *usage.node;
  const model::Taint unschedulable_taint{"node.kubernetes.io/unschedulable", "", "NoSchedule", ""};
  if (node.unschedulable && !model::tolerated(spec.tolerations, unschedulable_taint))
    return {FitFailure::unschedulable, {"node(s) were unschedulable"}};
  const std::vector<model::Taint> untolerated = model::untolerated_taints(spec.tolerations, node.taints);
  if (!untolerated.empty()) return {FitFailure::taint, {taint_reason(untolerated.front(), minor)}};
  const bool selector_ok = model::node_labels_match(spec.node_selector, node.meta.labels) &&
                           (!spec.required_affinity ||
                            model::node_selector_matches(*spec.required_affinity, node.name(),
                                                         node.meta.labels));
  if (!selector_ok) return {FitFailure::affinity, {affinity_reason(minor)}};
  std::vector<std::string> short_reasons = resource_reasons(requests, usage, minor);
  if (!short_reasons.empty()) return {FitFailure::resources, std::move(short_reasons)};
  return {};
}

std::string fit_error_message(const std::vector<FitResult>& per_node, bool preemption_never,
                              int minor) {
  if (per_node.empty()) return "no nodes available to schedule pods";
  const std::string prefix = "0/" + std::to_string(per_node.size()) + " nodes are available: ";
  std::map<std::string, int> reasons;
  std::map<std::string, int> preemption;
  for (const FitResult& result : per_node) {
    for (const std::string& reason : result.reasons) ++reasons[reason];
    ++preemption[result.resolvable() ? "No preemption victims found for incoming pod"
                                     : "Preemption is not helpful for scheduling"];
  }
  std::string message = prefix + histogram(reasons) + ".";
  if (minor < 24) return message; // no PostFilter message before 1.24
  const std::string post = preemption_never
                               ? "preemption: not eligible due to preemptionPolicy=Never."
                               : "preemption: " + prefix + histogram(preemption) + ".";
  message += " " + post;
  if (minor >= 26 && minor <= 28) message += "."; // SeparatorFormat " %v." on the postfilter too
  return message;
}

} // namespace fakekube::sim
