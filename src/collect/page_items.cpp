// SPDX-License-Identifier: Apache-2.0
#include "collect/page_items.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <gpuslice/error.hpp>

namespace gpuslice::collect {

void for_each_page_item(std::string_view page, const std::string& what,
                        const std::function<void(std::string_view)>& on_item) {
  const simdjson::padded_string padded(page); // the page body is not padded: one copy, cheap next to parsing
  try {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document document = parser.iterate(padded);
    simdjson::ondemand::object top = document.get_object();
    for (simdjson::ondemand::field field : top) {
      if (std::string_view(field.unescaped_key()) != "items") continue;
      simdjson::ondemand::value items = field.value();
      if (items.type() != simdjson::ondemand::json_type::array) return;
      for (simdjson::ondemand::value item : items.get_array()) {
        simdjson::ondemand::object object = item.get_object();
        on_item(object.raw_json());
      }
      return;
    }
  } catch (const simdjson::simdjson_error& error) {
    throw RuntimeError(fmt::format("list {}: a page is not a JSON object ({})", what, error.what()));
  }
}

std::string raw_pod_node_name(std::string_view pod) {
  const simdjson::padded_string padded(pod);
  try {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document document = parser.iterate(padded);
    simdjson::ondemand::value spec = document.find_field_unordered("spec");
    std::string_view node = spec.find_field_unordered("nodeName").get_string();
    return std::string(node);
  } catch (const simdjson::simdjson_error&) {
    return {}; // no spec.nodeName (a Pending pod) or not a string
  }
}

} // namespace gpuslice::collect
