// SPDX-License-Identifier: Apache-2.0
// Whether a pod fits a node, judged by the default scheduler's filter plugins in their order
// (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit), with the reason
// strings of a chosen Kubernetes version (reference/scheduling.md §1.3–1.4). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <gpuslice/model.hpp>

namespace fakekube::sim {

// The minor version whose wording to use, from "v1.30.4", "v1.27.8-eks-…"; 30 when unparseable.
int kube_minor(std::string_view git_version);

// A node with what its bound pods already request.
struct NodeUsage {
  const gpuslice::model::Node* node = nullptr;
  gpuslice::model::ResourceList requested;
  long long pods = 0;
};

enum class FitFailure { none, unschedulable, taint, affinity, resources };

struct FitResult {
  FitFailure failure = FitFailure::none;
  std::vector<std::string> reasons; // the failing plugin's reasons (NodeResourcesFit may give several)
  bool fits() const { return failure == FitFailure::none; }
  // Preemption could help only when resources were short (the other filters answer
  // UnschedulableAndUnresolvable).
  bool resolvable() const { return failure == FitFailure::resources; }
};

// The first failing filter for `spec` (requesting `requests`) on `usage.node`.
FitResult check_fit(const gpuslice::model::PodSpec& spec,
                    const gpuslice::model::ResourceList& requests, const NodeUsage& usage,
                    int minor);

// The scheduler's FitError text for a pod no node fits: "0/N nodes are available: <sorted
// "count reason" list>." plus the preemption suffix of that version. `preemption_never` is a
// pod with preemptionPolicy Never. "no nodes available to schedule pods" when N is 0.
std::string fit_error_message(const std::vector<FitResult>& per_node, bool preemption_never,
                              int minor);

} // namespace fakekube::sim
