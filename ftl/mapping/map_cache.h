// The mapping-table cache of a controller: which parts of the logical-to-
// physical table are held in SRAM, DRAM or the NVMe Host Memory Buffer.
//
// The table lives in flash as translation pages (4 KiB, `entries_per_tpage`
// logical pages each). The cache holds segments of them (a whole
// translation page, or a fraction), evicted by a named policy. A read whose
// segment is missing waits for a flash read of it; writes dirty their
// segment, and an evicted dirty segment makes its translation page be
// written back (ftl/ftl.cpp drives those operations). A cache as large as
// the table never misses: a DRAM drive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftl/address.h"
#include "ftl/mapping/map_cache_index.h"
#include "sim/policy_table.h"
#include "sim/prefetch.h"
#include "sim/time.h"
#include "sim/zero_array.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

struct MapCacheConfig {
  enum class Location : std::uint8_t { kSram, kDram, kHmb };
  Location location = Location::kDram;
  std::uint64_t size_bytes = 0;        // 0: the whole table
  std::uint32_t entry_bytes = 4;       // one mapping entry
  std::uint32_t segment_bytes = 4096;  // caching granularity, at most a translation page
  std::string policy = "lru";
  Tick access_time = 0;  // per lookup: memory latency (HMB: PCIe round trip)

  static constexpr std::uint32_t kTpageBytes = kSectorBytes;
  std::uint32_t entries_per_tpage() const { return kTpageBytes / entry_bytes; }
  std::uint32_t entries_per_segment() const { return segment_bytes / entry_bytes; }

  // `node` is drive.ftl.map_cache. `hmb_round_trip`: PCIe time for the
  // controller to fetch an entry from host memory (0 when the host link
  // cannot carry an HMB, i.e. SATA).
  static MapCacheConfig from_config(const ConfigNode& node, Tick hmb_round_trip);
  static const ParamSection& params();  // its keys, declared (sim/params.h)
};

// Eviction order of cached segments (slots). One small class per policy,
// chosen by name (`ftl.map_cache.policy`).
class MapEvictionPolicy {
 public:
  virtual ~MapEvictionPolicy() = default;
  virtual void inserted(std::uint32_t slot) = 0;
  virtual void hit(std::uint32_t slot) = 0;
  virtual void removed(std::uint32_t slot) = 0;
  // The victim's slot takes a newly loaded segment: removed, then inserted
  // (one step where the order allows: a full cache's every miss).
  virtual void replaced(std::uint32_t slot) {
    removed(slot);
    inserted(slot);
  }
  virtual std::uint32_t victim() const = 0;  // a resident slot
  // The slot evicted after `slot` (kNone: none, or the policy cannot say),
  // and a hint to load a slot's place in the order: each eviction
  // prefetches what the next two will touch, which an LRU order has left
  // cold (the cache outgrows the processor's caches, so an eviction would
  // otherwise wait on memory several times, one load after another).
  virtual std::uint32_t after(std::uint32_t /*slot*/) const { return 0xFFFFFFFFu; }
  virtual void prefetch(std::uint32_t /*slot*/) const {}
  // The eviction order, for drive-state snapshots (sim/state_archive.h).
  virtual void archive(StateArchive& ar) = 0;
};
using MapEvictionInfo = PolicyInfo<MapEvictionPolicy, std::uint32_t>;
// One row per policy: name, description, factory (taking the cache's slots).
const std::vector<MapEvictionInfo>& map_evictions();
std::vector<std::string> map_eviction_names();
std::unique_ptr<MapEvictionPolicy> make_map_eviction(const std::string& name, std::uint32_t slots);

class MapCache {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  MapCache(const MapCacheConfig& cfg, std::uint64_t logical_pages);

  bool whole_table() const { return whole_; }
  // Entries and segments are powers of two (parts of the 4 KiB page), so
  // these are shifts: a division per map access was a tenth of a per-entry
  // cache's insert.
  std::uint32_t segment_of(Lpn lpn) const { return lpn >> segment_shift_; }
  std::uint32_t tpage_of_segment(std::uint32_t seg) const { return seg >> tpage_shift_; }
  std::uint32_t segments_per_tpage() const { return segs_per_tpage_; }
  std::uint32_t segments() const { return segments_; }
  Lpn first_lpn(std::uint32_t seg) const { return seg << segment_shift_; }

  bool resident(std::uint32_t seg) const { return whole_ || index_.holds(seg); }
  // A lookup: true on a hit (and the policy hears of it).
  bool lookup(std::uint32_t seg) {
    if (whole_) return true;
    const std::uint32_t* slot = index_.find(seg);
    if (!slot) return false;
    policy_->hit(*slot);
    return true;
  }
  // Marks a resident segment modified.
  void set_dirty(std::uint32_t seg);

  struct Evicted {
    std::uint32_t seg = kNone;
    bool dirty = false;
  };
  // Adds a loaded segment, evicting one if the cache is full.
  Evicted insert(std::uint32_t seg, bool dirty);
  // Loads the index entries lookups of segments [first, last] will read (a
  // command's segments are known before its pages are mapped).
  void prefetch(std::uint32_t first, std::uint32_t last) const {
    if (!whole_) index_.prefetch(first, last);
  }
  void prefetch(std::uint32_t seg) const { prefetch(seg, seg); }
  // The translation page is being written back: its resident segments are clean.
  void clean_tpage(std::uint32_t tpage);
  bool tpage_fully_resident(std::uint32_t tpage) const;

  std::uint32_t capacity_segments() const { return capacity_; }
  std::uint32_t resident_segments() const { return used_; }
  // Translation pages whose segments are indexed by a dense block (tests).
  std::uint32_t dense_pages() const { return index_.dense_pages(); }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  // Per slot: its segment and its dirt. A write-back cleans every cached
  // segment of a translation page; instead of visiting them (a list per
  // page, whose links cost two cold loads per insert and eviction), each
  // page counts its write-backs (`gen`) and a slot is dirty while its mark
  // equals its page's count: a write-back is one increment. (A clean slot
  // is marked one behind; a mark could only match again after 2^32
  // write-backs of one page while the slot stayed cached and untouched.)
  struct Slot {
    std::uint32_t seg;  // kNone: free
    std::uint32_t mark;
  };
  bool is_dirty(const Slot& s) const { return s.mark == index_.page(tpage_of_segment(s.seg)).gen; }
  void set_mark(Slot& s, bool dirty) {
    const std::uint32_t gen = index_.page(tpage_of_segment(s.seg)).gen;
    s.mark = dirty ? gen : gen - 1;
  }
  // After an eviction: the state the next two evictions will touch.
  void prefetch_victims() const;
  // After a snapshot load: the index and the per-page counts, from the slots.
  void rebuild();

  bool whole_;
  std::uint32_t per_segment_;
  std::uint32_t segs_per_tpage_;
  unsigned segment_shift_;  // log2 of per_segment_
  unsigned tpage_shift_;    // log2 of segs_per_tpage_
  std::uint32_t segments_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint32_t used_ = 0;
  // Everything below is sized by the cache, not by the drive: which slot
  // holds a segment, and per slot its segment and dirt.
  MapCacheIndex index_;
  // Slots are handed out from 0 up (fresh_: the first never used), so the
  // array is written from the front and a partly used cache leaves the rest
  // untouched zero pages, never read. free_slots_: slots to take before
  // fresh ones (a loaded snapshot's free list).
  ZeroArray<Slot> slots_;
  static constexpr std::size_t kSlotsSkew = 2048;  // bytes: see the constructor
  std::uint32_t fresh_ = 0;
  std::vector<std::uint32_t> free_slots_;
  std::unique_ptr<MapEvictionPolicy> policy_;
};

}  // namespace ssdtwin
