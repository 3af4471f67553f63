// FIFO victim choice: the block that was filled first, whatever its valid
// count. A baseline: it ignores validity, so it moves more data than greedy
// but spreads wear evenly.
#include "ftl/block_manager.h"
#include "ftl/impl/gc_policies.h"

namespace ssdtwin {

namespace {

class FifoGc final : public GcPolicy {
 public:
  std::uint32_t select_victim(const BlockManager& blocks, std::uint32_t die, Rng&) override {
    std::uint32_t best = kNoBlock;
    std::uint32_t best_seq = 0;
    for (std::uint32_t b = 0; b < blocks.blocks_per_die(); ++b) {
      const BlockInfo& info = blocks.info(die, b);
      if (!blocks.gc_candidate(info)) continue;
      if (best == kNoBlock || info.closed_seq < best_seq) {
        best = b;
        best_seq = info.closed_seq;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_fifo_gc() { return std::make_unique<FifoGc>(); }

}  // namespace ssdtwin
