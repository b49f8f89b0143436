// SPDX-License-Identifier: Apache-2.0
#include "collect/page_items.hpp"

#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include <gpuslice/error.hpp>

#include "collect/list_window.hpp"

namespace gpuslice::collect {
namespace {

// The scanner's window over a page already in memory: small, because the page is there whole
// and the window only copies it a little at a time.
constexpr std::size_t k_page_window = std::size_t{64} << 10;

// The on-demand reading of a page that the scanner would not take (no "items" array, or not
// a List at all): no item, or the error naming what is wrong with the page.
void read_odd_page(std::string_view page, const std::string& what,
                   const std::function<void(std::string_view)>& on_item) {
  const simdjson::padded_string padded(page);
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

} // namespace

void for_each_page_item(std::string_view page, const std::string& what,
                        const std::function<void(std::string_view)>& on_item) {
  // Cut by brackets and quotes (list_window.hpp), not by simdjson's on-demand parser: that
  // wants a padded copy of the page and a structural index of 4 bytes per byte of it, ~14 MB
  // for each 2.8 MB page of the lists read side by side.
  bool any = false;
  const std::optional<ListHead> head = scan_list_items(text_reader(page), [&](std::string_view item, const ListHead&) {
    any = true;
    on_item(item);
  }, k_page_window);
  if (head) return;
  if (any) throw RuntimeError(fmt::format("list {}: a page is not a JSON list (it breaks off after some items)", what));
  read_odd_page(page, what, on_item);
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
