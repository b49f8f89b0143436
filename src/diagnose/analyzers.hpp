// SPDX-License-Identifier: Apache-2.0
// The analyzers, one per area of the catalog. Each appends the findings it sees to `out` and
// never throws; analyze() runs them all and orders the result.
#pragma once

#include <vector>

#include <gpuslice/diagnose.hpp>

#include "context.hpp"

namespace gpuslice::diagnose {

void find_scheduling(const Context& ctx, std::vector<Finding>& out);     // GS1xx
void find_autoscaler(const Context& ctx, std::vector<Finding>& out);     // GS2xx
void find_sharing(const Context& ctx, std::vector<Finding>& out);        // GS3xx
void find_device_plugin(const Context& ctx, std::vector<Finding>& out);  // GS4xx
void find_nodes(const Context& ctx, std::vector<Finding>& out);          // GS5xx
void find_workloads(const Context& ctx, std::vector<Finding>& out);      // GS6xx
void find_observability(const Context& ctx, std::vector<Finding>& out);  // GS7xx
void find_dra(const Context& ctx, std::vector<Finding>& out);            // GS8xx
// GS603, GPU pods refused at kubelet admission (admission.cpp); find_workloads calls it.
void find_failed_admission(const Context& ctx, std::vector<Finding>& out);
// GS807, shared claims pinned to a node that refuses the pod (dra_pinned.cpp); find_dra calls it.
void find_dra_pinned_claims(const Context& ctx, std::vector<Finding>& out);
// GS808, sharing templates used by many pods (dra_unshared.cpp); find_dra calls it.
void find_dra_unshared_templates(const Context& ctx, std::vector<Finding>& out);

} // namespace gpuslice::diagnose
