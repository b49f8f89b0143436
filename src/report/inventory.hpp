// SPDX-License-Identifier: Apache-2.0
// The GPU node inventory pieces that diagnose and status both print.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpuslice/report.hpp>

namespace gpuslice::report {

// One node of DESIGN §4.3 "nodes".
nlohmann::ordered_json node_json(const diagnose::NodeInventory& node);

// The node table (NAME INSTANCE PRODUCT GPUS REPLICAS SLOTS REQUESTED FREE STATUS TAINTS), or
// "  No GPU nodes found." when there are none.
std::string render_node_table(const std::vector<diagnose::NodeInventory>& nodes, const Style& style);

} // namespace gpuslice::report
