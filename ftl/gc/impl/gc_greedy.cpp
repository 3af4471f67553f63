// Greedy victim choice: the full block with the fewest valid pages, which
// minimises the pages moved per block reclaimed (optimal for uniform random
// writes). Ties go to the lowest block index, for determinism.
#include "ftl/blocks/block_manager.h"
#include "ftl/gc/impl/gc_policies.h"

namespace ssdtwin {

namespace {

struct Greedy {
  template <class Candidates>
  std::uint32_t operator()(const Candidates& cands, Rng&) const {
    std::uint32_t best = kNoBlock;
    VictimCandidate best_c, c;
    for (std::uint32_t b = 0; b < cands.size(); ++b) {
      if (!cands.get(b, c)) continue;
      if (best == kNoBlock || c.valid < best_c.valid) {
        best = b;
        best_c = c;
      }
    }
    if (best == kNoBlock) return kNoBlock;
    return best_c.valid < best_c.capacity ? best : kNoBlock;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_greedy_gc() { return std::make_unique<GcPolicyOf<Greedy>>(); }

}  // namespace ssdtwin
