// SPDX-License-Identifier: Apache-2.0
#include "json_list_stream.hpp"

#include <string_view>
#include <vector>

#include "merge.hpp"

namespace gpuslice::collect {

bool merge_json_list_stream(Snapshot& snapshot, const simdjson::padded_string& text, const std::string& origin) {
  // One object and nothing after it (on-demand parsing would not look past the object).
  std::string_view view(text.data(), text.size());
  std::size_t last = view.find_last_not_of(" \t\r\n");
  if (last == std::string_view::npos || view[last] != '}') return false;
  std::string kind;
  std::string metadata = "{}";
  // Views into `text`: kubectl writes "items" before "kind", so the item kind of a
  // <Kind>List is known only after the items have been passed over.
  std::vector<std::string_view> items;
  bool has_items = false;
  try {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document document = parser.iterate(text);
    simdjson::ondemand::object top = document.get_object();
    for (auto field : top) {
      std::string_view key = field.unescaped_key();
      if (key == "kind") {
        kind = std::string(std::string_view(field.value().get_string()));
      } else if (key == "metadata") {
        simdjson::ondemand::object object = field.value().get_object();
        metadata = std::string(std::string_view(object.raw_json()));
      } else if (key == "items") {
        has_items = true;
        for (auto item : field.value().get_array()) {
          simdjson::ondemand::object object = item.get_object();
          items.push_back(object.raw_json());
        }
      }
    }
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
  if (!has_items || kind.size() < 4 || !kind.ends_with("List")) return false;
  merge_raw_list(snapshot, kind, metadata, items, origin);
  return true;
}

} // namespace gpuslice::collect
