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
// The forward map is two levels: a directory with one entry per leaf of
// kLeafEntries entries (128 B), and a pool of leaves handed out from the
// front as entries are first written. Random writes over a large drive
// then touch memory in proportion to what they write, packed, instead of
// a page per entry spread over the whole LBA range: 1 M random writes to
// 512 GiB touched all 476 MiB of a flat table, and its first-touch faults
// and page walks were most of the run (docs/RESULTS.md, "Against MQSim").
// An unwritten range's directory entry names leaf 0, which stays all zero,
// so that a lookup is two loads and no test. Once half the ranges have a
// leaf, the rest are given theirs, the leaves are put in logical order and
// the directory is dropped (flatten): the table is then the flat one.
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
      : logical_pages_(logical_pages),
        dir_((logical_pages + kLeafEntries - 1) / kLeafEntries),
        leaves_((dir_.size() + 1) * kLeafEntries, ZeroArray<std::uint32_t>::Fill::kInRuns),
        p2l_(physical_slots, ZeroArray<Owner>::Fill::kInRuns),
        gtd_((logical_pages + entries_per_tpage - 1) / entries_per_tpage),
        entries_per_tpage_(entries_per_tpage) {}

  std::uint32_t lookup(Lpn lpn) const { return out(leaves_[entry(lpn)]); }
  void set(Lpn lpn, std::uint32_t where) {
    if (!flat_) {
      if (where == kUnmapped && dir_[lpn / kLeafEntries] == 0) return;  // leaf 0 already says so
      give_leaf(lpn);
    }
    leaves_[entry(lpn)] = in(where);
  }

  // A logical page's entry, found once for a write's read of the old
  // location and its update (three lookups of the entry were a tenth of
  // B4's instructions). Valid until the next set() or for_write(), which
  // may flatten the table.
  class Entry {
   public:
    std::uint32_t get() const { return out(*cell_); }
    void set(std::uint32_t where) { *cell_ = in(where); }

   private:
    friend class MappingTable;
    explicit Entry(std::uint32_t* cell) : cell_(cell) {}
    std::uint32_t* cell_;
  };
  // `lpn`'s entry, about to be written: its range is given its leaf now,
  // where set() would give it.
  Entry for_write(Lpn lpn) {
    if (!flat_) give_leaf(lpn);
    return Entry(&leaves_[entry(lpn)]);
  }

  // Where an owner's current copy is: a flash slot, a write-buffer
  // reference, or kUnmapped.
  std::uint32_t location(Owner o) const {
    return (o & kMapOwner) ? out(gtd_[o & ~kMapOwner]) : lookup(o);
  }
  void set_location(Owner o, std::uint32_t where) {
    if (o & kMapOwner)
      gtd_[o & ~kMapOwner] = in(where);
    else
      set(o, where);
  }
  // Records that flash slot `ppa` now holds `o` and points `o` at it.
  void place(Owner o, Ppa ppa) {
    set_location(o, ppa);
    p2l_.will_write(ppa);
    p2l_[ppa] = in(o);
  }
  // A buffered copy is programmed: points `o` at slot `ppa` if its
  // location is still `from` (false: overwritten meanwhile), in one lookup.
  // The caller has announced the slots (will_place).
  bool place_if_at(Owner o, std::uint32_t from, Ppa ppa) {
    std::uint32_t& cell = (o & kMapOwner) ? gtd_[o & ~kMapOwner] : leaves_[entry(o)];
    // (An unwritten range reads leaf 0's kUnmapped, never a buffered copy,
    // so leaf 0 is not written.)
    if (out(cell) != from) return false;
    cell = in(ppa);
    p2l_[ppa] = in(o);
    return true;
  }
  // Slots [first, first + n) are about to be placed or cleared.
  void will_place(Ppa first, std::uint32_t n) { p2l_.will_write(first, n); }
  // Starts loading slot `ppa`'s reverse entry: the next program unit of an
  // open block, placed when its die flushes again.
  // (The drive's last unit has no next one: `ppa` is then one past the end.)
  void prefetch_reverse(Ppa ppa) const {
    if (ppa < p2l_.size()) prefetch_line(&p2l_[ppa]);
  }
  Owner owner(Ppa ppa) const { return out(p2l_[ppa]); }
  // Translation page `tpage` maps at least one logical page.
  bool tpage_maps_any(std::uint32_t tpage) const {
    const std::uint64_t first = std::uint64_t{tpage} * entries_per_tpage_;
    const std::uint64_t end = std::min<std::uint64_t>(first + entries_per_tpage_, logical_pages_);
    for (std::uint64_t l = first; l < end;) {
      const std::uint64_t leaf_end = std::min(end, (l / kLeafEntries + 1) * kLeafEntries);
      if (!flat_ && dir_[l / kLeafEntries] == 0) {
        l = leaf_end;
        continue;
      }
      for (; l < leaf_end; ++l)
        if (lookup(l) != kUnmapped) return true;
    }
    return false;
  }
  void clear_owner(Ppa ppa) {
    p2l_.will_write(ppa);
    p2l_[ppa] = in(kUnmapped);
  }
  bool valid(Ppa ppa) const {
    const Owner o = owner(ppa);
    return o != kUnmapped && location(o) == ppa;
  }

  // Starts loading the forward entry of slot `ppa`'s owner into the cache:
  // scans over a block's slots (GC) otherwise wait on one miss per slot.
  void prefetch_owner(Ppa ppa) const {
    const Owner o = owner(ppa);
    if (o != kUnmapped && (o & kMapOwner) == 0) prefetch_line(&leaves_[entry(o)]);
  }

  // Starts loading logical page `lpn`'s forward entry (a write's lookup).
  void prefetch_entry(Lpn lpn) const { prefetch_line(&leaves_[entry(lpn)]); }
  // Ahead of a command, only the first level (the directory entry, or
  // once flat the entry): a write's own leaf is most often one it will be
  // handed (a fresh drive's random writes), and a read of a fresh drive
  // mostly finds leaf 0, so there is little there to load, and a load of
  // the directory entry here waited on its miss (40% of whole-map B1, 12%
  // of tpcc; a directory line prefetched instead took the B1 row from
  // 0.81-0.90 s to 0.65 s). The leaf entry is loaded at admission (a
  // write's lookup of its old copy) or at the read's lookup.
  void prefetch_first_level(Lpn lpn) {
    if (flat_)
      prefetch_line(&leaves_[entry(lpn)]);
    else
      prefetch_line(&dir_[lpn / kLeafEntries]);
  }

  std::uint64_t logical_pages() const { return logical_pages_; }
  std::uint32_t tpages() const { return static_cast<std::uint32_t>(gtd_.size()); }
  std::uint32_t entries_per_tpage() const { return entries_per_tpage_; }
  std::uint32_t tpage_of(Lpn lpn) const { return lpn / entries_per_tpage_; }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)
  // The tables with every entry written: the forward map's leaves, its
  // directory, the reverse map and the translation pages' locations.
  std::uint64_t bytes() const {
    return (logical_pages_ + dir_.size() + p2l_.size() + gtd_.size()) * sizeof(std::uint32_t);
  }

 private:
  // Stored plus one, wrapping: kUnmapped + 1 is 0, the untouched state.
  static std::uint32_t in(std::uint32_t v) { return v + 1; }
  static std::uint32_t out(std::uint32_t v) { return v - 1; }

  // 32 entries, 128 B: two cache lines, and a directory 1/32 the size of
  // the leaves. (16-entry leaves would take a drive whose every entry is
  // written past 2 MiB per GiB with the directory.)
  static constexpr std::uint64_t kLeafEntries = 32;
  // Once most ranges have a leaf, the directory only costs a load per
  // lookup (a miss where a write's prefetch only reached the directory):
  // 9% of the 16 GiB GC row's time when kept (a directory in logical
  // order, measured), 3% of B4's, whose fill of 476 of 512 GiB never gave
  // every range a leaf. Flattening at half the ranges costs at most twice
  // the memory the leaves had taken, never more than the flat table: the
  // memory goal's own bound. Gives each range without a leaf one of the
  // (zero) leaves left, puts range k's leaf at slot k + 1, in place, and
  // drops the directory.
  void flatten();
  // Gives `lpn`'s range its leaf if it has none (flattening the table once
  // half the ranges have one).
  void give_leaf(Lpn lpn) {
    std::uint32_t& leaf = dir_[lpn / kLeafEntries];
    if (leaf != 0) return;
    leaf = next_leaf_++;
    leaves_.will_write(std::uint64_t{leaf} * kLeafEntries);
    if (next_leaf_ > dir_.size() / 2) [[unlikely]]
      flatten();
  }

  // The pool slot of `lpn`'s entry (in leaf 0 while its range is unwritten).
  std::uint64_t entry(Lpn lpn) const {
    if (flat_) return kLeafEntries + lpn;
    return std::uint64_t{dir_[lpn / kLeafEntries]} * kLeafEntries + lpn % kLeafEntries;
  }

  std::uint64_t logical_pages_;
  // Leaf of each kLeafEntries logical pages (0: none). Base pages: in huge
  // pages its random lookups miss the TLB less (whole-map B1 1.11x), but a
  // few random writes then zero 2 MiB each (1,000 on a 4 TB drive: 133 MiB
  // against 21 MiB; docs/RESULTS.md, "Tried and not kept").
  ZeroArray<std::uint32_t> dir_;
  ZeroArray<std::uint32_t> leaves_;  // leaf 0 (all unmapped), then leaves in hand-out order
  std::uint32_t next_leaf_ = 1;
  // Every leaf handed out and put in logical order (flatten): an entry is
  // then found without the directory.
  bool flat_ = false;
  ZeroArray<Owner> p2l_;
  ZeroArray<std::uint32_t> gtd_;  // translation page -> its location
  std::uint32_t entries_per_tpage_;
};

}  // namespace ssdtwin
