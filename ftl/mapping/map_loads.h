// The map cache's loads in flight: per segment being read from flash,
// whether it is dirtied on arrival, and the host reads waiting for it, in
// order. A handful at a time, so a table by load rather than an array by
// segment (room for 64 at the start; it doubles in the rare run with more);
// the waiting reads are a free-listed pool, reused without allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/address.h"
#include "sim/flat_map.h"

namespace ssdtwin {

class MapLoads {
 public:
  bool empty() const { return loads_.empty(); }
  // Whether `seg` is being loaded; if so, a dirty request marks it dirty.
  bool joined(std::uint32_t seg, bool dirty) {
    if (loads_.empty()) return false;  // (a fill's new pages: no probe)
    Load* l = loads_.find(seg);
    if (!l) return false;
    if (dirty) l->dirty = true;
    return true;
  }
  void start(std::uint32_t seg, bool dirty) { loads_.insert(seg, Load{kNone, dirty}); }
  // Host command `cmd`'s read of [first, first+count) waits for `seg`'s load
  // (which must be in flight), behind the reads already waiting.
  void wait(std::uint32_t seg, std::uint64_t cmd, Lpn first, std::uint32_t count) {
    std::uint32_t i = free_;
    if (i != kNone) {
      free_ = reads_[i].next;
    } else {
      i = static_cast<std::uint32_t>(reads_.size());
      reads_.push_back({});
    }
    reads_[i] = Read{cmd, first, count, kNone};
    std::uint32_t* tail = &loads_.find(seg)->waiters;
    while (*tail != kNone) tail = &reads_[*tail].next;
    *tail = i;
  }
  // `seg`'s load arrived: `dirty` says whether it is taken in dirty, then
  // `resume(cmd, first, count)` for each read that waited, oldest first.
  template <class Insert, class Resume>
  void finish(std::uint32_t seg, Insert insert, Resume resume) {
    const Load load = *loads_.find(seg);
    loads_.erase(seg);
    insert(load.dirty);
    for (std::uint32_t i = load.waiters; i != kNone;) {
      const Read r = reads_[i];
      reads_[i].next = free_;
      free_ = i;
      resume(r.cmd, r.first, r.count);
      i = r.next;
    }
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Load {
    std::uint32_t waiters;  // the first read waiting (reads_), kNone for none
    bool dirty;
  };
  struct Read {
    std::uint64_t cmd;
    Lpn first;
    std::uint32_t count;
    std::uint32_t next;  // the next read waiting for the same load, or in the free list
  };
  FlatMap<Load> loads_{64};
  std::vector<Read> reads_;
  std::uint32_t free_ = kNone;
};

}  // namespace ssdtwin
