// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/string_map.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gpuslice::model {

StringMap::StringMap(std::initializer_list<value_type> entries) {
  for (const auto& [key, value] : entries) insert_or_assign(key, value);
}

StringMap::value_type StringMap::entry(std::size_t index) const {
  const Slot& slot = m_slots[index];
  return {key_of(slot), value_of(slot)};
}

std::size_t StringMap::lower_bound(std::string_view key) const {
  // Decoders insert in the API's (sorted) key order: check the end first.
  if (m_slots.empty() || key_of(m_slots.back()) < key) return m_slots.size();
  auto it = std::lower_bound(m_slots.begin(), m_slots.end(), key,
                             [this](const Slot& slot, std::string_view k) { return key_of(slot) < k; });
  return static_cast<std::size_t>(it - m_slots.begin());
}

StringMap::const_iterator StringMap::find(std::string_view key) const {
  std::size_t index = lower_bound(key);
  if (index < m_slots.size() && key_of(m_slots[index]) == key) return {this, index};
  return end();
}

std::string_view StringMap::at(std::string_view key) const {
  auto it = find(key);
  if (it == end()) throw std::out_of_range("no entry \"" + std::string(key) + "\"");
  return it->second;
}

std::uint32_t StringMap::append(std::string_view text) {
  if (m_text.size() + text.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("a string map's text is over 4 GiB");
  auto at = static_cast<std::uint32_t>(m_text.size());
  m_text.append(text);
  return at;
}

bool StringMap::insert_or_assign(std::string_view key, std::string_view value) {
  std::size_t index = lower_bound(key);
  if (index < m_slots.size() && key_of(m_slots[index]) == key) {
    Slot& slot = m_slots[index];
    if (value.size() <= slot.value_size) {
      // Fits where the old value was; value may alias the buffer, so move, don't copy.
      std::char_traits<char>::move(m_text.data() + slot.value_at, value.data(), value.size());
    } else {
      std::string copy(value); // append may reallocate the buffer `value` points into
      slot.value_at = append(copy);
    }
    slot.value_size = static_cast<std::uint32_t>(value.size());
    return false;
  }
  // key and value may point into m_text; copy them before the buffer grows.
  std::string text;
  text.reserve(key.size() + value.size());
  text.append(key).append(value);
  std::uint32_t at = append(text);
  m_slots.insert(m_slots.begin() + static_cast<std::ptrdiff_t>(index),
                 Slot{at, static_cast<std::uint32_t>(key.size()), static_cast<std::uint32_t>(at + key.size()),
                      static_cast<std::uint32_t>(value.size())});
  return true;
}

bool StringMap::emplace(std::string_view key, std::string_view value) {
  if (contains(key)) return false;
  return insert_or_assign(key, value);
}

std::size_t StringMap::erase(std::string_view key) {
  std::size_t index = lower_bound(key);
  if (index == m_slots.size() || key_of(m_slots[index]) != key) return 0;
  m_slots.erase(m_slots.begin() + static_cast<std::ptrdiff_t>(index));
  if (m_slots.empty()) m_text.clear();
  return 1;
}

void StringMap::clear() {
  m_text.clear();
  m_slots.clear();
}

void StringMap::shrink_to_fit() {
  std::size_t used = 0;
  for (const Slot& slot : m_slots) used += slot.key_size + slot.value_size;
  if (used != m_text.size()) {
    std::string text;
    text.reserve(used);
    for (Slot& slot : m_slots) {
      auto key_at = static_cast<std::uint32_t>(text.size());
      text.append(key_of(slot));
      auto value_at = static_cast<std::uint32_t>(text.size());
      text.append(value_of(slot));
      slot.key_at = key_at;
      slot.value_at = value_at;
    }
    m_text = std::move(text);
  }
  m_text.shrink_to_fit();
  m_slots.shrink_to_fit();
}

bool operator==(const StringMap& a, const StringMap& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

} // namespace gpuslice::model
