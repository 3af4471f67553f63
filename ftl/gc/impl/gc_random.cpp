// Random victim choice: a uniformly random candidate among the full
// native-mode blocks that hold at least one invalid page. A baseline that
// ignores both validity (beyond "something to reclaim") and age; with
// uniform random writes it moves more data than greedy.
//
// Deterministic for a given seed: candidates are collected in block order and
// one is drawn with the GC's Rng (Rng::below, the same sequence on every
// standard library).
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/gc/impl/gc_policies.h"

namespace ssdtwin {

namespace {

struct Random {
  template <class Candidates>
  std::uint32_t operator()(const Candidates& cands, Rng& rng) {
    candidates_.clear();
    VictimCandidate c;
    for (std::uint32_t b = 0; b < cands.size(); ++b)
      if (cands.get(b, c) && c.valid < c.capacity) candidates_.push_back(b);
    if (candidates_.empty()) return kNoBlock;  // no draw: the Rng sequence is untouched
    return candidates_[rng.below(candidates_.size())];
  }
  std::vector<std::uint32_t> candidates_;  // reused between calls
};

}  // namespace

std::unique_ptr<GcPolicy> make_random_gc() { return std::make_unique<GcPolicyOf<Random>>(); }

}  // namespace ssdtwin
