#include "ftl/mapping/map_cache.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ftl/mapping/impl/map_evictions.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/state_archive.h"

namespace ssdtwin {

const std::vector<MapEvictionInfo>& map_evictions() {
  static const std::vector<MapEvictionInfo> kPolicies = {
      {"lru", "evict the segment used longest ago (the default)", &make_lru_eviction},
      {"fifo", "evict the segment loaded longest ago, whatever its use (a baseline)",
       &make_fifo_eviction},
  };
  return kPolicies;
}

std::vector<std::string> map_eviction_names() { return policy_names(map_evictions()); }

std::unique_ptr<MapEvictionPolicy> make_map_eviction(const std::string& name, std::uint32_t slots) {
  return make_policy(map_evictions(), name, "map-cache eviction policy", slots);
}

const ParamSection& MapCacheConfig::params() {
  static const ParamSection kSection{
      "drive.ftl.map_cache",
      "The mapping-table cache: where the cached part of the logical-to-physical table lives, "
      "how much of it, and in what pieces.",
      {
          param::choice("location", "dram", "sram|dram|hmb",
                        "where the cache lives: on-die SRAM, the drive's DRAM, or the NVMe Host "
                        "Memory Buffer (needs a PCIe link)"),
          param::bytes("size", "0",
                       "cache size; 0 (or at least the table): the whole table, which never "
                       "misses (a DRAM drive). Required for sram and hmb"),
          param::bytes("entry_size", "4B",
                       "one mapping entry; a divisor of the 4KiB translation page"),
          param::bytes("segment", "4KiB",
                       "caching granularity: a power-of-two part of the 4KiB translation page, "
                       "at least one entry"),
          param::choice("policy", "lru", &map_eviction_names, "which cached segment to evict"),
          param::time("access_time", "(20ns in sram, 60ns in dram, the link's round trip in hmb)",
                      "time per lookup: memory latency, or for the HMB a PCIe read round trip "
                      "(from the host link, not settable)"),
      }};
  return kSection;
}

MapCacheConfig MapCacheConfig::from_config(const ConfigNode& node, Tick hmb_round_trip) {
  const Params p(node, params());
  MapCacheConfig c;
  const std::string loc = p.choice("location");
  c.location = loc == "sram" ? Location::kSram : loc == "dram" ? Location::kDram : Location::kHmb;
  c.size_bytes = p.bytes("size");
  // Sizes are checked before narrowing (4 GiB + 4 B is not 4 B).
  const std::uint64_t entry = p.bytes("entry_size");
  c.entry_bytes = static_cast<std::uint32_t>(entry);
  if (entry == 0 || entry > kTpageBytes || kTpageBytes % c.entry_bytes != 0)
    p.fail("entry_size", "expected a divisor of the 4KiB translation page (e.g. 4B or 8B)");
  const std::uint64_t segment = p.bytes("segment");
  c.segment_bytes = static_cast<std::uint32_t>(segment);
  if (segment < c.entry_bytes || segment > kTpageBytes || kTpageBytes % c.segment_bytes != 0 ||
      c.segment_bytes % c.entry_bytes != 0)
    p.fail("segment",
           "expected a power-of-two part of the 4KiB translation page, "
           "at least one entry");
  c.policy = p.choice("policy");
  // Lookup latency: on-die SRAM or DRAM a few tens of ns; HMB a PCIe read
  // round trip to host memory, from the host link model.
  switch (c.location) {
    case Location::kSram:
      c.access_time = p.time("access_time", 20);
      break;
    case Location::kDram:
      c.access_time = p.time("access_time", 60);
      break;
    case Location::kHmb:
      if (hmb_round_trip == 0)
        p.fail("location", "a Host Memory Buffer needs an NVMe (PCIe) host interface");
      c.access_time = hmb_round_trip;
      break;
  }
  if (c.location != Location::kDram && c.size_bytes == 0)
    p.fail("size", "expected the cache size for an " + loc + " map cache");
  return c;
}

namespace {
// from_config admits only powers of two (divisors of the 4 KiB page).
unsigned log2_exact(std::uint32_t v) {
  if (v == 0 || (v & (v - 1)) != 0)
    throw std::logic_error("map cache: " + std::to_string(v) + " is not a power of two");
  unsigned s = 0;
  while ((std::uint32_t{1} << s) != v) ++s;
  return s;
}
}  // namespace

MapCache::MapCache(const MapCacheConfig& cfg, std::uint64_t logical_pages)
    : per_segment_(cfg.entries_per_segment()),
      segs_per_tpage_(cfg.entries_per_tpage() / cfg.entries_per_segment()),
      segment_shift_(log2_exact(per_segment_)),
      tpage_shift_(log2_exact(segs_per_tpage_)) {
  const std::uint64_t segments = (logical_pages + per_segment_ - 1) / per_segment_;
  const std::uint64_t table_bytes = logical_pages * cfg.entry_bytes;
  whole_ = cfg.size_bytes == 0 || cfg.size_bytes >= table_bytes;
  if (whole_) return;
  segments_ = static_cast<std::uint32_t>(segments);
  capacity_ =
      static_cast<std::uint32_t>(std::max<std::uint64_t>(1, cfg.size_bytes / cfg.segment_bytes));
  index_ = MapCacheIndex(segments_, capacity_, tpage_shift_);
  // Half a page off: the eviction policy's per-slot links are indexed by
  // the same slot, and with both arrays page-aligned every eviction's load
  // of the victim's slot aliased the policy's store to its links (B4: a
  // quarter of the run in MapCache::insert, 0.93-0.95 of the time without).
  slots_ = ZeroArray<Slot>(capacity_, ZeroArray<Slot>::Fill::kFromFront, kSlotsSkew);
  policy_ = make_map_eviction(cfg.policy, capacity_);
}

void MapCache::set_dirty(std::uint32_t seg) {
  if (whole_) return;
  set_mark(slots_[*index_.find(seg)], true);
}

MapCache::Evicted MapCache::insert(std::uint32_t seg, bool dirty) {
  Evicted ev;
  if (whole_) return ev;
  if (const std::uint32_t* held = index_.find_before_insert(seg)) {
    // a write's lookup has just missed it
    if (dirty) set_mark(slots_[*held], true);
    return ev;
  }
  std::uint32_t slot;
  if (free_slots_.empty() && fresh_ == capacity_) {
    // The victim's slot takes the new segment. The new segment is indexed
    // first: the hash then places it where the miss's probe ended (the
    // table has room for both, with a batch of erasures pending).
    slot = policy_->victim();
    Slot& v = slots_[slot];
    ev.seg = v.seg;
    ev.dirty = is_dirty(v);
    // (The new segment is counted before the victim is erased: a page's
    // dense block goes back only when no segment of it is left.)
    index_.insert(seg, slot);
    ++index_.page(tpage_of_segment(seg)).count;
    policy_->replaced(slot);
    --index_.page(tpage_of_segment(v.seg)).count;
    index_.erase(ev.seg);
    prefetch_victims();
    v.seg = seg;
    set_mark(v, dirty);
    return ev;
  }
  if (free_slots_.empty()) {
    slot = fresh_++;
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  index_.insert(seg, slot);
  Slot& s = slots_[slot];
  s.seg = seg;
  ++index_.page(tpage_of_segment(seg)).count;
  set_mark(s, dirty);
  policy_->inserted(slot);
  ++used_;
  return ev;
}

void MapCache::prefetch_victims() const {
  // The next victim's slot was prefetched at the last eviction: its
  // segment is at hand to prefetch the index entry its eviction erases.
  const std::uint32_t next = policy_->victim();
  if (next == kNone) return;
  index_.prefetch_erase_of(slots_[next].seg);
  const std::uint32_t then = policy_->after(next);
  if (then == kNone) return;
  prefetch_line(&slots_[then]);
  policy_->prefetch(then);
}

void MapCache::clean_tpage(std::uint32_t tpage) {
  if (whole_) return;
  ++index_.page(tpage).gen;
}

bool MapCache::tpage_fully_resident(std::uint32_t tpage) const {
  if (whole_) return true;
  const std::uint64_t first = std::uint64_t{tpage} * segs_per_tpage_;
  if (first >= segments_) return true;
  const std::uint64_t end = std::min<std::uint64_t>(first + segs_per_tpage_, segments_);
  return index_.page(tpage).count == end - first;
}

void MapCache::rebuild() {
  index_.clear();
  for (std::uint32_t slot = 0; slot < fresh_; ++slot) {
    if (slots_[slot].seg == kNone) continue;
    index_.insert(slots_[slot].seg, slot);
    ++index_.page(tpage_of_segment(slots_[slot].seg)).count;
  }
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void MapCache::archive(StateArchive& ar) {
  // Per slot only: its segment and dirt (the layout of earlier builds'
  // snapshots). The index and the per-page counts are derived from them
  // (the index's layout depends on the order of past inserts, so storing
  // it would make equal states give different files).
  // Slots never handed out (from fresh_ on) are free, and stored as such.
  std::vector<std::uint32_t> seg_of(slots_.size(), kNone);
  std::vector<std::uint8_t> dirty(slots_.size());
  for (std::size_t i = 0; i < fresh_; ++i) {
    seg_of[i] = slots_[i].seg;
    dirty[i] = slots_[i].seg != kNone && is_dirty(slots_[i]) ? 1 : 0;
  }
  // The free list as earlier builds kept it, a stack taken from the back:
  // the slots never handed out, last first, then those given back.
  std::vector<std::uint32_t> free_list;
  if (!ar.loading()) {
    for (std::uint32_t s = capacity_; s-- > fresh_;) free_list.push_back(s);
    free_list.insert(free_list.end(), free_slots_.begin(), free_slots_.end());
  }
  ar.pod(used_);
  ar.vec(seg_of, true);
  ar.vec(dirty, true);
  ar.vec(free_list);
  if (policy_) policy_->archive(ar);
  if (!ar.loading()) return;
  // Checked before the index is rebuilt from them: a segment in two slots,
  // or a free slot that holds one, would corrupt the cache.
  std::uint32_t held = 0;
  std::vector<std::uint32_t> segs;
  for (const std::uint32_t seg : seg_of) {
    if (seg == kNone) continue;
    if (seg >= segments_) ar.fail("a map-cache segment past the drive's end");
    segs.push_back(seg);
    ++held;
  }
  std::sort(segs.begin(), segs.end());
  if (std::adjacent_find(segs.begin(), segs.end()) != segs.end())
    ar.fail("a map-cache segment in two slots");
  std::vector<std::uint8_t> listed(slots_.size());
  for (const std::uint32_t slot : free_list)
    if (slot >= slots_.size() || seg_of[slot] != kNone || listed[slot]++)
      ar.fail("a map-cache free list naming a slot that is not free");
  if (held != used_ || held + free_list.size() != capacity_)
    ar.fail("a map cache whose slots do not add up");
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].seg = seg_of[i];
  fresh_ = capacity_;  // every slot written above: the free list says which to take
  free_slots_ = std::move(free_list);
  rebuild();
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].seg != kNone) set_mark(slots_[i], dirty[i] != 0);
}

}  // namespace ssdtwin
