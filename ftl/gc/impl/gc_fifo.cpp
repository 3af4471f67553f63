// FIFO victim choice: the block that was filled first, whatever its valid
// count. A baseline: it ignores validity, so it moves more data than greedy
// but spreads wear evenly.
#include "ftl/blocks/block_manager.h"
#include "ftl/gc/impl/gc_policies.h"

namespace ssdtwin {

namespace {

struct Fifo {
  template <class Candidates>
  std::uint32_t operator()(const Candidates& cands, Rng&) const {
    std::uint32_t best = kNoBlock;
    std::uint32_t best_seq = 0;
    VictimCandidate c;
    for (std::uint32_t b = 0; b < cands.size(); ++b) {
      if (!cands.get(b, c)) continue;
      if (best == kNoBlock || c.closed_seq < best_seq) {
        best = b;
        best_seq = c.closed_seq;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_fifo_gc() { return std::make_unique<GcPolicyOf<Fifo>>(); }

}  // namespace ssdtwin
