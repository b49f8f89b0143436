// SPDX-License-Identifier: Apache-2.0
// The items of one list page, read with simdjson's on-demand parser as raw JSON, so that the
// live reader builds a DOM only for the items it keeps (nlohmann parses ~20 MB/s; on-demand
// passes over an item at ~1 GB/s). A cluster-wide pod list of a 5,000-node cluster is ~850 MB.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gpuslice::collect {

// Calls on_item with the raw JSON of each element of the page's "items" array (a view that
// lives only during the call). No "items" array: no call. Throws RuntimeError naming `what`
// when the page is not a JSON object or is malformed.
void for_each_page_item(std::string_view page, const std::string& what,
                        const std::function<void(std::string_view)>& on_item);

// spec.nodeName of a Pod given as raw JSON; "" when absent, not a string, or unreadable.
std::string raw_pod_node_name(std::string_view pod);

} // namespace gpuslice::collect
