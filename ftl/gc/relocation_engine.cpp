#include "ftl/gc/relocation_engine.h"

#include <algorithm>

#include "ftl/slc/slc_cache.h"
#include "sim/state_archive.h"

namespace ssdtwin {

RelocationEngine::RelocationEngine(FtlCore& core, const SlcCache& slc,
                                   std::unique_ptr<GcPolicy> policy)
    : core_(core),
      slc_(slc),
      policy_(std::move(policy)),
      pacing_(core.cfg, core.blocks, core.unit_slots),
      victims_(core.geo.dies()),
      reclaim_(core.geo.dies()),
      max_erase_(core.geo.dies(), 0),
      wl_erases_(core.geo.dies(), 0),
      super_(core.cfg.rain_span_dies) {
  if (!super_) return;
  group_victims_.resize(core.geo.dies() / super_);
  group_base_.assign(group_victims_.size(), 0);
  victim_cursor_.assign(core.geo.dies(), 0);
}

bool RelocationEngine::start_super(std::uint32_t die, std::uint32_t target, bool native_only) {
  if (take_pending(die)) return true;
  bool power_on = false;
  std::uint32_t v = native_only ? kNoBlock : reclaim_victim(die, power_on);
  if (v != kNoBlock && !power_on) ++core_.stats.reclaim_blocks;
  if (v == kNoBlock) {
    if (native_only && !pacing_.short_of(die, target)) return false;
    v = choose_victim(die, target);
  }
  if (v == kNoBlock) return false;
  const std::uint32_t g = die / super_;
  core_.blocks.set_super_victim(g, v);
  group_victims_[g].push_back(v);
  return take_pending(die);
}

bool RelocationEngine::take_pending(std::uint32_t die) {
  const std::uint32_t g = die / super_;
  std::deque<std::uint32_t>& q = group_victims_[g];
  while (victim_pending(die)) {
    const std::uint32_t b = q[victim_cursor_[die]++ - group_base_[g]];
    // Drop what every live member has taken up.
    std::uint64_t least = UINT64_MAX;
    for (std::uint32_t d = g * super_; d < (g + 1) * super_; ++d)
      if (!core_.durable.die_offline[d]) least = std::min(least, victim_cursor_[d]);
    while (!q.empty() && group_base_[g] < least) {
      q.pop_front();
      ++group_base_[g];
    }
    // A member's block is still full; one whose die skipped the
    // super-block, or whose block failed, has nothing to collect.
    if (core_.blocks.super_blocks().member(die, b) &&
        core_.blocks.info(die, b).state == BlockState::kFull) {
      begin(die, b, false);
      return true;
    }
  }
  return false;
}

bool RelocationEngine::super_empty(std::uint32_t die, std::uint32_t block) const {
  const SuperBlockTable& sb = core_.blocks.super_blocks();
  const std::uint32_t first = die / super_ * super_;
  for (std::uint32_t d = first; d < first + super_; ++d)
    if (d != die && sb.member(d, block) && core_.blocks.info(d, block).valid > 0 &&
        (!core_.durable.die_offline[d] || core_.die_rebuild_running))
      return false;
  return true;
}

bool RelocationEngine::candidate(std::uint32_t die, std::uint32_t block) const {
  if (!super_) return core_.blocks.gc_candidate(core_.blocks.info(die, block));
  VictimCandidate c;
  return core_.blocks.super_candidate(die, block, c.valid, c.capacity, c.closed_seq);
}

bool RelocationEngine::start_native(std::uint32_t die, std::uint32_t target) {
  if (!pacing_.short_of(die, target)) return false;
  const std::uint32_t v = choose_victim(die, target);
  if (v == kNoBlock) return false;  // nothing reclaimable: the host takes from the reserve
  begin(die, v, false);
  return true;
}

bool RelocationEngine::search(std::uint32_t die, std::uint32_t target, bool may_fold) {
  // Data at risk first: a block read reclaim asked for. An SLC-mode one
  // is folded, as the cache would fold it.
  bool power_on = false;
  std::uint32_t v = reclaim_victim(die, power_on);
  bool fold = false;
  if (v != kNoBlock) {
    fold = core_.blocks.info(die, v).mode != core_.native;
    if (!power_on) ++core_.stats.reclaim_blocks;
  } else {
    v = choose_victim(die, target);
  }
  // An SLC block with nothing valid costs only its erase.
  if (v == kNoBlock) {
    v = slc_.reclaim_victim(die);
    if (v != kNoBlock) {
      fold = true;
      ++core_.stats.slc_reclaims;
    }
  }
  if (v == kNoBlock && may_fold && slc_.needs_fold(die)) {
    v = slc_.fold_victim(die);
    fold = true;
    if (v != kNoBlock) ++core_.stats.fold_victims;
  }
  if (v == kNoBlock) return false;
  begin(die, v, fold);
  return true;
}

void RelocationEngine::begin(std::uint32_t die, std::uint32_t block, bool fold) {
  Victim& v = victims_[die];
  v.fold = fold;
  const Stream from = core_.blocks.info(die, block).stream;
  const bool moved_before = core_.blocks.streams().is_relocation(from);
  // FDP: a persistently isolated handle's data stays in its own GC stream.
  const Stream dest = core_.fdp.gc_dest(from);
  v.dest =
      dest == Stream::kGc && core_.cfg.gc_separate_cold && moved_before ? Stream::kGcCold : dest;
  // Proportional pacing: host IOPS settle at what GC sustains instead of
  // stalling and bursting.
  v.credit_per_slot = pacing_.start(die, core_.blocks.info(die, block));
  core_.blocks.set_victim(die, block);
  v.block = block;
  core_.folding[die] = fold ? 1 : 0;
  if (!fold) ++core_.stats.gc_victims;
}

std::uint32_t RelocationEngine::read_out(std::uint32_t die) {
  const std::uint32_t block = victims_[die].block;
  victims_[die].block = kNoBlock;
  core_.folding[die] = 0;
  return block;
}

void RelocationEngine::erased(std::uint32_t die, std::uint32_t block) {
  core_.blocks.on_erased(die, block);
  core_.fdp.note_victim_erased(die, core_.layout.die_block(die, block), core_.stats);
  if (core_.verifier.enabled())
    core_.verifier.erase(core_.layout.first_slot(core_.layout.die_block(die, block), 0),
                         core_.layout.slots_per_block());
  ++core_.stats.gc_erases;
  max_erase_[die] = std::max(max_erase_[die], core_.blocks.info(die, block).erase_count);
  ++wl_erases_[die];
}

RelocationEngine::HostStep RelocationEngine::before_host(std::uint32_t die, std::uint32_t slots) {
  if (!collecting(die) && !start(die, core_.cfg.gc_trigger_free_blocks, Sources::kNative, false))
    return HostStep::kProgram;
  // Not short of blocks: the host is not paced, and the victim's
  // collection goes on beside the host's program, as on the die.
  if (!pacing_.short_of_blocks(die)) return HostStep::kCollectBeside;
  if (!pacing_.covers(die, slots)) return HostStep::kEarn;
  // Credit pays for the host's unit unless the die is down to its reserve:
  // with an urgency share above 1 the host can outrun GC, and the timed
  // path would stop giving it new blocks there (BlockManager::can_allocate).
  if (core_.blocks.free_blocks(die) <= core_.cfg.gc_reserved_blocks) return HostStep::kFinishVictim;
  pacing_.host_programmed(die, slots, true);
  return HostStep::kProgram;
}

bool RelocationEngine::queue_reclaim(std::uint32_t die, std::uint32_t block, bool power_on) {
  auto& q = reclaim_[die];
  if (std::find_if(q.begin(), q.end(),
                   [&](std::uint32_t e) { return (e & ~kPowerOnReclaim) == block; }) != q.end())
    return false;
  q.push_back(block | (power_on ? kPowerOnReclaim : 0));
  return true;
}

std::uint32_t RelocationEngine::reclaim_victim(std::uint32_t die, bool& power_on) {
  auto& q = reclaim_[die];
  // A block still being programmed waits its turn; one collected or
  // erased meanwhile is dropped.
  for (std::size_t i = 0; i < q.size();) {
    const std::uint32_t b = q[i] & ~kPowerOnReclaim;
    const BlockState st = core_.blocks.info(die, b).state;
    // With super-blocks, one whose other members are still being written
    // waits too: the whole super-block is the next victim once it is full.
    if (st == BlockState::kOpen || (super_ && st == BlockState::kFull && !candidate(die, b) &&
                                    core_.blocks.super_blocks().in_use(die, b))) {
      ++i;
      continue;
    }
    power_on = (q[i] & kPowerOnReclaim) != 0;
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
    if (st == BlockState::kFull && (!super_ || candidate(die, b))) return b;
  }
  return kNoBlock;
}

std::uint32_t RelocationEngine::choose_victim(std::uint32_t die, std::uint32_t target) {
  const std::uint32_t wl = wear_victim(die);
  if (wl != kNoBlock) return wl;
  if (!pacing_.short_of(die, target)) return kNoBlock;
  if (super_) return policy_->select_victim(SuperCandidates{core_.blocks, die}, core_.rng);
  return policy_->select_victim(DieCandidates{core_.blocks, die}, core_.rng);
}

std::uint32_t RelocationEngine::wear_victim(std::uint32_t die) {
  // Static wear levelling: data that never changes pins its block at a low
  // erase count; moving it lets that block take its share of the writes.
  // Looked at every `wl_interval` erases of the die, so that collecting
  // full cold blocks never crowds out the collection that frees space.
  if (!wear_due(die)) return kNoBlock;
  const std::uint32_t threshold = core_.cfg.wl_threshold;
  wl_erases_[die] = 0;
  std::uint32_t coldest = kNoBlock, cold_erases = 0;
  for (std::uint32_t b = 0; b < core_.blocks.blocks_per_die(); ++b) {
    const BlockInfo& info = core_.blocks.info(die, b);
    if (!candidate(die, b)) continue;
    if (coldest == kNoBlock || info.erase_count < cold_erases) {
      coldest = b;
      cold_erases = info.erase_count;
    }
  }
  if (coldest == kNoBlock || max_erase_[die] - cold_erases <= threshold) return kNoBlock;
  ++core_.stats.wl_victims;
  return coldest;
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void RelocationEngine::archive(StateArchive& ar) {
  pacing_.archive(ar);
  // Field by field: the struct's padding would put stray bytes in the file.
  for (Victim& v : victims_) ar.pods(v.block, v.fold, v.credit_per_slot, v.dest);
  for (auto& q : reclaim_) ar.vec(q);
  ar.vec(max_erase_, true);
  ar.vec(wl_erases_, true);
  if (!super_) return;
  ar.deques(group_victims_);
  ar.vec(group_base_, true);
  ar.vec(victim_cursor_, true);
}

}  // namespace ssdtwin
