// SLC write-cache policy: where each host program unit goes (SLC or native
// mode) and when SLC blocks are folded into native mode.
//
// The cache is made of a static region (dedicated blocks, always SLC) and/or
// a dynamic region (normal blocks opened in SLC mode, up to a share of the
// free user capacity, so it shrinks as the drive fills). Folding reuses the
// relocation machinery of garbage collection (ftl/garbage_collector.h): an
// SLC block is a victim whose valid pages move to native-mode blocks.
#pragma once

#include <cstdint>

#include "ftl/ftl.h"

namespace ssdtwin {

enum class HostTarget : std::uint8_t {
  kNative,      // program in native mode (no cache, or cache full and writing direct)
  kSlcOpen,     // continue the open SLC block
  kSlcStatic,   // open a block of the static SLC pool
  kSlcDynamic,  // open a normal block in SLC mode
  kWait,        // cache full, fold first: this die takes no host data now
};

class SlcCache {
 public:
  explicit SlcCache(FtlCore& core);

  bool enabled() const { return cfg_.enabled; }
  HostTarget host_target(std::uint32_t die) const;
  // Whether the relocator of `die` should start folding now.
  bool needs_fold(std::uint32_t die) const;
  // The SLC block to fold next on `die` (the oldest full one), or kNoBlock.
  std::uint32_t fold_victim(std::uint32_t die) const;
  // Dynamic-region budget per die, in blocks, for the current free space.
  std::uint32_t dynamic_budget_blocks() const;

  std::uint32_t pages_per_program() const { return pages_per_program_; }
  std::uint32_t unit_slots() const { return unit_slots_; }
  // SLC capacity of one die-block, bytes.
  std::uint64_t block_bytes() const { return block_bytes_; }

 private:
  bool cache_full(std::uint32_t die) const;

  FtlCore& core_;
  const SlcCacheConfig& cfg_;
  std::uint32_t pages_per_program_ = 1;
  std::uint32_t unit_slots_ = 0;
  std::uint64_t block_bytes_ = 0;
};

}  // namespace ssdtwin
