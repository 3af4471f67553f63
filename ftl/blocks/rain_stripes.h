// RAIN stripes: which program units of a block form each stripe.
//
// A stripe is `width` consecutive program units of one block: width - 1
// units of data, then their XOR in the last; a block whose unit count is not
// a multiple of the width ends with a shorter stripe. Keeping stripes inside
// a block keeps them consistent through GC and retirement: a block is erased
// or retired whole, so a stripe never outlives one of its members. The
// table is this rule, not stored state. It protects against page, wordline
// and block failures; a whole-die failure takes every member with it.
// Stripes across dies (ftl.rain.span: dies) follow another rule, on
// super-blocks: SuperBlockTable::parity_die (ftl/blocks/super_blocks.h).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ssdtwin {

class RainStripes {
 public:
  explicit RainStripes(std::uint32_t width) : width_(width) {}
  bool enabled() const { return width_ != 0; }
  std::uint32_t width() const { return width_; }

  // True when, after data unit `unit` of a block of `units` units, the next
  // unit of the block is its stripe's parity.
  bool parity_next(std::uint32_t unit, std::uint32_t units) const {
    if (!enabled() || unit + 1 >= units) return false;
    return unit % width_ == width_ - 2 || unit + 2 == units;
  }
  // The stripe holding `unit`: units [first, end) of the block.
  std::uint32_t first(std::uint32_t unit) const { return unit - unit % width_; }
  std::uint32_t end(std::uint32_t unit, std::uint32_t units) const {
    return std::min(first(unit) + width_, units);
  }

 private:
  std::uint32_t width_;
};

}  // namespace ssdtwin
