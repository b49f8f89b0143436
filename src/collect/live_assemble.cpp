// SPDX-License-Identifier: Apache-2.0
#include "collect/live_assemble.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <tuple>

#include "collect/record_lists.hpp"

namespace gpuslice::collect {
namespace {

template <class T> auto key_of(const T& item) {
  if constexpr (requires { item.meta; })
    return std::tie(item.meta.ns, item.meta.name);
  else
    return std::tie(item.ns, item.secret_name, item.name);
}

// Moves the items and frees `from` at once: its room (~14 MB for the pods of 500 GPU nodes)
// would otherwise stay until every part is gone.
template <class T> void append(std::vector<T>& into, std::vector<T>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  std::vector<T>().swap(from);
}

// Sorts and drops later copies of the same object (the first read wins). Positions are sorted,
// not records, then the records are moved into place along the permutation's cycles: a pod is
// ~870 bytes, and std::stable_sort's buffer of 17,000 of them was 15 MB at the peak of a live
// read at L.
template <class T> void sort_unique(std::vector<T>& items) {
  std::vector<std::uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tuple_cat(key_of(items[a]), std::tie(a)) < std::tuple_cat(key_of(items[b]), std::tie(b));
  });
  // items[k] is to hold what is now at items[order[k]].
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    T held = std::move(items[start]);
    std::size_t at = start;
    while (order[at] != start) {
      std::size_t from = order[at];
      items[at] = std::move(items[from]);
      order[at] = static_cast<std::uint32_t>(at);
      at = from;
    }
    items[at] = std::move(held);
    order[at] = static_cast<std::uint32_t>(at);
  }
  items.erase(std::unique(items.begin(), items.end(), [](const T& a, const T& b) { return key_of(a) == key_of(b); }),
              items.end());
}

} // namespace

Snapshot assemble(std::vector<Snapshot>& parts) {
  // Each list reserved at its full size first: grown by doubling, the 17,000 pods of a live
  // read at L had room for 32,000 and, while it moved, both blocks (~40 MB) at once.
  std::vector<std::size_t> totals;
  for (Snapshot& part : parts) {
    std::size_t list = 0;
    for_each_record_list([&](const auto& items) {
      if (totals.size() == list) totals.push_back(0);
      totals[list++] += items.size();
    }, part);
  }
  Snapshot all;
  std::size_t list = 0;
  for_each_record_list([&](auto& items) { if (list < totals.size()) items.reserve(totals[list++]); }, all);
  for (Snapshot& part : parts) {
    for_each_record_list([](auto& into, auto& from) { append(into, from); }, all, part);
    append(all.meta.notes, part.meta.notes);
    if (!all.autoscaler_status && part.autoscaler_status) all.autoscaler_status = std::move(part.autoscaler_status);
  }
  for_each_record_list([](auto& items) { sort_unique(items); }, all);
  return all;
}

std::string now_rfc3339() {
  return model::format_time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

} // namespace gpuslice::collect
