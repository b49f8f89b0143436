// SPDX-License-Identifier: Apache-2.0
// StringMap: labels, annotations, nodeSelector and ConfigMap data — text keys to text values,
// sorted by key, held in one block of sorted offsets and text (model/text_keyed.hpp).
//
// Why not std::map<std::string, std::string>: a node's 22 labels were 22 tree nodes plus up to
// 44 heap strings (~4 KB); here they are one allocation (~1.3 KB). At 5,000 nodes and 17,000
// pods that was ~20 MB of `diagnose --from-file`'s peak. Entries are read as string_views into
// the block, valid until the map is next changed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

#include <gpuslice/model/text_keyed.hpp>

namespace gpuslice::model {

namespace string_map_detail {
// Where a value's text sits in the buffer.
struct Span {
  std::uint32_t at = 0;
  std::uint32_t size = 0;
};
} // namespace string_map_detail

class StringMap : public TextKeyed<string_map_detail::Span> {
public:
  using key_type = std::string_view;
  using mapped_type = std::string_view;
  using value_type = std::pair<std::string_view, std::string_view>;
  using size_type = std::size_t;
  using const_iterator = EntryIterator<StringMap>;
  using iterator = const_iterator;

  StringMap() = default;
  StringMap(std::initializer_list<value_type> entries);
  template <class It> StringMap(It first, It last) {
    for (; first != last; ++first) insert_or_assign((*first).first, (*first).second);
  }

  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  const_iterator find(std::string_view key) const { return {this, index_of(key)}; }
  bool contains(std::string_view key) const { return index_of(key) != size(); }
  std::size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }
  // The value of `key`; throws std::out_of_range naming the key when absent.
  std::string_view at(std::string_view key) const;

  // Sets key to value, replacing a value already there; true when the key is new. The views
  // may point into this map.
  bool insert_or_assign(std::string_view key, std::string_view value);
  // Adds key -> value unless the key is present (std::map::emplace's rule); true when added.
  bool emplace(std::string_view key, std::string_view value);
  // Removes `key`; the number removed (0 or 1).
  std::size_t erase(std::string_view key) { return erase_key(key); }
  // Drops spare capacity and the text of replaced or erased entries (decoders call it once a
  // map is complete).
  void shrink_to_fit();

  // Same entries; the buffer's layout does not matter.
  friend bool operator==(const StringMap& a, const StringMap& b);

  // (key, value) of the entry at `index` < size(); what the iterators read.
  value_type entry(std::size_t index) const {
    const Slot& s = slot(index);
    return {key_of(s), text_at(s.value.at, s.value.size)};
  }
};

} // namespace gpuslice::model
