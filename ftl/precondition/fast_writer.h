// Fast preconditioning: applies host writes and trims to the FTL's state
// (mapping, block validity, GC relocations and erases, wear) without NAND
// operations or simulated time, so that "fill the drive twice, then overwrite
// it randomly twice" on a whole drive takes seconds.
//
// It places data the way the timed path does: host data in native-mode
// program units rotating over the dies, GC relocations into their own
// stream. Every GC decision (trigger, victim, pacing, credit, erase) is the
// relocation engine's (ftl/gc/relocation_engine.h); this carries its steps
// out as two of its executors, immediate (exact mode: page identities) and
// counted (steady-state mode). What it leaves out is time: host writes
// bypass the SLC cache (as if it had been folded in idle time), and map-cache
// traffic (translation-page loads and write-backs) is not generated.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/ftl_core.h"

namespace ssdtwin {

class RelocationEngine;

class FastWriter {
 public:
  // The FTL must be quiescent (Ftl::quiescent) while a FastWriter runs.
  FastWriter(FtlCore& core, RelocationEngine& engine);
  // Queues a host page write. Writes take effect in order, kLag pages
  // late, so that the random forward-map and block entries they touch load
  // while earlier writes are applied (a random overwrite otherwise waits on
  // two cache misses per page); drain() applies every queued one.
  // `handle`: the FDP reclaim unit handle it is placed by (0 without FDP).
  void write(Lpn lpn, PlacementHandle handle = 0) {
    core_.map.prefetch_entry(lpn);
    if (queued_ == kLag) apply_oldest();
    // The write queued kLag / 2 pages ago: its forward entry has arrived,
    // so its old copy's block can start loading.
    if (queued_ >= kLag / 2) {
      const std::uint32_t old = core_.map.lookup(lag_[(head_ + queued_ - kLag / 2) & (kLag - 1)]);
      if (is_flash(old)) core_.blocks.prefetch_info_of(old);
    }
    lag_[(head_ + queued_) & (kLag - 1)] = lpn;
    lag_handle_[(head_ + queued_) & (kLag - 1)] = handle;
    ++queued_;
  }
  void drain();
  // Steady-state mode: one 4 KiB write to a page drawn uniformly over a
  // drive whose every logical page is mapped, applied to block validity
  // alone. Which page it overwrites does not matter, only which block held
  // it, and a uniformly drawn mapped page lies in a block with probability
  // proportional to the block's valid pages: the write invalidates a page
  // of a block drawn so, then takes its slot and GC runs as in write().
  // No page identities are kept: the mapping tables are stale until
  // lay_out_owners (ftl/precondition/steady_layout.h) assigns logical pages to the
  // valid slots after finish().
  void write_counted(Rng& rng);
  // Places translation page owner `o` (kMapOwner | tpage) in the host
  // stream, as the timed path's map write-backs go (Ftl::persist_fast_map).
  void write_tpage(Owner o);
  bool counted() const { return counted_; }
  // Applies the queued writes, then pads and closes the open program
  // units; call once at the end.
  void finish();

 private:
  static constexpr std::uint32_t kLag = 16;  // a power of two
  void apply(Lpn lpn, PlacementHandle handle);
  void apply_oldest() {
    apply(lag_[head_], lag_handle_[head_]);
    head_ = (head_ + 1) & (kLag - 1);
    --queued_;
  }
  struct OpenUnit {
    ProgramUnit unit;
    std::uint32_t used = 0;
    bool open = false;
  };
  // Next slot of the stream's open unit on `die` (opening one, after
  // collecting if the die is short of erased blocks, when needed).
  Ppa next_slot(std::uint32_t die, Stream stream, OpenUnit& u) {
    std::uint32_t got;
    return take_slots(die, stream, u, 1, got);
  }
  // Next slot of handle `h`'s host stream, on the die whose turn it is; the
  // turn passes on when that die's unit closes.
  Ppa next_host_slot(PlacementHandle h = 0) {
    OpenUnit& u = host_[std::size_t{h} * core_.geo.dies() + die_[h]];
    // Most slots: the open unit has room past this one, so nothing opens,
    // closes or passes the turn (take_slots' work, inline here because
    // preconditioning runs it for every page of the drive).
    if (u.open && u.used + 1 < u.unit.slots) return u.unit.first + u.used++;
    return turn_host_slot(h);
  }
  // next_host_slot when the unit opens or closes.
  Ppa turn_host_slot(PlacementHandle h);
  // Up to `want` consecutive slots of that unit (`got` of them, the unit
  // closing when full); returns the first.
  Ppa take_slots(std::uint32_t die, Stream stream, OpenUnit& u, std::uint32_t want,
                 std::uint32_t& got);
  void close(OpenUnit& u);
  // Before a host unit on `die`: runs the die's collection as far as the
  // timed path would have by then (RelocationEngine::before_host).
  void collect(std::uint32_t die, std::uint32_t unit_slots);
  // With super-blocks (ftl.rain.span: dies), until the host stream of `die`
  // can take a unit: the group's members collect the victims chosen, which
  // returns their super-blocks to the pool, or `die` chooses one.
  void make_room(std::uint32_t die);
  // Moves valid pages of the die's victim until `slots` have been scanned
  // or `credit` host slots are earned; erases the victim when done.
  void relocate_some(std::uint32_t die, std::uint32_t slots, double credit);
  // relocate_some without page identities: the victim's valid pages are
  // spread evenly over its unscanned slots (the next one lies
  // unscanned / valid slots ahead), so a scan of `slots` moves the share of
  // them it would find on average.
  void relocate_counted(std::uint32_t die, std::uint32_t slots, double credit);
  // The slots of the engine's victim on `die` still to scan (a new victim
  // starts at its first).
  struct Scan {
    std::uint32_t block = kNoBlock;
    Ppa next = 0, end = 0;  // victim slots still to scan
    double scanned = 0;     // counted mode: slots scanned (next is unused)
  };
  Scan& scan(std::uint32_t die);
  // The open unit of the relocation stream the engine chose for the die's
  // victim.
  OpenUnit& move_unit(std::uint32_t die, Stream dest) {
    return moves_[die * streams_ + dest.index()];
  }

  FtlCore& core_;
  RelocationEngine& engine_;
  std::size_t streams_;         // write streams (ftl/streams.h)
  std::vector<OpenUnit> host_;  // per handle and die: [handle * dies + die]
  std::vector<OpenUnit>
      moves_;  // per die and stream (relocation streams used): [die * streams_ + stream]
  std::vector<Scan> scans_;         // per die
  std::vector<std::uint32_t> die_;  // per handle: die of its host stream's current unit
  Lpn lag_[kLag] = {};              // queued host writes, the oldest at head_
  PlacementHandle lag_handle_[kLag] = {};
  std::uint32_t head_ = 0, queued_ = 0;
  bool counted_ = false;  // write_counted was used: page identities are stale
};

}  // namespace ssdtwin
