// SPDX-License-Identifier: Apache-2.0
// The Snapshot's record lists, named once for the code that treats them all alike (merging
// files, assembling the parts of a live read).
#pragma once

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Calls f with the same record list of each snapshot (f(a.nodes, b.nodes), then pods, …),
// for each of the thirteen lists in snapshot order.
template <class F, class... Snapshots> void for_each_record_list(F&& f, Snapshots&... snapshots) {
  f(snapshots.nodes...);
  f(snapshots.pods...);
  f(snapshots.events...);
  f(snapshots.daemonsets...);
  f(snapshots.deployments...);
  f(snapshots.statefulsets...);
  f(snapshots.configmaps...);
  f(snapshots.helm_releases...);
  f(snapshots.cluster_policies...);
  f(snapshots.device_classes...);
  f(snapshots.resource_slices...);
  f(snapshots.resource_claims...);
  f(snapshots.resource_claim_templates...);
}

} // namespace gpuslice::collect
