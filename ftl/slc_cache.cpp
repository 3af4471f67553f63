#include "ftl/slc_cache.h"

#include <algorithm>

namespace ssdtwin {

SlcCache::SlcCache(FtlCore& core) : core_(core), cfg_(core.cfg.slc) {
  if (!cfg_.enabled) return;
  pages_per_program_ = core.nand.timing().pages_per_program(CellMode::kSlc);
  unit_slots_ = pages_per_program_ * core.geo.slots_per_die_page();
  block_bytes_ = std::uint64_t{core.geo.pages_in_mode(CellMode::kSlc)} *
                 core.geo.slots_per_die_page() * kSectorBytes;
}

std::uint32_t SlcCache::dynamic_budget_blocks() const {
  if (cfg_.dynamic_share <= 0 && cfg_.dynamic_min == 0) return 0;
  const std::uint64_t user = core_.cfg.user_bytes;
  const std::uint64_t used = core_.mapped_pages * kSectorBytes;
  const double free_bytes = static_cast<double>(user > used ? user - used : 0);
  auto bytes = static_cast<std::uint64_t>(cfg_.dynamic_share * free_bytes);
  bytes = std::clamp(bytes, cfg_.dynamic_min, cfg_.dynamic_max);
  return static_cast<std::uint32_t>(bytes / block_bytes_ / core_.geo.dies());
}

bool SlcCache::cache_full(std::uint32_t die) const {
  const BlockManager& b = core_.blocks;
  if (b.has_open_room(die, Stream::kHostSlc, pages_per_program_)) return false;
  if (b.free_blocks(die, PoolKind::kStaticSlc) > 0) return false;
  return b.dynamic_slc_blocks(die) >= dynamic_budget_blocks() ||
         !b.can_allocate(die, Stream::kHostSlc, pages_per_program_, PoolKind::kNormal);
}

HostTarget SlcCache::host_target(std::uint32_t die) const {
  if (!cfg_.enabled) return HostTarget::kNative;
  const BlockManager& b = core_.blocks;
  if (b.has_open_room(die, Stream::kHostSlc, pages_per_program_)) return HostTarget::kSlcOpen;
  if (b.free_blocks(die, PoolKind::kStaticSlc) > 0) return HostTarget::kSlcStatic;
  if (b.dynamic_slc_blocks(die) < dynamic_budget_blocks() &&
      b.can_allocate(die, Stream::kHostSlc, pages_per_program_, PoolKind::kNormal))
    return HostTarget::kSlcDynamic;
  // Full. Waiting only makes sense while folding can free a block.
  if (cfg_.when_full == SlcCacheConfig::WhenFull::kFoldFirst &&
      (core_.relocating_slc(die) || fold_victim(die) != kNoBlock))
    return HostTarget::kWait;
  return HostTarget::kNative;
}

bool SlcCache::needs_fold(std::uint32_t die) const {
  if (!cfg_.enabled) return false;
  const BlockManager& b = core_.blocks;
  // The dynamic region shrinks as the drive fills, and gives its blocks
  // back when GC runs short.
  if (b.dynamic_slc_blocks(die) > dynamic_budget_blocks()) return true;
  if (b.dynamic_slc_blocks(die) > 0 && b.free_blocks(die) < core_.cfg.gc_trigger_free_blocks)
    return true;
  if (core_.host_idle && cfg_.fold_idle > 0) return true;
  const bool pressure =
      cfg_.fold_while_writing || cfg_.when_full == SlcCacheConfig::WhenFull::kFoldFirst;
  return pressure && cache_full(die);
}

std::uint32_t SlcCache::fold_victim(std::uint32_t die) const {
  const BlockManager& b = core_.blocks;
  std::uint32_t best = kNoBlock, best_seq = 0;
  for (std::uint32_t blk = 0; blk < b.blocks_per_die(); ++blk) {
    const BlockInfo& info = b.info(die, blk);
    if (info.state != BlockState::kFull || info.mode == b.native_mode()) continue;
    if (best == kNoBlock || info.closed_seq < best_seq) {
      best = blk;
      best_seq = info.closed_seq;
    }
  }
  return best;
}

}  // namespace ssdtwin
