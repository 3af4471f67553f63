#include "ftl/super_blocks.h"


namespace ssdtwin {

std::uint32_t SuperBlockTable::parity_die(std::uint32_t group, std::uint32_t block,
                                          std::uint32_t pos) const {
  const std::uint64_t m = members[at(group, block)];
  // (m & (m - 1)) clears the lowest member: zero means fewer than two
  if ((m & (m - 1)) == 0) return UINT32_MAX;
  const std::uint32_t first = static_cast<std::uint32_t>((std::uint64_t{block} + pos) % width);
  for (std::uint32_t i = 0; i < width; ++i) {
    const std::uint32_t k = (first + i) % width;
    if ((m >> k) & 1) return group * width + k;
  }
  return UINT32_MAX;
}

}  // namespace ssdtwin
