#include "ftl/slc/slc_cache.h"

#include <algorithm>

namespace ssdtwin {

SlcCache::SlcCache(FtlCore& core)
    : core_(core), cfg_(core.cfg.slc), policy_(make_slc_policy(core.cfg.slc.policy)) {
  if (!cfg_.enabled) return;
  pages_per_program_ = core.nand.timing().pages_per_program(CellMode::kSlc);
  unit_slots_ = pages_per_program_ * core.geo.slots_per_die_page();
  block_bytes_ = std::uint64_t{core.geo.pages_in_mode(CellMode::kSlc)} *
                 core.geo.slots_per_die_page() * kSectorBytes;
}

SlcCache::~SlcCache() = default;

std::uint32_t SlcCache::dynamic_budget_blocks() const {
  if (cfg_.dynamic_share <= 0 && cfg_.dynamic_min == 0) return 0;
  const std::uint64_t user = core_.cfg.user_bytes;
  const std::uint64_t used = core_.mapped_pages * kSectorBytes;
  const double free_bytes = static_cast<double>(user > used ? user - used : 0);
  auto bytes = static_cast<std::uint64_t>(cfg_.dynamic_share * free_bytes);
  bytes = std::clamp(bytes, cfg_.dynamic_min, cfg_.dynamic_max);
  return static_cast<std::uint32_t>(bytes / block_bytes_ / core_.geo.dies());
}

bool SlcCache::dynamic_room(std::uint32_t die) const {
  const BlockManager& b = core_.blocks;
  return b.dynamic_slc_blocks(die) < dynamic_budget_blocks() &&
         b.can_allocate(die, Stream::kHostSlc, pages_per_program_, PoolKind::kNormal);
}

bool SlcCache::over_budget(std::uint32_t die) const {
  return core_.blocks.dynamic_slc_blocks(die) > dynamic_budget_blocks();
}

template <class Key>
std::uint32_t SlcCache::min_full(std::uint32_t die, Key key) const {
  const BlockManager& b = core_.blocks;
  std::uint32_t best = kNoBlock, best_key = 0;
  for (std::uint32_t blk = 0; blk < b.blocks_per_die(); ++blk) {
    const BlockInfo& info = b.info(die, blk);
    if (info.state != BlockState::kFull || info.mode == b.native_mode()) continue;
    if (best == kNoBlock || key(info) < best_key) {
      best = blk;
      best_key = key(info);
    }
  }
  return best;
}

std::uint32_t SlcCache::emptiest_full(std::uint32_t die) const {
  return min_full(die, [](const BlockInfo& i) { return i.valid; });
}

std::uint32_t SlcCache::oldest_full(std::uint32_t die) const {
  return min_full(die, [](const BlockInfo& i) { return i.closed_seq; });
}

std::uint32_t SlcCache::dead_block(std::uint32_t die) const {
  const BlockManager& b = core_.blocks;
  if (b.dead_slc_blocks(die) == 0) return kNoBlock;
  for (std::uint32_t blk = 0; blk < b.blocks_per_die(); ++blk) {
    const BlockInfo& info = b.info(die, blk);
    if (info.state == BlockState::kFull && info.mode != b.native_mode() && info.valid == 0)
      return blk;
  }
  return kNoBlock;
}

}  // namespace ssdtwin
