// Logical and physical addresses of 4 KiB mapping units.
//
// A physical slot index (Ppa) enumerates every 4 KiB slot of the array:
//   ppa = ((die_block * pages_per_block + page) * slots_per_die_page) + k
//   die_block = die * blocks_per_plane + block, k = plane * sectors_per_page + sector
// so that the slots one multi-plane program writes are contiguous.
#pragma once

#include <cstdint>

#include "nand/geometry.h"

namespace ssdtwin {

// Drive-state snapshots (sim/state_archive.h): the FTL's parts each archive
// their state into one.
class StateArchive;

using Lpn = std::uint32_t;  // logical page number (4 KiB)
using Ppa = std::uint32_t;  // physical slot index

constexpr std::uint32_t kUnmapped = 0xFFFFFFFFu;
// Mapping values at or above this (other than kUnmapped) refer to an entry of
// the controller's write buffer rather than to flash.
constexpr std::uint32_t kBufferBase = 0xF0000000u;

inline bool is_flash(std::uint32_t m) { return m < kBufferBase; }
inline bool is_buffered(std::uint32_t m) { return m >= kBufferBase && m != kUnmapped; }

class Layout {
 public:
  explicit Layout(const Geometry& g)
      : slots_per_page_(g.slots_per_die_page()),
        slots_per_block_(static_cast<std::uint32_t>(g.slots_per_die_block())),
        blocks_per_plane_(g.blocks_per_plane) {}

  std::uint32_t die_block_of(Ppa p) const { return p / slots_per_block_; }
  std::uint32_t die_of(Ppa p) const { return die_block_of(p) / blocks_per_plane_; }
  std::uint32_t block_of(Ppa p) const { return die_block_of(p) % blocks_per_plane_; }
  std::uint32_t page_of(Ppa p) const { return (p % slots_per_block_) / slots_per_page_; }
  std::uint32_t die_block(std::uint32_t die, std::uint32_t block) const {
    return die * blocks_per_plane_ + block;
  }
  Ppa first_slot(std::uint32_t die_block, std::uint32_t page) const {
    return die_block * slots_per_block_ + page * slots_per_page_;
  }
  std::uint32_t slots_per_page() const { return slots_per_page_; }
  std::uint32_t slots_per_block() const { return slots_per_block_; }

 private:
  std::uint32_t slots_per_page_;
  std::uint32_t slots_per_block_;
  std::uint32_t blocks_per_plane_;
};

}  // namespace ssdtwin
