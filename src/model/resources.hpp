// SPDX-License-Identifier: Apache-2.0
// ResourceList JSON readers/writers shared by pods and nodes.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <gpuslice/model/quantity.hpp>

namespace gpuslice::model {

// Reads {"cpu": "500m", "nvidia.com/gpu": 1}; entries that are not quantities are skipped.
ResourceList resource_list_from_json(const nlohmann::json& object);
nlohmann::json to_json(const ResourceList& list);

} // namespace gpuslice::model
