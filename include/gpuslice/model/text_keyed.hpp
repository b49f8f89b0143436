// SPDX-License-Identifier: Apache-2.0
// TextKeyed<V>: the storage under StringMap and ResourceList — small maps from text keys, sorted
// by key, whose key text and sorted (key offset, value) slots share one allocation. One
// allocation a map instead of a tree node and heap strings an entry: at 5,000 nodes and 17,000
// pods that difference was tens of MB of `diagnose --from-file`'s peak.
#pragma once

#include <algorithm>
#include <compare>
#include <cstring>
#include <memory>
#include <type_traits>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

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
//
// One allocation holds everything: a header (sizes and capacities), the slots, then the text.
// The map itself is one pointer, null when empty: a pod holds six to ten of these maps, most
// of them empty or of one entry, and 17,000 pods of 56-byte maps were ~6 MB of structs alone.
template <class V> class TextKeyed {
protected:
  struct Slot {
    std::uint32_t key_at = 0;
    std::uint32_t key_size = 0;
    V value{};
  };
  static_assert(std::is_trivially_copyable_v<Slot>, "slots move by memcpy");

public:
  TextKeyed() = default;
  TextKeyed(const TextKeyed& other) { copy_from(other); }
  TextKeyed(TextKeyed&& other) noexcept : m_block(std::move(other.m_block)) {}
  TextKeyed& operator=(const TextKeyed& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  TextKeyed& operator=(TextKeyed&& other) noexcept {
    m_block = std::move(other.m_block);
    return *this;
  }
  ~TextKeyed() = default;

  std::size_t size() const { return m_block ? header().size : 0; }
  bool empty() const { return size() == 0; }
  void clear() { m_block.reset(); }

protected:
  const Slot& slot(std::size_t index) const { return slots()[index]; }
  Slot& slot(std::size_t index) { return slots()[index]; }
  char* text() { return reinterpret_cast<char*>(slots() + header().slot_capacity); }
  const char* text() const { return reinterpret_cast<const char*>(slots() + header().slot_capacity); }
  std::size_t text_size() const { return m_block ? header().text_size : 0; }

  std::string_view key_of(const Slot& s) const { return {text() + s.key_at, s.key_size}; }
  std::string_view text_at(std::uint32_t at, std::uint32_t size) const { return {text() + at, size}; }

  // First slot whose key is not less than `key`.
  std::size_t lower_bound(std::string_view key) const {
    const std::size_t n = size();
    // Decoders insert in the API's (sorted) key order: check the end first.
    if (n == 0 || key_of(slot(n - 1)) < key) return n;
    const Slot* first = slots();
    const Slot* it =
        std::lower_bound(first, first + n, key, [this](const Slot& s, std::string_view k) { return key_of(s) < k; });
    return static_cast<std::size_t>(it - first);
  }
  // The slot of `key`, or size() when absent.
  std::size_t index_of(std::string_view key) const {
    std::size_t index = lower_bound(key);
    return index < size() && key_of(slot(index)) == key ? index : size();
  }
  // Appends `value_text` to the text; its offset. The view may point into this map.
  std::uint32_t append(std::string_view value_text) {
    reserve(size(), text_size() + value_text.size(), value_text);
    return append_reserved(value_text);
  }
  // Inserts a slot for a key known to be absent, at `index` (from lower_bound); the key's text
  // and `extra` are appended to the text and the offset of `extra` is returned. The views may
  // point into this map.
  std::uint32_t insert_slot(std::size_t index, std::string_view key, V value, std::string_view extra = {}) {
    std::string key_copy; // reserve may move the text a view points into
    std::string extra_copy;
    if (m_block && points_into(key)) key = key_copy.assign(key);
    if (m_block && points_into(extra)) extra = extra_copy.assign(extra);
    reserve(size() + 1, text_size() + key.size() + extra.size(), {});
    std::uint32_t key_at = append_reserved(key);
    std::uint32_t extra_at = append_reserved(extra);
    Header& h = header();
    Slot* s = slots();
    std::memmove(s + index + 1, s + index, (h.size - index) * sizeof(Slot));
    s[index] = Slot{key_at, static_cast<std::uint32_t>(key.size()), value};
    ++h.size;
    return extra_at;
  }
  std::size_t erase_key(std::string_view key) {
    std::size_t index = index_of(key);
    if (index == size()) return 0;
    Header& h = header();
    Slot* s = slots();
    std::memmove(s + index, s + index + 1, (h.size - index - 1) * sizeof(Slot));
    if (--h.size == 0) m_block.reset();
    return 1;
  }
  // Rebuilds the block at exactly the size its entries need, dropping spare capacity and the
  // text of replaced values; `spans` lists, for a slot, the (offset, size) pairs of its text
  // after the key, so that each can be moved.
  template <class Spans> void compact(Spans&& spans) {
    if (!m_block) return;
    std::size_t used = 0;
    for (std::size_t i = 0; i < size(); ++i) {
      Slot s = slot(i);
      used += s.key_size;
      spans(s, [&](std::uint32_t&, std::uint32_t n) { used += n; });
    }
    TextKeyed out;
    out.allocate(size(), used);
    for (std::size_t i = 0; i < size(); ++i) {
      Slot s = slot(i);
      std::uint32_t key_at = out.append_reserved(key_of(s));
      spans(s, [&](std::uint32_t& at, std::uint32_t n) { at = out.append_reserved(text_at(at, n)); });
      s.key_at = key_at;
      out.slots()[i] = s;
    }
    out.header().size = header().size;
    m_block = std::move(out.m_block);
  }

private:
  struct Header {
    std::uint32_t size = 0;
    std::uint32_t slot_capacity = 0;
    std::uint32_t text_size = 0;
    std::uint32_t text_capacity = 0;
  };
  static_assert(alignof(Slot) <= sizeof(Header) && alignof(Slot) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

  Header& header() { return *reinterpret_cast<Header*>(m_block.get()); }
  const Header& header() const { return *reinterpret_cast<const Header*>(m_block.get()); }
  Slot* slots() { return reinterpret_cast<Slot*>(m_block.get() + sizeof(Header)); }
  const Slot* slots() const { return reinterpret_cast<const Slot*>(m_block.get() + sizeof(Header)); }
  bool points_into(std::string_view view) const {
    auto p = reinterpret_cast<std::uintptr_t>(view.data());
    auto first = reinterpret_cast<std::uintptr_t>(m_block.get());
    return p >= first && p < first + block_bytes(header().slot_capacity, header().text_capacity);
  }
  static std::size_t block_bytes(std::size_t slot_capacity, std::size_t text_capacity) {
    return sizeof(Header) + slot_capacity * sizeof(Slot) + text_capacity;
  }
  // A fresh empty block with these capacities (replacing any block held).
  void allocate(std::size_t slot_capacity, std::size_t text_capacity) {
    if (slot_capacity > std::numeric_limits<std::uint32_t>::max() ||
        text_capacity > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("a map's text is over 4 GiB");
    m_block.reset(new std::byte[block_bytes(slot_capacity, text_capacity)]);
    header() = Header{0, static_cast<std::uint32_t>(slot_capacity), 0, static_cast<std::uint32_t>(text_capacity)};
  }
  // Room for `slot_count` slots and `text_bytes` of text, growing by doubling. `keep` (a view
  // that may point into the block) stays readable: the old block lives until the copy is done.
  void reserve(std::size_t slot_count, std::size_t text_bytes, std::string_view& keep) {
    if (m_block && slot_count <= header().slot_capacity && text_bytes <= header().text_capacity) return;
    std::size_t slot_capacity = m_block ? std::max<std::size_t>(slot_count, 2 * header().slot_capacity) : slot_count;
    std::size_t text_capacity = m_block ? std::max<std::size_t>(text_bytes, 2 * header().text_capacity) : text_bytes;
    TextKeyed grown;
    grown.allocate(slot_capacity, text_capacity);
    if (m_block) {
      const Header& h = header();
      std::memcpy(grown.slots(), slots(), h.size * sizeof(Slot));
      std::memcpy(grown.text(), text(), h.text_size);
      grown.header().size = h.size;
      grown.header().text_size = h.text_size;
      if (points_into(keep)) keep = {grown.text() + (keep.data() - text()), keep.size()};
    }
    m_block = std::move(grown.m_block);
  }
  void reserve(std::size_t slot_count, std::size_t text_bytes, std::string_view&& keep) {
    reserve(slot_count, text_bytes, keep);
  }
  // Appends text for which room is reserved; its offset. Reads the source before writing past
  // the text's end, so a source inside the text is fine.
  std::uint32_t append_reserved(std::string_view part) {
    if (!m_block) return 0; // nothing reserved: only an empty part gets here
    Header& h = header();
    std::uint32_t at = h.text_size;
    if (!part.empty()) std::memcpy(text() + at, part.data(), part.size());
    h.text_size += static_cast<std::uint32_t>(part.size());
    return at;
  }
  void copy_from(const TextKeyed& other) {
    if (!other.m_block) {
      m_block.reset();
      return;
    }
    TextKeyed copy;
    const Header& h = other.header();
    copy.allocate(h.size, h.text_size);
    std::memcpy(copy.slots(), other.slots(), h.size * sizeof(Slot));
    std::memcpy(copy.text(), other.text(), h.text_size);
    copy.header().size = h.size;
    copy.header().text_size = h.text_size;
    m_block = std::move(copy.m_block);
  }

  std::unique_ptr<std::byte[]> m_block;
};

} // namespace gpuslice::model
