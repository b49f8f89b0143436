// SPDX-License-Identifier: Apache-2.0
#include "collect/query_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuslice::collect {

PodListing choose_pod_listing(std::size_t gpu_nodes, std::size_t all_nodes, std::size_t started) {
  if (gpu_nodes == 0) return PodListing::none;
  const std::size_t left = gpu_nodes - std::min(started, gpu_nodes);
  // Integer form of left / all_nodes <= k_max_per_node_percent, so the line itself is per-node.
  return left * 100 <= all_nodes * k_max_per_node_percent ? PodListing::per_node : PodListing::cluster_wide;
}

std::string pods_on_node_selector(std::string_view node) {
  return fmt::format("spec.nodeName={},{}", node, k_unfinished_pods_selector);
}

kube::ResourceRef dra_resource(std::string_view version, std::string_view plural) {
  const bool namespaced = plural == "resourceclaims" || plural == "resourceclaimtemplates";
  return {"resource.k8s.io", std::string(version), std::string(plural), namespaced};
}

std::string event_reason_selector(std::string_view reason) {
  return fmt::format("reason={}", reason);
}

} // namespace gpuslice::collect
