// Which die takes the write buffer's next unit. Dies are visited round-robin
// among those that can queue another program; a die is passed over while
// its GC holds the host back, while it has no erased block for the host, or
// while the buffer holds less than the unit its target takes. Two memos
// keep the search off the write path's per-page cost: the buffered count
// below which no search can succeed (need()), and the dies that stay
// turned away until something on them changes (starved).
#pragma once

#include <algorithm>
#include <cstdint>

#include "ftl/die_set.h"
#include "ftl/ftl_core.h"
#include "ftl/gc/relocation_engine.h"
#include "ftl/slc/slc_cache.h"
#include "sim/state_archive.h"

namespace ssdtwin {

class FlushScheduler {
 public:
  // A die found: the unit it takes, of `unit_slots` slots, to `target`, from
  // write-buffer lane `lane` (the FDP handle; 0 without FDP).
  struct Choice {
    std::uint32_t die;
    HostTarget target;
    std::uint32_t unit_slots;
    std::uint32_t lane = 0;
  };
  // What a search flushes from: a lane, its stream, and its valid entries.
  struct Source {
    std::uint32_t lane = 0;
    Stream stream = Stream::kHost;
    std::uint32_t buffered = 0;
  };

  FlushScheduler(const FtlCore& core, const SlcCache& slc, const RelocationEngine& relocation)
      : core_(core),
        slc_(slc),
        relocation_(relocation),
        // The fewest slots a host program takes: fixed by the geometry and
        // the SLC config.
        smallest_(slc.enabled() ? std::min(slc.unit_slots(), core.unit_slots) : core.unit_slots),
        starved_(core.geo.dies()) {}

  // The valid entries a lane must hold before a search (not padding) can
  // find a die: the smallest unit, or what the last search found missing.
  // Tested by the caller before pick(): most calls stop at it.
  std::uint32_t need() const { return std::max(smallest_, need_); }

  // Searches for a die; true and `out` when one takes a unit. `pad`: an idle
  // or forced flush, which takes a partial unit. `ring_full`: no program may
  // start (the ring of host programs in flight is full). `source(Source&)`
  // picks what to flush from (false: no lane holds a unit), asked only once
  // some die can queue a program.
  template <class PickSource>
  bool pick(bool pad, bool ring_full, PickSource&& source, Choice& out) {
    // A held-back program keeps the ring from draining; no die can queue
    // another (as after the unit a completion let in): either way, only a
    // completion (on_completion) opens a die again.
    if (ring_full || !core_.flush_ready.any_outside(starved_)) {
      need_ = UINT32_MAX;
      return false;
    }
    // FDP: the lane comes first (every handle writes native units).
    Source src;
    if (!source(src)) {
      need_ = core_.unit_slots;
      return false;
    }
    std::uint32_t need = UINT32_MAX;
    const std::uint32_t d =
        core_.flush_ready.find_from(next_die_, starved_, [&](std::uint32_t die) {
          const HostTarget target = slc_.host_target(die);
          if (target == HostTarget::kWait) return false;
          const bool native = target == HostTarget::kNative;
          const std::uint32_t unit = native ? core_.unit_slots : slc_.unit_slots();
          // While GC collects on a die short of erased blocks, the host takes
          // no more space there than the collection has freed. (Tested before
          // the block check, which it does not depend on: under sustained
          // random writes it turns away most of the dies visited.) A die whose
          // credit covers no unit, whichever its target, stays turned away
          // until its GC or an operation of it moves on.
          if (relocation_.host_waits(die, unit)) {
            if (!relocation_.pacing().covers(die, smallest_)) starved_.set(die, true);
            return false;
          }
          // A die out of erased blocks for the host stays so until an operation
          // of it completes or its GC is called, unless an SLC cache may turn
          // it to another target meanwhile (its room depends on the whole
          // drive's state).
          if (native && !core_.blocks.can_allocate(die, src.stream, core_.pages_per_program)) {
            if (!slc_.enabled()) starved_.set(die, true);
            return false;
          }
          // A partial unit waits for more data unless this is an idle flush.
          if (src.buffered < unit && !pad) {
            need = std::min(need, unit);
            return false;
          }
          out = Choice{die, target, unit, src.lane};
          return true;
        });
    if (d != DieSet::kNone) {
      next_die_ = (d + 1) % core_.geo.dies();
      need_ = 0;
      return true;
    }
    // Dies change state only when an operation completes (which clears
    // this): until then, only more buffered data can make a die eligible.
    need_ = need;
    return false;
  }

  // An operation of `die` completed: any die may take a unit again, `die`
  // may no longer be starved.
  void on_completion(std::uint32_t die) {
    need_ = 0;
    starved_.set(die, false);
  }
  // Something on `die` changed (a unit started, GC took up a victim, an
  // erase returned a block to a super-block group).
  void reopen(std::uint32_t die) { starved_.set(die, false); }
  // Every die may take host data again (a drive-wide change).
  void reopen_all() {
    need_ = 0;
    starved_.clear();
  }

  // The round-robin position and the need memo; the starved dies are
  // derived, rebuilt by the next searches.
  void archive(StateArchive& ar) {
    ar.pods(next_die_, need_);
    if (ar.loading()) starved_.clear();
  }

 private:
  const FtlCore& core_;
  const SlcCache& slc_;
  const RelocationEngine& relocation_;
  const std::uint32_t smallest_;
  std::uint32_t next_die_ = 0;
  std::uint32_t need_ = 0;  // buffered entries below which no die can take a unit
  // Dies starved of GC pacing credit (none covers a host unit of any size
  // while pacing holds them) or, with no SLC cache, of erased blocks for
  // the host: skipped until something on the die changes, which under
  // sustained random writes saves most of their visits.
  DieSet starved_;
};

}  // namespace ssdtwin
