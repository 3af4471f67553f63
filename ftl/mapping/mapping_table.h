// Page-level logical-to-physical mapping at 4 KiB granularity, with the
// reverse (physical-to-logical) map that garbage collection needs to find
// the owner of a valid slot, and the directory of translation pages (the
// flash copy of the mapping table itself, one 4 KiB page per
// `entries_per_tpage` logical pages).
//
// A slot's owner is a logical page, or a translation page marked with
// kMapOwner. Validity is not stored separately: a slot is valid exactly when
// its owner's location is that slot. Together the tables take 8 bytes per
// 4 KiB of flash (2 MiB per GiB), the dominant memory cost of a drive.
//
// The simulator always holds the whole table (it is the ground truth the
// model runs on); which parts a DRAMless controller has cached, and what it
// costs to fetch the rest, is ftl/mapping/map_cache.h's business.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ftl/address.h"
#include "sim/prefetch.h"
#include "sim/zero_array.h"

namespace ssdtwin {

using Owner = std::uint32_t;              // a logical page, or kMapOwner | translation page
constexpr Owner kMapOwner = 0x80000000u;  // logical page numbers stay below 2^31
constexpr std::uint64_t kMapOwnerLimit = kMapOwner;
inline bool is_tpage(Owner o) { return o != kUnmapped && (o & kMapOwner) != 0; }

class MappingTable {
 public:
  // The tables start as untouched zero pages (sim/zero_array.h): entries
  // are stored plus one, so kUnmapped (all ones) is stored as 0 and a new
  // drive costs no memory until it is written.
  MappingTable(std::uint64_t logical_pages, std::uint64_t physical_slots,
               std::uint32_t entries_per_tpage = 1024)
      : l2p_(logical_pages),
        l2p_touched_((logical_pages + 64 * kEntriesPerOsPage - 1) / (64 * kEntriesPerOsPage)),
        p2l_(physical_slots),
        gtd_((logical_pages + entries_per_tpage - 1) / entries_per_tpage),
        entries_per_tpage_(entries_per_tpage) {}

  std::uint32_t lookup(Lpn lpn) const { return out(l2p_[lpn]); }
  void set(Lpn lpn, std::uint32_t where) { l2p_[lpn] = in(where); }

  // Where an owner's current copy is: a flash slot, a write-buffer
  // reference, or kUnmapped.
  std::uint32_t location(Owner o) const {
    return out((o & kMapOwner) ? gtd_[o & ~kMapOwner] : l2p_[o]);
  }
  void set_location(Owner o, std::uint32_t where) {
    if (o & kMapOwner)
      gtd_[o & ~kMapOwner] = in(where);
    else
      l2p_[o] = in(where);
  }
  // Records that flash slot `ppa` now holds `o` and points `o` at it.
  void place(Owner o, Ppa ppa) {
    set_location(o, ppa);
    p2l_[ppa] = in(o);
  }
  Owner owner(Ppa ppa) const { return out(p2l_[ppa]); }
  // Translation page `tpage` maps at least one logical page.
  bool tpage_maps_any(std::uint32_t tpage) const {
    const std::uint64_t first = std::uint64_t{tpage} * entries_per_tpage_;
    const std::uint64_t end = std::min<std::uint64_t>(first + entries_per_tpage_, l2p_.size());
    for (std::uint64_t l = first; l < end; ++l)
      if (l2p_[l] != in(kUnmapped)) return true;
    return false;
  }
  void clear_owner(Ppa ppa) { p2l_[ppa] = in(kUnmapped); }
  bool valid(Ppa ppa) const {
    const Owner o = owner(ppa);
    return o != kUnmapped && location(o) == ppa;
  }

  // Starts loading the forward entry of slot `ppa`'s owner into the cache:
  // scans over a block's slots (GC) otherwise wait on one miss per slot.
  void prefetch_owner(Ppa ppa) const {
    const Owner o = owner(ppa);
    if (o != kUnmapped && (o & kMapOwner) == 0) prefetch_line(&l2p_[o]);
  }

  // Starts loading logical page `lpn`'s forward entry (a write's lookup).
  void prefetch_entry(Lpn lpn) const { prefetch_line(&l2p_[lpn]); }
  // The same ahead of a write, which will store to the entry. The first
  // time the entry's memory page is used it is touched with a store
  // instead: a prefetch of a page not mapped yet stalls on the page walk
  // and is dropped, and the write's lookup (a load) would then map the
  // shared zero page, so that its store faults a second time to copy it.
  // A fresh drive's random writes took two faults per table page.
  void prefetch_entry_for_write(Lpn lpn) {
    const std::uint64_t page = lpn / kEntriesPerOsPage;
    std::uint64_t& word = l2p_touched_[page / 64];
    const std::uint64_t bit = std::uint64_t{1} << (page % 64);
    if (word & bit) {
      prefetch_line(&l2p_[lpn]);
      return;
    }
    word |= bit;
    __atomic_fetch_or(&l2p_[lpn], 0u, __ATOMIC_RELAXED);  // a store that keeps the value
  }

  std::uint64_t logical_pages() const { return l2p_.size(); }
  std::uint32_t tpages() const { return static_cast<std::uint32_t>(gtd_.size()); }
  std::uint32_t entries_per_tpage() const { return entries_per_tpage_; }
  std::uint32_t tpage_of(Lpn lpn) const { return lpn / entries_per_tpage_; }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)
  std::uint64_t bytes() const {
    return (l2p_.size() + p2l_.size() + gtd_.size()) * sizeof(std::uint32_t);
  }

 private:
  // Stored plus one, wrapping: kUnmapped + 1 is 0, the untouched state.
  static std::uint32_t in(std::uint32_t v) { return v + 1; }
  static std::uint32_t out(std::uint32_t v) { return v - 1; }

  // The base page size of Linux on x86-64 and most ARM64 systems; on a
  // larger one, some first touches are stores where a prefetch would do.
  static constexpr std::uint64_t kEntriesPerOsPage = 4096 / sizeof(std::uint32_t);

  ZeroArray<std::uint32_t> l2p_;
  // One bit per memory page of l2p_: touched by prefetch_entry_for_write.
  ZeroArray<std::uint64_t> l2p_touched_;
  ZeroArray<Owner> p2l_;
  ZeroArray<std::uint32_t> gtd_;  // translation page -> its location
  std::uint32_t entries_per_tpage_;
};

}  // namespace ssdtwin
