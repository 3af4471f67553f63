// SLC write cache: the blocks of the native part that run one bit per cell
// (fast program, a fraction of the capacity) to absorb host writes, later
// folded into native mode.
//
// The cache is made of a static region (dedicated blocks, always SLC) and/or
// a dynamic region (normal blocks opened in SLC mode, up to a share of the
// free user capacity, so it shrinks as the drive fills). Folding reuses the
// relocation machinery of garbage collection (ftl/gc/garbage_collector.h): an
// SLC block is a victim whose valid pages move to native-mode blocks.
//
// This class holds the cache's state queries; the choices (where host data
// goes, when to fold, what to reclaim) are the configured SlcPolicy's
// (ftl/slc/slc_policy.h, ftl.slc_cache.policy).
#pragma once

#include <cstdint>
#include <memory>

#include "ftl/ftl_core.h"
#include "ftl/slc/slc_policy.h"

namespace ssdtwin {

class SlcCache {
 public:
  explicit SlcCache(FtlCore& core);
  ~SlcCache();

  bool enabled() const { return cfg_.enabled; }
  const SlcCacheConfig& config() const { return cfg_; }
  const FtlCore& core() const { return core_; }

  // The policy's choices (nothing cached when the cache is disabled).
  HostTarget host_target(std::uint32_t die) const {
    return enabled() ? policy_->host_target(*this, die) : HostTarget::kNative;
  }
  bool needs_fold(std::uint32_t die) const { return enabled() && policy_->needs_fold(*this, die); }
  std::uint32_t fold_victim(std::uint32_t die) const {
    return enabled() ? policy_->fold_victim(*this, die) : kNoBlock;
  }
  std::uint32_t reclaim_victim(std::uint32_t die) const {
    return enabled() ? policy_->reclaim_victim(*this, die) : kNoBlock;
  }

  // State the policies decide on.
  // The open SLC block of `die` has room for another unit (asked for every
  // unit the write buffer flushes: inline).
  bool open_room(std::uint32_t die) const {
    return core_.blocks.has_open_room(die, Stream::kHostSlc, pages_per_program_);
  }
  // The static region of `die` has an erased block.
  bool static_free(std::uint32_t die) const {
    return core_.blocks.free_blocks(die, PoolKind::kStaticSlc) > 0;
  }
  // The dynamic region of `die` may open another block now.
  bool dynamic_room(std::uint32_t die) const;
  // No SLC room of any kind on `die`.
  bool full(std::uint32_t die) const {
    return !open_room(die) && !static_free(die) && !dynamic_room(die);
  }
  // The dynamic region of `die` holds more blocks than its budget.
  bool over_budget(std::uint32_t die) const;
  // The full SLC block of `die` filled longest ago, or kNoBlock.
  std::uint32_t oldest_full(std::uint32_t die) const;
  // The full SLC block of `die` with the fewest valid pages, or kNoBlock.
  std::uint32_t emptiest_full(std::uint32_t die) const;
  // A full SLC block of `die` with no valid data, or kNoBlock (a scan only
  // when the block manager counts one).
  std::uint32_t dead_block(std::uint32_t die) const;
  // Dynamic-region budget per die, in blocks, for the current free space.
  std::uint32_t dynamic_budget_blocks() const;

  std::uint32_t pages_per_program() const { return pages_per_program_; }
  std::uint32_t unit_slots() const { return unit_slots_; }
  // SLC capacity of one die-block, bytes.
  std::uint64_t block_bytes() const { return block_bytes_; }

 private:
  // The full SLC block of `die` with the smallest key(info), or kNoBlock.
  template <class Key>
  std::uint32_t min_full(std::uint32_t die, Key key) const;

  FtlCore& core_;
  const SlcCacheConfig& cfg_;
  std::unique_ptr<SlcPolicy> policy_;
  std::uint32_t pages_per_program_ = 1;
  std::uint32_t unit_slots_ = 0;
  std::uint64_t block_bytes_ = 0;
};

}  // namespace ssdtwin
