#include "ftl/mapping/map_cache_index.h"

#include <algorithm>
#include <iterator>

namespace ssdtwin {

MapCacheIndex::MapCacheIndex(std::uint32_t segments, std::uint32_t capacity, unsigned tpage_shift)
    : segs_per_tpage_(std::uint32_t{1} << tpage_shift), tpage_shift_(tpage_shift) {
  // The direct index when it is small: no more than the hash would take
  // (16 B per slot: twice the slots, 8 B a bucket) or 4 MiB (page-sized
  // segments of a 4 TB drive), a sliver of the mapping tables' 2 MiB per
  // GiB. Per-entry segments of a large drive take the hash.
  constexpr std::uint64_t kDirectBytes = std::uint64_t{4} << 20;
  if (std::uint64_t{segments} * 4 <= std::max<std::uint64_t>(16ull * capacity, kDirectBytes))
    direct_ = ZeroArray<std::uint32_t>(segments);
  // else the hash, grown by doubling as segments come: a cache the workload
  // fills in part (a trace's few thousand segments of a 2 MiB per-entry
  // cache) keeps a small table that stays in the CPU's caches, and the
  // empty buckets of a full-size one are never written.
  std::fill(std::begin(pending_), std::end(pending_), kNone);
  // (Block starts are 32-bit offsets into dense_.)
  if (!direct())
    dense_max_ = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(2 * std::uint64_t{capacity / segs_per_tpage_} + 2,
                                (UINT32_MAX - segs_per_tpage_) / segs_per_tpage_));
  pages_ = ZeroArray<Page>((std::uint64_t{segments} + segs_per_tpage_ - 1) / segs_per_tpage_);
}

void MapCacheIndex::hash_insert(std::uint32_t seg, std::uint32_t slot) {
  if (erase_pending(seg)) {  // back before its entry went: reuse it
    for (std::uint32_t& p : pending_) p = p == seg ? kNone : p;
    *slot_of_.find(seg) = slot;
  } else {
    slot_of_.insert(seg, slot);
  }
}

std::uint32_t MapCacheIndex::take_dense(std::uint32_t seg) {
  const std::uint32_t tpage = tpage_of_segment(seg);
  if (tpage == 0 || pages_[tpage - 1].count != segs_per_tpage_) return 0;
  if (!free_dense_.empty()) {
    const std::uint32_t b = free_dense_.back();
    free_dense_.pop_back();
    return b;
  }
  if (dense_blocks_ == dense_max_) return 0;
  ++dense_blocks_;
  dense_.resize(dense_.size() + segs_per_tpage_, 0);
  return static_cast<std::uint32_t>(dense_.size() - segs_per_tpage_ + 1);
}

void MapCacheIndex::erase_pending_entries() {
  // Newest first: an LRU cache evicts a sequential run in key order, and
  // a backward-shift erase walks to the end of its probe run, so erasing
  // a group's last key first leaves a hole where each earlier one stops.
  for (std::uint32_t i = kEraseBatch; i-- > 0;) {
    std::uint32_t& seg = pending_[i];
    if (seg != kNone) slot_of_.erase(seg);
    seg = kNone;
  }
  pending_count_ = 0;
  pending_bits_ = 0;
}

void MapCacheIndex::clear() {
  slot_of_.clear();
  std::fill(std::begin(pending_), std::end(pending_), kNone);
  pending_count_ = 0;
  pending_bits_ = 0;
  direct_.clear();
  last_seg_ = kNone;
  missed_ = kNone;
  pages_.clear();
  dense_.clear();
  free_dense_.clear();
  dense_blocks_ = 0;
}

}  // namespace ssdtwin
