// Foreground GC trigger and pacing: when a die collects, and how much the
// host may program there meanwhile. The arithmetic of the relocation
// engine (ftl/gc/relocation_engine.h), which decides for every executor, so
// that a fast phase leaves the state a timed one would.
//
// A die whose erased blocks fall below ftl.gc.trigger_free_blocks collects
// a victim. While it does, the host's programs there are paid for with
// credit that the collection earns: each slot moved from a victim frees its
// invalid/valid share of slots (proportional pacing), scaled by the GC
// urgency level in force (ftl.gc.urgency). Host IOPS then settle at what GC
// sustains instead of stalling and bursting.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/ftl_config.h"

namespace ssdtwin {

class GcPacing {
 public:
  GcPacing(const FtlConfig& cfg, const BlockManager& blocks, std::uint32_t unit_slots);

  // The die has fewer erased blocks than `target` (GC collects below it).
  bool short_of(std::uint32_t die, std::uint32_t target) const {
    return blocks_.free_blocks(die) < target;
  }
  bool short_of_blocks(std::uint32_t die) const {
    return short_of(die, cfg_.gc_trigger_free_blocks);
  }
  // Host programs on `die` are paced: pacing is on, the die is short of
  // blocks and `collecting` a GC victim (folding does not pace the host).
  bool paced(std::uint32_t die, bool collecting) const {
    return cfg_.gc_paced && collecting && short_of_blocks(die);
  }
  // The die's credit pays for a host unit of `slots`.
  bool covers(std::uint32_t die, std::uint32_t slots) const { return credit_[die] >= slots; }
  // A host unit of `slots` was programmed on `die`; paid for when paced.
  void host_programmed(std::uint32_t die, std::uint32_t slots, bool paced) {
    if (paced) credit_[die] -= slots;
  }

  // Collection of `victim` starts on `die`: returns the credit each moved
  // slot earns (the victim's invalid/valid slots); an empty victim earns
  // its whole capacity at once.
  double start(std::uint32_t die, const BlockInfo& victim);
  // `moved` slots were moved at `rate` credit each: scaled by the urgency
  // level's host share and bounded (ftl.gc.credit_units, scaled with it).
  void earn(std::uint32_t die, double moved, double rate);
  // Moves at `rate` still to earn before the die's credit covers `slots`
  // (at least 1 when it does not yet; UINT64_MAX when the bound on credit
  // keeps it from ever covering them).
  std::uint64_t moves_to_cover(std::uint32_t die, std::uint32_t slots, double rate) const;
  // The host share of the GC urgency level in force. Firmware judges
  // urgency on the drive's whole free pool, so every die switches level at
  // once (per-die levels would drift apart and average out).
  double host_share() const;
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  const FtlConfig& cfg_;
  const BlockManager& blocks_;
  std::uint32_t unit_slots_;
  std::vector<double> credit_;  // per die: host slots paid for by collection
};

}  // namespace ssdtwin
