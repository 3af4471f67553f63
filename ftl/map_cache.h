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
#include "sim/flat_map.h"
#include "sim/policy_table.h"
#include "sim/time.h"
#include "sim/zero_array.h"

namespace ssdtwin {

class ConfigNode;

struct MapCacheConfig {
  enum class Location : std::uint8_t { kSram, kDram, kHmb };
  Location location = Location::kDram;
  std::uint64_t size_bytes = 0;      // 0: the whole table
  std::uint32_t entry_bytes = 4;     // one mapping entry
  std::uint32_t segment_bytes = 4096;  // caching granularity, at most a translation page
  std::string policy = "lru";
  Tick access_time = 0;              // per lookup: memory latency (HMB: PCIe round trip)

  static constexpr std::uint32_t kTpageBytes = kSectorBytes;
  std::uint32_t entries_per_tpage() const { return kTpageBytes / entry_bytes; }
  std::uint32_t entries_per_segment() const { return segment_bytes / entry_bytes; }

  // `node` is drive.ftl.map_cache. `hmb_round_trip`: PCIe time for the
  // controller to fetch an entry from host memory (0 when the host link
  // cannot carry an HMB, i.e. SATA).
  static MapCacheConfig from_config(const ConfigNode& node, Tick hmb_round_trip);
};

// Eviction order of cached segments (slots). One small class per policy,
// chosen by name (`ftl.map_cache.policy`).
class MapEvictionPolicy {
 public:
  virtual ~MapEvictionPolicy() = default;
  virtual void inserted(std::uint32_t slot) = 0;
  virtual void hit(std::uint32_t slot) = 0;
  virtual void removed(std::uint32_t slot) = 0;
  virtual std::uint32_t victim() const = 0;  // a resident slot
  // The eviction order, for drive-state snapshots (ftl/snapshot.h).
  virtual void archive(StateArchive& ar) = 0;
};
using MapEvictionInfo = PolicyInfo<MapEvictionPolicy, std::uint32_t>;
// One row per policy: name, description, factory (taking the cache's slots).
const std::vector<MapEvictionInfo>& map_evictions();
std::vector<std::string> map_eviction_names();
std::unique_ptr<MapEvictionPolicy> make_map_eviction(const std::string& name,
                                                     std::uint32_t slots);

class MapCache {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  MapCache(const MapCacheConfig& cfg, std::uint64_t logical_pages);

  bool whole_table() const { return whole_; }
  std::uint32_t segment_of(Lpn lpn) const { return lpn / per_segment_; }
  std::uint32_t tpage_of_segment(std::uint32_t seg) const { return seg / segs_per_tpage_; }
  std::uint32_t segments_per_tpage() const { return segs_per_tpage_; }
  std::uint32_t segments() const { return segments_; }
  Lpn first_lpn(std::uint32_t seg) const { return seg * per_segment_; }

  bool resident(std::uint32_t seg) const {
    return whole_ || (direct_.size() ? direct_[seg] != 0 : slot_of_.find(seg) != nullptr);
  }
  // A lookup: true on a hit (and the policy hears of it).
  bool lookup(std::uint32_t seg);
  // Marks a resident segment modified.
  void set_dirty(std::uint32_t seg);

  struct Evicted {
    std::uint32_t seg = kNone;
    bool dirty = false;
  };
  // Adds a loaded segment, evicting one if the cache is full.
  Evicted insert(std::uint32_t seg, bool dirty);
  // The translation page is being written back: its resident segments are clean.
  void clean_tpage(std::uint32_t tpage);
  bool tpage_fully_resident(std::uint32_t tpage) const;

  std::uint32_t capacity_segments() const { return capacity_; }
  std::uint32_t resident_segments() const { return used_; }
  void archive(StateArchive& ar);  // drive-state snapshots (ftl/snapshot.h)

 private:
  // A resident segment's slot joins (or leaves) its translation page's list.
  void link(std::uint32_t slot);
  void unlink(std::uint32_t slot);
  // After a snapshot load: the index and the lists, from seg_of_.
  void rebuild();
  // The slot of a resident segment, or nullptr. The last segment found is
  // remembered: a write looks its segment up and then dirties it, and with
  // page-sized segments a sequential run stays on one, so most calls skip
  // the hash (as cheap as the per-segment array was).
  // With few segments (page-sized ones: 4 B per 4 MiB of user space) a
  // direct index (slot plus one, 0: not resident) is smaller than the
  // cache's own state and an array read is cheaper than a probe.
  const std::uint32_t* slot_of(std::uint32_t seg) {
    if (seg == last_seg_) return &last_slot_;
    if (direct_.size()) {
      const std::uint32_t v = direct_[seg];
      if (v == 0) return nullptr;
      last_seg_ = seg, last_slot_ = v - 1;
      return &last_slot_;
    }
    const std::uint32_t* slot = slot_of_.find(seg);
    if (slot) last_seg_ = seg, last_slot_ = *slot;
    return slot;
  }
  void index_insert(std::uint32_t seg, std::uint32_t slot) {
    if (direct_.size()) direct_[seg] = slot + 1;
    else slot_of_.insert(seg, slot);
  }
  void index_erase(std::uint32_t seg) {
    if (direct_.size()) direct_[seg] = 0;
    else slot_of_.erase(seg);
  }

  bool whole_;
  std::uint32_t per_segment_;
  std::uint32_t segs_per_tpage_;
  std::uint32_t segments_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint32_t used_ = 0;
  // Everything below is sized by the cache, not by the drive (a per-entry
  // cache over 4 TB has 2^30 segments): the resident segments' slots by
  // hash, and per slot its segment, dirt and place in its page's list.
  FlatMap<std::uint32_t> slot_of_;      // segment -> slot, resident segments only
  ZeroArray<std::uint32_t> direct_;     // or, with few segments, segment -> slot + 1
  std::uint32_t last_seg_ = kNone, last_slot_ = kNone;  // slot_of()'s memo
  std::vector<std::uint32_t> seg_of_;   // slot -> segment
  std::vector<std::uint8_t> dirty_;     // per slot
  std::vector<std::uint32_t> free_slots_;
  // The resident slots of each translation page, as lists through
  // tp_next_/tp_prev_, so a write-back cleans, and a merge check counts,
  // only what is cached of the page instead of probing all its segments
  // (1024 with 4 B segments). The per-page heads are untouched zero pages
  // (head stored plus one) except where a page has been cached: 8 B per
  // translation page, i.e. per 4 MiB of user space.
  struct TpageSlots {
    std::uint32_t head_plus1;  // 0: none cached
    std::uint32_t count;
  };
  ZeroArray<TpageSlots> tpage_slots_;
  std::vector<std::uint32_t> tp_next_, tp_prev_;  // per slot
  std::unique_ptr<MapEvictionPolicy> policy_;
};

}  // namespace ssdtwin
