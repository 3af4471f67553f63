// Greedy victim choice: the full block with the fewest valid pages, which
// minimises the pages moved per block reclaimed (optimal for uniform random
// writes). Ties go to the lowest block index, for determinism.
#include "ftl/block_manager.h"
#include "ftl/impl/gc_policies.h"

namespace ssdtwin {

namespace {

class GreedyGc final : public GcPolicy {
 public:
  std::uint32_t select_victim(const BlockManager& blocks, std::uint32_t die, Rng&) override {
    std::uint32_t best = kNoBlock;
    std::uint32_t best_valid = 0;
    for (std::uint32_t b = 0; b < blocks.blocks_per_die(); ++b) {
      const BlockInfo& info = blocks.info(die, b);
      if (info.state != BlockState::kFull) continue;
      if (best == kNoBlock || info.valid < best_valid) {
        best = b;
        best_valid = info.valid;
      }
    }
    if (best == kNoBlock) return kNoBlock;
    const BlockInfo& info = blocks.info(die, best);
    const std::uint64_t capacity =
        std::uint64_t{blocks.pages_in(info)} * blocks.layout().slots_per_page();
    return info.valid < capacity ? best : kNoBlock;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_greedy_gc() { return std::make_unique<GreedyGc>(); }

}  // namespace ssdtwin
