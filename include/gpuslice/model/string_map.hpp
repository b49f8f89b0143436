// SPDX-License-Identifier: Apache-2.0
// StringMap: labels, annotations, nodeSelector and ConfigMap data — text keys to text values,
// sorted by key, held in one text buffer plus a sorted array of offsets.
//
// Why not std::map<std::string, std::string>: a node's 22 labels were 22 tree nodes plus up to
// 44 heap strings (~4 KB); here they are two allocations (~1.3 KB). At 5,000 nodes and 17,000
// pods that was ~20 MB of `diagnose --from-file`'s peak. Entries are read as string_views into
// the buffer, valid until the map is next changed.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuslice::model {

class StringMap {
  struct Slot {
    std::uint32_t key_at = 0;
    std::uint32_t key_size = 0;
    std::uint32_t value_at = 0;
    std::uint32_t value_size = 0;
  };

public:
  using key_type = std::string_view;
  using mapped_type = std::string_view;
  using value_type = std::pair<std::string_view, std::string_view>;
  using size_type = std::size_t;

  // Iterates entries in key order; dereferencing yields the (key, value) pair by value.
  class const_iterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = StringMap::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    // What operator-> returns: the pair, held so that `it->second` works.
    struct pointer {
      value_type entry;
      const value_type* operator->() const { return &entry; }
    };

    const_iterator() = default;
    value_type operator*() const { return m_map->entry(m_index); }
    pointer operator->() const { return {m_map->entry(m_index)}; }
    value_type operator[](difference_type n) const { return m_map->entry(m_index + static_cast<std::size_t>(n)); }
    const_iterator& operator++() { ++m_index; return *this; }
    const_iterator operator++(int) { const_iterator old = *this; ++m_index; return old; }
    const_iterator& operator--() { --m_index; return *this; }
    const_iterator operator--(int) { const_iterator old = *this; --m_index; return old; }
    const_iterator& operator+=(difference_type n) { m_index += static_cast<std::size_t>(n); return *this; }
    const_iterator& operator-=(difference_type n) { m_index -= static_cast<std::size_t>(n); return *this; }
    friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
    friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
    friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.m_index) - static_cast<difference_type>(b.m_index);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.m_index == b.m_index; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.m_index <=> b.m_index; }

  private:
    friend class StringMap;
    const_iterator(const StringMap* map, std::size_t index) : m_map(map), m_index(index) {}
    const StringMap* m_map = nullptr;
    std::size_t m_index = 0;
  };
  using iterator = const_iterator;

  StringMap() = default;
  StringMap(std::initializer_list<value_type> entries);
  template <class It> StringMap(It first, It last) {
    for (; first != last; ++first) insert_or_assign((*first).first, (*first).second);
  }

  std::size_t size() const { return m_slots.size(); }
  bool empty() const { return m_slots.empty(); }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, m_slots.size()}; }

  const_iterator find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }
  std::size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }
  // The value of `key`; throws std::out_of_range naming the key when absent.
  std::string_view at(std::string_view key) const;

  // Sets key to value, replacing a value already there; true when the key is new.
  bool insert_or_assign(std::string_view key, std::string_view value);
  // Adds key -> value unless the key is present (std::map::emplace's rule); true when added.
  bool emplace(std::string_view key, std::string_view value);
  // Removes `key`; the number removed (0 or 1).
  std::size_t erase(std::string_view key);
  void clear();
  // Drops spare capacity and the text of replaced or erased entries (decoders call it once a
  // map is complete).
  void shrink_to_fit();

  // Same entries; the buffer's layout does not matter.
  friend bool operator==(const StringMap& a, const StringMap& b);

private:
  value_type entry(std::size_t index) const;
  std::string_view key_of(const Slot& slot) const { return {m_text.data() + slot.key_at, slot.key_size}; }
  std::string_view value_of(const Slot& slot) const { return {m_text.data() + slot.value_at, slot.value_size}; }
  // First slot whose key is not less than `key`.
  std::size_t lower_bound(std::string_view key) const;
  // Appends text to the buffer; its offset. Throws std::length_error past 4 GiB.
  std::uint32_t append(std::string_view text);

  std::string m_text;
  std::vector<Slot> m_slots; // sorted by key, keys unique
};

} // namespace gpuslice::model
