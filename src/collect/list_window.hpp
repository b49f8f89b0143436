// SPDX-License-Identifier: Apache-2.0
// A JSON List (kubectl `get -o json`, our snapshot) read through a window of a few MiB: the
// items are cut out one at a time by their brackets and quotes, so that neither the whole file
// nor a structural index of it is ever in memory (a 5,000-node snapshot is 128 MB).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpuslice::collect {

// Fills `into` with up to `size` bytes and returns how many; 0 at the end.
using ReadBytes = std::function<std::size_t(char* into, std::size_t size)>;

// Reads `text`, which must outlive the reader, from its start.
ReadBytes text_reader(std::string_view text);

// The top-level members of a List other than its items, as raw JSON text ("" when absent).
struct ListHead {
  std::string kind;     // raw JSON, e.g. "\"List\""
  std::string metadata; // raw JSON object
};

// The raw text of one item (a view valid during the call) and the members read so far.
using OnListItem = std::function<void(std::string_view item, const ListHead& before)>;

// Calls on_item with the raw text of each element of the top-level object's "items" array
// and the members before the array, and returns all members but the items. nullopt, as soon as it is
// seen, when the text is not one object with a single "items" array whose elements are all
// objects, or is cut short, or has anything but whitespace after the object. The brackets of
// each item are balanced but not otherwise checked: the caller parses every item. Reads
// `window` bytes at a time; the window grows only to hold an item larger than itself.
std::optional<ListHead> scan_list_items(const ReadBytes& read, const OnListItem& on_item,
                                        std::size_t window = std::size_t{4} << 20);

} // namespace gpuslice::collect
