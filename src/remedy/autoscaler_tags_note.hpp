// SPDX-License-Identifier: Apache-2.0
// apply's note for cluster-autoscaler on AWS: the ASG tags that make a scale-up from zero plan
// for what apply gives today's nodes (the shared slot count, the gpu.present label).
#pragma once

#include <string>
#include <vector>

#include <gpuslice/remedy/plan.hpp>

namespace gpuslice::remedy {

// One note per AWS GPU node group when cluster-autoscaler runs; none otherwise.
std::vector<std::string> autoscaler_tag_notes(const Snapshot& snapshot, const ApplyOptions& options);

} // namespace gpuslice::remedy
