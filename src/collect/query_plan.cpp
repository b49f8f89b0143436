// SPDX-License-Identifier: Apache-2.0
#include "collect/query_plan.hpp"

#include <fmt/format.h>

namespace gpuslice::collect {

PodListing choose_pod_listing(std::size_t gpu_nodes, std::size_t all_nodes) {
  if (gpu_nodes == 0) return PodListing::none;
  // Integer form of gpu_nodes / all_nodes <= k_max_per_node_percent, so the line itself is per-node.
  return gpu_nodes * 100 <= all_nodes * k_max_per_node_percent ? PodListing::per_node : PodListing::cluster_wide;
}

std::string pods_on_node_selector(std::string_view node) {
  return fmt::format("spec.nodeName={},{}", node, k_unfinished_pods_selector);
}

std::string event_reason_selector(std::string_view reason) {
  return fmt::format("reason={}", reason);
}

} // namespace gpuslice::collect
