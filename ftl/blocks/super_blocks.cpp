#include "ftl/blocks/super_blocks.h"

namespace ssdtwin {

std::uint32_t SuperBlockTable::parity_die(std::uint32_t group, std::uint32_t block,
                                          std::uint32_t pos) const {
  const std::uint64_t m = members[at(group, block)];
  // (m & (m - 1)) clears the lowest member: zero means fewer than two
  if ((m & (m - 1)) == 0) return UINT32_MAX;
  const std::uint32_t first = static_cast<std::uint32_t>((std::uint64_t{block} + pos) % width);
  if ((m >> first) & 1) return group * width + first;
  // A missing member's turn comes once per round of `width` positions; round
  // t passes it to the t-th member after it (cyclically), so the others share
  // its parity evenly. Passing every turn to the next member would give that
  // one twice the parity of the rest when a die fails (it leaves every
  // super-block): it then fills its blocks faster than the others and runs
  // short of erased blocks while they hold theirs in super-blocks it passed.
  std::uint32_t others = 0;
  for (std::uint32_t k = 0; k < width; ++k) others += (m >> k) & 1;
  std::uint32_t nth = static_cast<std::uint32_t>((pos / width) % others);
  for (std::uint32_t i = 1; i < width; ++i) {
    const std::uint32_t k = (first + i) % width;
    if (((m >> k) & 1) && nth-- == 0) return group * width + k;
  }
  return UINT32_MAX;
}

}  // namespace ssdtwin
