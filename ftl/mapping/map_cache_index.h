// Where the map cache (ftl/mapping/map_cache.h) finds a segment: which of its slots
// holds it, if any. The cache decides what is cached and evicted; this
// index only answers "which slot" and keeps one record per translation
// page (its resident segments, its write-back count for the cache's dirt
// marks, and its dense block).
//
// Three ways of indexing, chosen by size: with few segments (page-sized
// ones: 4 B per 4 MiB of user space) a direct array, smaller than the
// cache's own state, whose read is cheaper than a probe; otherwise a hash
// of the resident segments, sized by the cache, not by the drive (a
// per-entry cache over 4 TB has 2^30 segments), with pages that a
// sequential run fills indexed by position in a dense block instead.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/flat_map.h"
#include "sim/prefetch.h"
#include "sim/zero_array.h"

namespace ssdtwin {

class MapCacheIndex {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // Per translation page (4 MiB of user space): untouched zero pages
  // except where a page has been cached.
  struct Page {
    std::uint32_t gen;    // write-backs so far (wrapping): the cache's dirt marks
    std::uint32_t count;  // resident segments (kept by the cache)
    std::uint32_t
        dense;  // where its dense block starts in dense_, plus one (0: none, it is in the hash)
  };

  MapCacheIndex() = default;
  // `segments` of the drive, `capacity` slots, `tpage_shift`: log2 of the
  // segments per translation page.
  MapCacheIndex(std::uint32_t segments, std::uint32_t capacity, unsigned tpage_shift);

  Page& page(std::uint32_t tpage) { return pages_[tpage]; }
  const Page& page(std::uint32_t tpage) const { return pages_[tpage]; }
  std::uint32_t tpage_of_segment(std::uint32_t seg) const { return seg >> tpage_shift_; }

  bool direct() const { return direct_.size() != 0; }
  // Whether `seg` is indexed (without touching the memo).
  bool holds(std::uint32_t seg) const {
    if (direct()) return direct_[seg] != 0;
    if (const std::uint32_t b = pages_[tpage_of_segment(seg)].dense) return dense_at(b, seg) != 0;
    return slot_of_.find(seg) != nullptr && !erase_pending(seg);
  }

  // The slot of a resident segment, or nullptr. The last segment found is
  // remembered: a write looks its segment up and then dirties it, and with
  // page-sized segments a sequential run stays on one, so most calls skip
  // the hash (as cheap as the per-segment array was).
  const std::uint32_t* find(std::uint32_t seg) {
    if (seg == last_seg_) return &last_slot_;
    if (direct()) {
      const std::uint32_t v = direct_[seg];
      if (v == 0) return nullptr;
      last_seg_ = seg, last_slot_ = v - 1;
      return &last_slot_;
    }
    if (const std::uint32_t b = pages_[tpage_of_segment(seg)].dense) {
      const std::uint32_t v = dense_at(b, seg);
      if (v == 0) {
        missed_ = seg;
        return nullptr;
      }
      last_seg_ = seg, last_slot_ = v - 1;
      return &last_slot_;
    }
    const std::uint32_t* slot = slot_of_.find(seg);
    if (!slot || erase_pending(seg)) return nullptr;
    last_seg_ = seg, last_slot_ = *slot;
    return slot;
  }
  // find() for a segment about to be inserted: a segment find() has just
  // seen absent from a dense block is not looked for again (the hash keeps
  // its own memo).
  const std::uint32_t* find_before_insert(std::uint32_t seg) {
    const std::uint32_t* held = seg == missed_ ? nullptr : find(seg);
    missed_ = kNone;
    return held;
  }

  // Indexes `seg` at `slot` (called before its page's count rises).
  void insert(std::uint32_t seg, std::uint32_t slot) {
    if (direct()) {
      direct_[seg] = slot + 1;
      return;
    }
    Page& tp = pages_[tpage_of_segment(seg)];
    if (tp.dense == 0 && tp.count == 0 && (seg & (segs_per_tpage_ - 1)) == 0)
      tp.dense = take_dense(seg);
    if (tp.dense) {
      dense_at(tp.dense, seg) = slot + 1;
    } else {
      hash_insert(seg, slot);
    }
  }
  // An evicted segment's hash entry is erased later, with others: erasing
  // probes the entry's line, which an LRU victim has left cold; loaded on
  // eviction and erased a batch later, the line has had time to arrive
  // (and a batch's misses overlap). Until then the entry is stale: finds
  // check the batch.
  // (Called after the page's count has dropped: its dense block, if any,
  // goes back when the page holds no segment.)
  void erase(std::uint32_t seg) {
    if (seg == last_seg_) last_seg_ = kNone;
    if (direct()) {
      direct_[seg] = 0;
      return;
    }
    Page& tp = pages_[tpage_of_segment(seg)];
    if (tp.dense) {
      dense_at(tp.dense, seg) = 0;
      if (tp.count == 0) {
        free_dense_.push_back(tp.dense);
        tp.dense = 0;
      }
      return;
    }
    slot_of_.prefetch_erase(seg);
    pending_bits_ |= pending_bit(seg);
    pending_[pending_count_++] = seg;
    if (pending_count_ == kEraseBatch) erase_pending_entries();
  }

  // Loads the entries finds of segments [first, last] will read.
  void prefetch(std::uint32_t first, std::uint32_t last) const {
    if (direct()) {
      prefetch_line(&direct_[first]);
      prefetch_line(&direct_[last]);
    } else {
      // find() reads the page's record first (its dense block, if any).
      prefetch_line(&pages_[tpage_of_segment(first)]);
      prefetch_line(&pages_[tpage_of_segment(last)]);
      slot_of_.prefetch(first, last);
    }
  }
  // Loads the entry erasing `seg` will touch (not a dense page's cell: the
  // run that filled the block wrote it in order, and evictions read it in
  // the same order).
  void prefetch_erase_of(std::uint32_t seg) const {
    if (direct() || pages_[tpage_of_segment(seg)].dense == 0) prefetch(seg, seg);
  }

  // Translation pages whose segments are indexed by a dense block (tests).
  std::uint32_t dense_pages() const {
    return dense_blocks_ - static_cast<std::uint32_t>(free_dense_.size());
  }
  // Forgets every segment and page record (a snapshot load re-inserts them).
  void clear();

 private:
  // A segment's cell (slot plus one, 0: not resident) in its page's dense
  // block (the page's `dense` field).
  std::uint32_t& dense_at(std::uint32_t block, std::uint32_t seg) {
    return dense_[block - 1 + (seg & (segs_per_tpage_ - 1))];
  }
  std::uint32_t dense_at(std::uint32_t block, std::uint32_t seg) const {
    return dense_[block - 1 + (seg & (segs_per_tpage_ - 1))];
  }
  // A page with no resident segment gets a dense block when a sequential
  // run enters it: its first segment comes while the page before is wholly
  // resident (random access almost never does that).
  std::uint32_t take_dense(std::uint32_t seg);
  void hash_insert(std::uint32_t seg, std::uint32_t slot);
  // One bit per hash of a pending segment: a clear bit rules the batch out
  // at the cost of a multiply (every insert asks, and its answer is nearly
  // always no); a set bit, about one time in five with a full batch, scans.
  static std::uint64_t pending_bit(std::uint32_t seg) {
    return std::uint64_t{1} << ((std::uint64_t{seg} * 0x9E3779B97F4A7C15ull) >> 58);
  }
  bool erase_pending(std::uint32_t seg) const {
    if ((pending_bits_ & pending_bit(seg)) == 0) return false;
    bool found = false;
    for (const std::uint32_t p : pending_) found |= p == seg;  // branch-free: vectorized
    return found;
  }
  void erase_pending_entries();

  std::uint32_t segs_per_tpage_ = 1;
  unsigned tpage_shift_ = 0;
  FlatMap<std::uint32_t> slot_of_;  // segment -> slot, resident segments only
  static constexpr std::uint32_t kEraseBatch = 16;
  std::uint32_t pending_[kEraseBatch] = {};  // segments whose entries await erasure (kNone: none)
  std::uint32_t pending_count_ = 0;
  std::uint64_t pending_bits_ = 0;   // pending_bit() of each pending segment
  ZeroArray<std::uint32_t> direct_;  // or, with few segments, segment -> slot + 1
  std::uint32_t last_seg_ = kNone, last_slot_ = kNone;  // find()'s memo
  // A segment find() saw absent from a dense block, until it is inserted.
  std::uint32_t missed_ = kNone;
  ZeroArray<Page> pages_;
  // Segments of pages a sequential run fills are indexed by position in a
  // block per page instead of by hash (a sequential fill through a
  // per-entry cache inserts and evicts every segment, and the hash's
  // probes and erasures dominated the cache's work). Blocks are taken from
  // the front, reused from free_dense_, and at most dense_max_ (twice the
  // pages the cache can hold whole), so they cost at most twice the
  // cache's entries.
  std::vector<std::uint32_t> dense_;
  std::vector<std::uint32_t> free_dense_;
  std::uint32_t dense_blocks_ = 0, dense_max_ = 0;
};

}  // namespace ssdtwin
