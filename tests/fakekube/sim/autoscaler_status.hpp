// SPDX-License-Identifier: Apache-2.0
// The cluster-autoscaler-status ConfigMap in CA 1.30's YAML format (yaml.v2, struct order;
// reference/scheduling.md §3.2), rewritten every statusEveryTicks.
#pragma once

#include "memory.hpp"

namespace fakekube::sim {

void write_autoscaler_status(TickContext& context);

} // namespace fakekube::sim
