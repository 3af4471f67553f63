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
      if (!blocks.gc_candidate(info)) continue;
      if (best == kNoBlock || info.valid < best_valid) {
        best = b;
        best_valid = info.valid;
      }
    }
    if (best == kNoBlock) return kNoBlock;
    const BlockInfo& info = blocks.info(die, best);
    return info.valid < blocks.capacity_slots(info) ? best : kNoBlock;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_greedy_gc() { return std::make_unique<GreedyGc>(); }

}  // namespace ssdtwin
