// SPDX-License-Identifier: Apache-2.0
// Joins the Snapshots that parallel reads filled into one, in a stable order.
#pragma once

#include <string>
#include <vector>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Concatenates the parts; an object read twice (a bound Pending pod is both pending and on
// its node) is kept once; every list is sorted by namespace and name (releases by secret
// name) so that a snapshot does not depend on which read finished first. Notes are appended.
Snapshot assemble(std::vector<Snapshot>& parts);

// The current time as RFC 3339 UTC with second precision.
std::string now_rfc3339();

} // namespace gpuslice::collect
