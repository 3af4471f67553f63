// Random victim choice: a uniformly random candidate among the full
// native-mode blocks that hold at least one invalid page. A baseline that
// ignores both validity (beyond "something to reclaim") and age; with
// uniform random writes it moves more data than greedy.
//
// Deterministic for a given seed: candidates are collected in block order and
// one is drawn with the GC's Rng (Rng::below, the same sequence on every
// standard library).
#include <vector>

#include "ftl/block_manager.h"
#include "ftl/impl/gc_policies.h"

namespace ssdtwin {

namespace {

class RandomGc final : public GcPolicy {
 public:
  std::uint32_t select_victim(const BlockManager& blocks, std::uint32_t die, Rng& rng) override {
    candidates_.clear();
    for (std::uint32_t b = 0; b < blocks.blocks_per_die(); ++b) {
      const BlockInfo& info = blocks.info(die, b);
      if (blocks.gc_candidate(info) && info.valid < blocks.capacity_slots(info))
        candidates_.push_back(b);
    }
    if (candidates_.empty()) return kNoBlock;  // no draw: the Rng sequence is untouched
    return candidates_[rng.below(candidates_.size())];
  }

 private:
  std::vector<std::uint32_t> candidates_;  // reused between calls
};

}  // namespace

std::unique_ptr<GcPolicy> make_random_gc() { return std::make_unique<RandomGc>(); }

}  // namespace ssdtwin
