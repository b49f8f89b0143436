// SPDX-License-Identifier: Apache-2.0
#include "collect/live_assemble.hpp"

#include <algorithm>
#include <chrono>
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

// Sorts and drops later copies of the same object (stable, so the first read wins).
template <class T> void sort_unique(std::vector<T>& items) {
  std::stable_sort(items.begin(), items.end(), [](const T& a, const T& b) { return key_of(a) < key_of(b); });
  items.erase(std::unique(items.begin(), items.end(), [](const T& a, const T& b) { return key_of(a) == key_of(b); }),
              items.end());
}

} // namespace

Snapshot assemble(std::vector<Snapshot>& parts) {
  Snapshot all;
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
