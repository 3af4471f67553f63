// The SLC cache policy of the first SSDTwin drives: host data goes to SLC
// while there is room; SLC blocks are freed only by folding. Folding runs in
// host idle time (fold.idle_after), when the dynamic region is over its
// budget or GC runs short of blocks, and, when full, if the config folds
// while writing (fold.while_writing or when_full: fold_first). A block whose
// data was all overwritten is folded like any other (nothing to move), so
// under sustained writes with no idle time the cache, once full, stays full.
#include "ftl/slc/impl/slc_idle_fold.h"

#include "ftl/slc/impl/slc_policies.h"
#include "ftl/slc/slc_cache.h"

namespace ssdtwin {

HostTarget IdleFoldSlc::host_target(const SlcCache& c, std::uint32_t die) const {
  if (c.open_room(die)) return HostTarget::kSlcOpen;
  if (c.static_free(die)) return HostTarget::kSlcStatic;
  if (c.dynamic_room(die)) return HostTarget::kSlcDynamic;
  // Full. Waiting only makes sense while folding can free a block.
  if (c.config().when_full == SlcCacheConfig::WhenFull::kFoldFirst &&
      (c.core().relocating_slc(die) || c.oldest_full(die) != kNoBlock))
    return HostTarget::kWait;
  return HostTarget::kNative;
}

bool IdleFoldSlc::needs_fold(const SlcCache& c, std::uint32_t die) const {
  const FtlCore& core = c.core();
  const BlockManager& b = core.blocks;
  // The dynamic region shrinks as the drive fills, and gives its blocks
  // back when GC runs short.
  if (c.over_budget(die)) return true;
  if (b.dynamic_slc_blocks(die) > 0 && b.free_blocks(die) < core.cfg.gc_trigger_free_blocks)
    return true;
  if (core.host_idle && c.config().fold_idle > 0) return true;
  const bool pressure =
      c.config().fold_while_writing || c.config().when_full == SlcCacheConfig::WhenFull::kFoldFirst;
  return pressure && c.full(die);
}

// Oldest first: data that stayed in the cache longest is the least likely
// to be overwritten soon.
std::uint32_t IdleFoldSlc::fold_victim(const SlcCache& c, std::uint32_t die) const {
  return c.oldest_full(die);
}

std::uint32_t IdleFoldSlc::reclaim_victim(const SlcCache&, std::uint32_t) const { return kNoBlock; }

std::unique_ptr<SlcPolicy> make_idle_fold_slc() { return std::make_unique<IdleFoldSlc>(); }

}  // namespace ssdtwin
