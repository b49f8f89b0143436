// SPDX-License-Identifier: Apache-2.0
#include "collect/live_assemble.hpp"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace gpuslice::collect {
namespace {

template <class T> auto key_of(const T& item) {
  if constexpr (requires { item.meta; })
    return std::tie(item.meta.ns, item.meta.name);
  else
    return std::tie(item.ns, item.secret_name, item.name);
}

template <class T> void append(std::vector<T>& into, std::vector<T>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Sorts and drops later copies of the same object (stable, so the first read wins).
template <class T> void sort_unique(std::vector<T>& items) {
  std::stable_sort(items.begin(), items.end(), [](const T& a, const T& b) { return key_of(a) < key_of(b); });
  items.erase(std::unique(items.begin(), items.end(), [](const T& a, const T& b) { return key_of(a) == key_of(b); }),
              items.end());
}

} // namespace

Snapshot assemble(std::vector<Snapshot>& parts) {
  Snapshot all;
  for (Snapshot& part : parts) {
    append(all.nodes, part.nodes);
    append(all.pods, part.pods);
    append(all.events, part.events);
    append(all.daemonsets, part.daemonsets);
    append(all.deployments, part.deployments);
    append(all.statefulsets, part.statefulsets);
    append(all.configmaps, part.configmaps);
    append(all.helm_releases, part.helm_releases);
    append(all.cluster_policies, part.cluster_policies);
    append(all.meta.notes, part.meta.notes);
    if (!all.autoscaler_status && part.autoscaler_status) all.autoscaler_status = std::move(part.autoscaler_status);
  }
  sort_unique(all.nodes);
  sort_unique(all.pods);
  sort_unique(all.events);
  sort_unique(all.daemonsets);
  sort_unique(all.deployments);
  sort_unique(all.statefulsets);
  sort_unique(all.configmaps);
  sort_unique(all.helm_releases);
  sort_unique(all.cluster_policies);
  return all;
}

std::string now_rfc3339() {
  return model::format_time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

} // namespace gpuslice::collect
