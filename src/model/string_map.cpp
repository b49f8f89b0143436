// SPDX-License-Identifier: Apache-2.0
#include <gpuslice/model/string_map.hpp>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gpuslice::model {

StringMap::StringMap(std::initializer_list<value_type> entries) {
  for (const auto& [key, value] : entries) insert_or_assign(key, value);
}

std::string_view StringMap::at(std::string_view key) const {
  std::size_t index = index_of(key);
  if (index == size()) throw std::out_of_range("no entry \"" + std::string(key) + "\"");
  return entry(index).second;
}

bool StringMap::insert_or_assign(std::string_view key, std::string_view value) {
  std::size_t index = lower_bound(key);
  auto value_size = static_cast<std::uint32_t>(value.size());
  if (index < size() && key_of(slot(index)) == key) {
    if (value_size <= slot(index).value.size) {
      // Fits where the old value was; value may alias the text, so move, don't copy.
      std::memmove(text() + slot(index).value.at, value.data(), value.size());
      slot(index).value.size = value_size;
    } else {
      std::uint32_t at = append(value); // may move the block: take the slot after
      slot(index).value = {at, value_size};
    }
    return false;
  }
  std::uint32_t value_at = insert_slot(index, key, {}, value);
  slot(index).value = {value_at, value_size};
  return true;
}

bool StringMap::emplace(std::string_view key, std::string_view value) {
  if (contains(key)) return false;
  return insert_or_assign(key, value);
}

void StringMap::shrink_to_fit() {
  compact([](Slot& slot, auto&& move) { move(slot.value.at, slot.value.size); });
}

bool operator==(const StringMap& a, const StringMap& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

} // namespace gpuslice::model
