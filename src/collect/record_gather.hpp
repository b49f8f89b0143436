// SPDX-License-Identifier: Apache-2.0
// Gathering decoded records into a Snapshot's list when the same object may come twice (two
// overlapping files): the later copy replaces the earlier one, which keeps its place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include <gpuslice/snapshot.hpp>

namespace gpuslice::collect {

// Large blocks straight from the kernel, so that freeing one gives its pages back at once:
// from malloc they would stay in the process (glibc raises its mmap threshold once the first
// big buffer is freed) and add to the peak while the records move into the final list. A
// worker's block of one batch of pods (~160) is ~140 KB: above the threshold.
template <class T> struct PageAllocator {
  using value_type = T;
  static constexpr std::size_t k_page_bytes = std::size_t{64} << 10;
  PageAllocator() = default;
  template <class U> explicit PageAllocator(const PageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n * sizeof(T) < k_page_bytes) return std::allocator<T>().allocate(n);
    void* pages = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(pages);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < k_page_bytes) return std::allocator<T>().deallocate(p, n);
    munmap(p, n * sizeof(T));
  }
  bool operator==(const PageAllocator&) const = default;
};
template <class T> using RecordBlock = std::vector<T, PageAllocator<T>>;

// (namespace, name) of each record by position; a Helm release without a Secret name is
// named <release>.<revision>, built into `built`.
template <class T>
std::vector<std::pair<std::string_view, std::string_view>> record_keys(const std::vector<T>& items,
                                                                       std::vector<std::string>& built) {
  std::vector<std::pair<std::string_view, std::string_view>> keys;
  keys.reserve(items.size());
  if constexpr (requires(const T& item) { item.meta; }) {
    for (const T& item : items) keys.emplace_back(item.meta.ns, item.meta.name);
  } else {
    built.reserve(items.size()); // never reallocated: the views below stay valid
    for (const T& item : items) {
      built.push_back(item.secret_name.empty() ? item.name + "." + std::to_string(item.revision) : item.secret_name);
      keys.emplace_back(item.ns, built.back());
    }
  }
  return keys;
}

// Of several copies of one object, keeps the first place and the last copy's value. Positions
// are sorted, not records (a pod is ~870 bytes), and nothing is indexed while records come in:
// a map from (namespace, name) to position cost ~15 MB for the 26,000 records of an L snapshot.
template <class T> void replace_copies(std::vector<T>& items) {
  std::vector<std::string> built;
  const std::vector<std::pair<std::string_view, std::string_view>> keys = record_keys(items, built);
  std::vector<std::uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(keys[a], a) < std::tie(keys[b], b);
  });
  std::vector<bool> dropped(items.size());
  bool any = false;
  for (std::size_t first = 0, next = 1; first < order.size(); first = next++) {
    while (next < order.size() && keys[order[next]] == keys[order[first]]) dropped[order[next++]] = true;
    if (next - first == 1) continue;
    items[order[first]] = std::move(items[order[next - 1]]);
    any = true;
  }
  if (!any) return;
  std::size_t kept = 0;
  for (std::size_t at = 0; at < items.size(); ++at)
    if (!dropped[at]) {
      if (kept != at) items[kept] = std::move(items[at]);
      ++kept;
    }
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(kept), items.end());
}

// Moves `more` onto the end of `items` into room reserved once, freeing each block of `more`
// as soon as it is moved.
template <class T, class Block> void append_blocks(std::vector<T>& items, std::vector<Block>& more) {
  std::size_t total = items.size();
  for (const Block& block : more) total += block.size();
  items.reserve(total);
  for (Block& block : more) {
    items.insert(items.end(), std::make_move_iterator(block.begin()), std::make_move_iterator(block.end()));
    Block().swap(block);
  }
  more.clear();
}

// Collects records for one list of a Snapshot; finish() puts them in it. Records are held in
// blocks of at most ~1 MiB, not one vector grown by doubling: at its last doubling such a
// vector holds room for three times its records at once (42 MB for 17,000 pods).
template <class T> class RecordGather {
public:
  explicit RecordGather(std::vector<T>& items) : m_items(items) {}

  // `at_most`, when known (the items left in a worker's batch), sizes a new block to hold
  // all the records still to come, so that a batch of one kind fills a single block.
  void put(T item, std::size_t at_most = 0) {
    if (m_blocks.empty() || m_blocks.back().size() == m_blocks.back().capacity()) {
      // Small first blocks: most merges bring a few records.
      const std::size_t largest = k_block_bytes / sizeof(T) + 1;
      std::size_t size = at_most > 0 ? std::min(at_most, largest) : std::clamp<std::size_t>(m_count, 8, largest);
      m_blocks.emplace_back().reserve(size);
    }
    m_blocks.back().push_back(std::move(item));
    ++m_count;
  }

  // Hands the blocks gathered so far to another gather (not to the list): records decoded on
  // a worker then move once, into the final list, and not block by block between gathers.
  void hand_over(std::vector<RecordBlock<T>>& to) {
    for (RecordBlock<T>& block : m_blocks) to.push_back(std::move(block));
    m_blocks.clear();
    m_count = 0;
  }
  // Records gathered and not yet in the list.
  std::size_t size() const { return m_count; }

  // Takes blocks handed over, after the records put so far.
  void take(std::vector<RecordBlock<T>>& from) {
    for (RecordBlock<T>& block : from) {
      m_count += block.size();
      m_blocks.push_back(std::move(block));
    }
    from.clear();
  }

  // Moves what put() gathered into the list and replaces earlier copies of the same objects.
  void finish() {
    if (m_blocks.empty()) return;
    append_blocks(m_items, m_blocks);
    m_count = 0;
    replace_copies(m_items);
  }

private:
  static constexpr std::size_t k_block_bytes = std::size_t{1} << 20;
  std::vector<T>& m_items;
  std::vector<RecordBlock<T>> m_blocks;
  std::size_t m_count = 0;
};

// Records of each Snapshot list in blocks, on their way from a worker to the merge; its
// members are named as the Snapshot's (for_each_record_list treats both alike).
struct RecordBlocks {
  std::vector<RecordBlock<model::Node>> nodes;
  std::vector<RecordBlock<model::Pod>> pods;
  std::vector<RecordBlock<model::Event>> events;
  std::vector<RecordBlock<model::DaemonSet>> daemonsets;
  std::vector<RecordBlock<model::Workload>> deployments;
  std::vector<RecordBlock<model::Workload>> statefulsets;
  std::vector<RecordBlock<model::ConfigMap>> configmaps;
  std::vector<RecordBlock<model::HelmRelease>> helm_releases;
  std::vector<RecordBlock<model::ClusterPolicy>> cluster_policies;
  std::vector<RecordBlock<model::DeviceClass>> device_classes;
  std::vector<RecordBlock<model::ResourceSlice>> resource_slices;
  std::vector<RecordBlock<model::ResourceClaim>> resource_claims;
  std::vector<RecordBlock<model::ResourceClaimTemplate>> resource_claim_templates;
};

} // namespace gpuslice::collect
