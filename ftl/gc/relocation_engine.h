// The relocation engine: every decision of garbage collection and SLC
// folding, whatever clock carries it out. It decides when a die collects
// (the trigger and its targets), which block (read reclaim, static wear
// levelling, the configured victim policy, SLC reclaim and folding), where
// the moved pages go, how the host is paced meanwhile (the credit each
// move earns, and when a host unit must wait for it), and the bookkeeping
// of an erased victim.
//
// Three executors carry its steps out, so that a cost written here holds in
// preconditioning as in timed phases:
//   - timed (ftl/gc/garbage_collector.h): NAND reads, programs and erases in
//     simulated time, queued behind host work on the die;
//   - immediate (ftl/precondition/fast_writer.h, exact mode): moves each valid page at
//     once, no time passing;
//   - counted (ftl/precondition/fast_writer.h, steady-state mode): moves counts of
//     valid slots, no page identities.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "ftl/ftl_core.h"
#include "ftl/gc/gc_pacing.h"
#include "ftl/gc/gc_policy.h"

namespace ssdtwin {

class SlcCache;

class RelocationEngine {
 public:
  // The block a die collects and how: kept after the victim is read out
  // (block back to kNoBlock), since pages still buffered from it are
  // programmed and credited as its own.
  struct Victim {
    std::uint32_t block = kNoBlock;
    bool fold = false;           // an SLC block folded into native mode
    double credit_per_slot = 0;  // host slots earned per slot moved (the victim's invalid / valid)
    Stream dest = Stream::kGc;   // write point of its pages
  };
  // Where victims come from. The fast executors write no SLC cache and
  // reclaim nothing (their writes bypass both), so they collect native
  // victims only, and only when short of erased blocks.
  enum class Sources : std::uint8_t { kAll, kNative };
  // What a host unit on a die needs before the fast executors program it.
  enum class HostStep : std::uint8_t {
    kProgram,        // go ahead (paid for, or not paced)
    kCollectBeside,  // go ahead, and collect a unit's worth beside it
    kEarn,           // move pages until credit covers the unit
    kFinishVictim,  // credit covers it but the die is at its reserve: free the victim's block first
  };

  RelocationEngine(FtlCore& core, const SlcCache& slc, std::unique_ptr<GcPolicy> policy);

  const Victim& victim(std::uint32_t die) const { return victims_[die]; }
  // The GC trigger and the host's pacing against collection, per die: the
  // engine earns credit as it moves pages, the host spends it.
  const GcPacing& pacing() const { return pacing_; }
  // A host unit of `slots` went to program on `die`: it spends credit if the
  // die is paced.
  void host_programmed(std::uint32_t die, std::uint32_t slots) {
    pacing_.host_programmed(die, slots, paced(die));
  }
  bool collecting(std::uint32_t die) const { return victims_[die].block != kNoBlock; }
  // Host programs on `die` are paced: it collects a GC victim (not a fold)
  // because it is short of erased blocks (ftl/gc/gc_pacing.h).
  bool paced(std::uint32_t die) const {
    const Victim& v = victims_[die];
    return pacing_.paced(die, v.block != kNoBlock && !v.fold);
  }
  // A host unit of `slots` on `die` must wait for collection to earn credit.
  bool host_waits(std::uint32_t die, std::uint32_t slots) const {
    return paced(die) && !pacing_.covers(die, slots);
  }

  // The erased blocks the timed executor collects `die` up to: the trigger,
  // or in host idle time the background target; less `about_free`, victims
  // read out and waiting for their erase (they count as free already, or
  // GC would run ahead and collect fuller blocks than it needs to).
  std::uint32_t free_target(std::uint32_t about_free) const {
    // GC first: running out of erased blocks stalls host writes. In host
    // idle time, background GC works towards a higher free target.
    const std::uint32_t target = core_.gc_idle ? std::max(core_.cfg.gc_trigger_free_blocks,
                                                          core_.cfg.gc_background_free_blocks)
                                               : core_.cfg.gc_trigger_free_blocks;
    return target > about_free ? target - about_free : 0;
  }
  // Nothing to collect on `die`, the answer to nearly every call: no
  // reclaim queued, no wear-levelling look due, erased blocks enough, no
  // SLC cache to reclaim or fold.
  bool nothing_to_collect(std::uint32_t die, std::uint32_t target) const {
    return reclaim_[die].empty() && !core_.cfg.slc.enabled && !wear_due(die) &&
           !pacing_.short_of(die, target) && !victim_pending(die);
  }
  // GC by super-block (ftl.rain.span: dies): victims are chosen per group of
  // dies, and each member collects its own block of every victim, in the
  // order chosen. So a super-block returns to its group's pool once all its
  // members erased it, and no stripe ever outlives one of its members: the
  // parity of the stripes a victim leaves costs nothing to keep (no stripe
  // is left). True when the group chose a victim `die` has not taken up.
  bool victim_pending(std::uint32_t die) const {
    return super_ &&
           victim_cursor_[die] < group_base_[die / super_] + group_victims_[die / super_].size();
  }
  // Dies per super-block group (0: victims are blocks of one die).
  std::uint32_t group_width() const { return super_; }
  // `die`'s read-out victim `block` may be erased: always for a block of
  // one die; for a super-block, once no member holds valid data in it (a
  // failed member's data not yet rebuilt included). Erasing in lockstep so
  // keeps every stripe whole while any of its members is still read.
  bool may_erase(std::uint32_t die, std::uint32_t block) const {
    return !super_ || super_empty(die, block);
  }
  // Picks the next victim of `die` from `sources` (folding only when
  // `may_fold`: whether the cache needs more is known once the last folded
  // block is erased) and starts it. False when there is none.
  bool start(std::uint32_t die, std::uint32_t target, Sources sources, bool may_fold) {
    if (super_) return start_super(die, target, sources == Sources::kNative);
    if (sources == Sources::kNative) return start_native(die, target);
    return !nothing_to_collect(die, target) && search(die, target, may_fold);
  }
  // `slots` of the victim's pages were moved (one at a time by the
  // immediate executor, a program unit's worth by the timed one, a run by
  // the counted one): counted, and credited to the host for a GC victim.
  void moved(std::uint32_t die, std::uint32_t slots) {
    const Victim& v = victims_[die];
    (v.fold ? core_.stats.fold_moved_slots : core_.stats.gc_moved_slots) += slots;
    if (!v.fold) pacing_.earn(die, slots, v.credit_per_slot);
  }
  // Moves still to make before the die's credit covers `slots`
  // (GcPacing::moves_to_cover at the victim's rate).
  std::uint64_t moves_to_cover(std::uint32_t die, std::uint32_t slots) const {
    return pacing_.moves_to_cover(die, slots, victims_[die].credit_per_slot);
  }
  // The victim's valid pages have all been read: returns it. It is erased
  // once they are programmed elsewhere.
  std::uint32_t read_out(std::uint32_t die);
  // Bookkeeping of an erased victim (block pools, wear, verification).
  void erased(std::uint32_t die, std::uint32_t block);
  // The fast executors' pacing of a host unit of `slots` on `die`: starts a
  // victim when the die is short of erased blocks, pays for the unit from
  // the die's credit when it covers it, else says what to do first.
  HostStep before_host(std::uint32_t die, std::uint32_t slots);

  // Read reclaim (ftl/recovery/read_recovery.h): relocate `block` of `die` next,
  // ahead of the policy's victims, if it is still full when its turn comes.
  // False when it is queued already. `power_on`: a block recovery found
  // partly written or emptied (Ftl::recover), not counted as read reclaim.
  bool queue_reclaim(std::uint32_t die, std::uint32_t block, bool power_on = false);
  // A wear-levelling look is due on `die` (every `wl_interval` erases, once
  // its most worn block has reached the threshold).
  bool wear_due(std::uint32_t die) const {
    const std::uint32_t threshold = core_.cfg.wl_threshold;
    return threshold != 0 && wl_erases_[die] >= core_.cfg.wl_interval &&
           max_erase_[die] >= threshold;
  }
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  // The native-mode block to collect next on `die`: a static wear-levelling
  // victim when one is due, else the policy's victim when the die has fewer
  // than `target` erased blocks, else kNoBlock.
  std::uint32_t choose_victim(std::uint32_t die, std::uint32_t target);
  std::uint32_t wear_victim(std::uint32_t die);
  // The next block read reclaim (or recovery) asked for on `die` that is
  // still full; `power_on` says which of the two asked.
  std::uint32_t reclaim_victim(std::uint32_t die, bool& power_on);
  // Marks a queued block that recovery asked for (block indices stay far
  // below it), so that the queue stays one list in the order asked.
  static constexpr std::uint32_t kPowerOnReclaim = 0x80000000u;
  // The full search, apart so that the call stopping at the test it nearly
  // always stops at (nothing to collect) does not pay for its frame.
  [[gnu::noinline]] bool search(std::uint32_t die, std::uint32_t target, bool may_fold);
  bool start_native(std::uint32_t die, std::uint32_t target);
  // start() with super-block victims: the group's next victim `die` has not
  // taken up, else a new one for the group (read reclaim, unless
  // `native_only`; wear levelling; the policy when `die` is short).
  bool start_super(std::uint32_t die, std::uint32_t target, bool native_only);
  bool take_pending(std::uint32_t die);
  // `block` of `die` may be chosen: a full native block, or with
  // super-blocks one of a candidate super-block.
  bool candidate(std::uint32_t die, std::uint32_t block) const;
  bool super_empty(std::uint32_t die, std::uint32_t block) const;
  void begin(std::uint32_t die, std::uint32_t block, bool fold);

  FtlCore& core_;
  const SlcCache& slc_;
  std::unique_ptr<GcPolicy> policy_;
  GcPacing pacing_;
  std::vector<Victim> victims_;  // per die
  std::vector<std::vector<std::uint32_t>>
      reclaim_;  // per die: blocks read reclaim asked for, oldest first
  // Static wear levelling, per die: highest erase count, and erases since
  // the last look for a cold block.
  std::vector<std::uint32_t> max_erase_;
  std::vector<std::uint32_t> wl_erases_;
  // Super-block victims: per group, the victims chosen, the first at
  // `group_base_`; per die, the next position it takes up.
  std::uint32_t super_ = 0;
  std::vector<std::deque<std::uint32_t>> group_victims_;
  std::vector<std::uint64_t> group_base_;
  std::vector<std::uint64_t> victim_cursor_;
};

}  // namespace ssdtwin
