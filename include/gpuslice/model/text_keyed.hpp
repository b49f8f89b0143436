// SPDX-License-Identifier: Apache-2.0
// TextKeyed<V>: the storage under StringMap and ResourceList — small maps from text keys, sorted
// by key, whose key text sits in one buffer and whose entries are one array of (key offset,
// value) slots. Two allocations a map instead of a tree node and heap strings an entry: at
// 5,000 nodes and 17,000 pods that difference was tens of MB of `diagnose --from-file`'s peak.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuslice::model {

// A random-access iterator over a map's entries by index; dereferencing asks the map for the
// entry (a pair of views and values, by value).
template <class Map> class EntryIterator {
public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = typename Map::value_type;
  using difference_type = std::ptrdiff_t;
  using reference = value_type;
  // What operator-> returns: the entry, held so that `it->second` works.
  struct pointer {
    value_type entry;
    const value_type* operator->() const { return &entry; }
  };

  EntryIterator() = default;
  EntryIterator(const Map* map, std::size_t index) : m_map(map), m_index(index) {}
  value_type operator*() const { return m_map->entry(m_index); }
  pointer operator->() const { return {m_map->entry(m_index)}; }
  value_type operator[](difference_type n) const { return m_map->entry(m_index + static_cast<std::size_t>(n)); }
  EntryIterator& operator++() { ++m_index; return *this; }
  EntryIterator operator++(int) { EntryIterator old = *this; ++m_index; return old; }
  EntryIterator& operator--() { --m_index; return *this; }
  EntryIterator operator--(int) { EntryIterator old = *this; --m_index; return old; }
  EntryIterator& operator+=(difference_type n) { m_index += static_cast<std::size_t>(n); return *this; }
  EntryIterator& operator-=(difference_type n) { m_index -= static_cast<std::size_t>(n); return *this; }
  friend EntryIterator operator+(EntryIterator it, difference_type n) { return it += n; }
  friend EntryIterator operator+(difference_type n, EntryIterator it) { return it += n; }
  friend EntryIterator operator-(EntryIterator it, difference_type n) { return it -= n; }
  friend difference_type operator-(const EntryIterator& a, const EntryIterator& b) {
    return static_cast<difference_type>(a.m_index) - static_cast<difference_type>(b.m_index);
  }
  friend bool operator==(const EntryIterator& a, const EntryIterator& b) { return a.m_index == b.m_index; }
  friend auto operator<=>(const EntryIterator& a, const EntryIterator& b) { return a.m_index <=> b.m_index; }
  std::size_t index() const { return m_index; }

private:
  const Map* m_map = nullptr;
  std::size_t m_index = 0;
};

// Keys and slots; the maps built on it decide what a slot's value is and how it reads.
template <class V> class TextKeyed {
public:
  std::size_t size() const { return m_slots.size(); }
  bool empty() const { return m_slots.empty(); }
  void clear() {
    m_text.clear();
    m_slots.clear();
  }

protected:
  struct Slot {
    std::uint32_t key_at = 0;
    std::uint32_t key_size = 0;
    V value{};
  };

  std::string_view key_of(const Slot& slot) const { return {m_text.data() + slot.key_at, slot.key_size}; }
  std::string_view text_at(std::uint32_t at, std::uint32_t size) const { return {m_text.data() + at, size}; }

  // First slot whose key is not less than `key`.
  std::size_t lower_bound(std::string_view key) const {
    // Decoders insert in the API's (sorted) key order: check the end first.
    if (m_slots.empty() || key_of(m_slots.back()) < key) return m_slots.size();
    auto it = std::lower_bound(m_slots.begin(), m_slots.end(), key,
                               [this](const Slot& slot, std::string_view k) { return key_of(slot) < k; });
    return static_cast<std::size_t>(it - m_slots.begin());
  }
  // The slot of `key`, or size() when absent.
  std::size_t index_of(std::string_view key) const {
    std::size_t index = lower_bound(key);
    return index < m_slots.size() && key_of(m_slots[index]) == key ? index : m_slots.size();
  }
  // Appends `parts` to the buffer, in order; the offset of the first. The parts may point into
  // the buffer itself. Throws std::length_error past 4 GiB.
  std::uint32_t append(std::string_view first, std::string_view second = {}) {
    std::size_t grown = m_text.size() + first.size() + second.size();
    if (grown > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("a map's text is over 4 GiB");
    auto at = static_cast<std::uint32_t>(m_text.size());
    if (grown > m_text.capacity()) {
      std::string text; // the old buffer stays valid while the parts are copied
      text.reserve(std::max(grown, 2 * m_text.capacity()));
      text.append(m_text).append(first).append(second);
      m_text = std::move(text);
    } else {
      // No reallocation: views into the buffer stay valid, and appending reads before it writes.
      m_text.append(first);
      m_text.append(second);
    }
    return at;
  }
  // Inserts a slot for a key known to be absent, at `index` (from lower_bound); the key's text
  // and `extra` are appended to the buffer and the offset of `extra` is returned.
  std::uint32_t insert_slot(std::size_t index, std::string_view key, V value, std::string_view extra = {}) {
    std::uint32_t at = append(key, extra);
    m_slots.insert(m_slots.begin() + static_cast<std::ptrdiff_t>(index),
                   Slot{at, static_cast<std::uint32_t>(key.size()), value});
    return static_cast<std::uint32_t>(at + key.size());
  }
  std::size_t erase_key(std::string_view key) {
    std::size_t index = index_of(key);
    if (index == m_slots.size()) return 0;
    m_slots.erase(m_slots.begin() + static_cast<std::ptrdiff_t>(index));
    if (m_slots.empty()) m_text.clear();
    return 1;
  }
  // Rewrites the buffer to hold only live text; `spans` lists, for a slot, the (offset, size)
  // pairs of its text after the key, so that each can be moved.
  template <class Spans> void compact(Spans&& spans) {
    std::size_t used = 0;
    for (Slot& slot : m_slots) {
      used += slot.key_size;
      spans(slot, [&](std::uint32_t&, std::uint32_t size) { used += size; });
    }
    if (used != m_text.size()) {
      std::string text;
      text.reserve(used);
      for (Slot& slot : m_slots) {
        auto key_at = static_cast<std::uint32_t>(text.size());
        text.append(key_of(slot));
        spans(slot, [&](std::uint32_t& at, std::uint32_t size) {
          auto moved = static_cast<std::uint32_t>(text.size());
          text.append(m_text, at, size);
          at = moved;
        });
        slot.key_at = key_at;
      }
      m_text = std::move(text);
    }
    m_text.shrink_to_fit();
    m_slots.shrink_to_fit();
  }

  std::string m_text;
  std::vector<Slot> m_slots; // sorted by key, keys unique
};

} // namespace gpuslice::model
