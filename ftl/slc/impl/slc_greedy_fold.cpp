// reclaim, and the cache keeps working under sustained writes: once a die's
// SLC region is full while the host goes on writing, the relocator folds the
// SLC block with the fewest valid pages (the cheapest to empty), so host
// data keeps landing in SLC and a block mostly overwritten costs little.
// This is the write-through SLC staging of drives whose host writes always
// enter SLC first; fold.while_writing is implied. Folding competes with host
// programs for the die, so the sustained speed is what the native mode
// programs minus the fold's extra reads, with short SLC-speed bursts each
// time a fold completes.
#include "ftl/slc/impl/slc_idle_fold.h"
#include "ftl/slc/impl/slc_policies.h"
#include "ftl/slc/slc_cache.h"

namespace ssdtwin {

namespace {

class GreedyFoldSlc final : public IdleFoldSlc {
 public:
  bool needs_fold(const SlcCache& c, std::uint32_t die) const override {
    return IdleFoldSlc::needs_fold(c, die) || c.full(die);
  }
  std::uint32_t fold_victim(const SlcCache& c, std::uint32_t die) const override {
    return c.emptiest_full(die);
  }
  std::uint32_t reclaim_victim(const SlcCache& c, std::uint32_t die) const override {
    return c.dead_block(die);  // as reclaim
  }
};

}  // namespace

std::unique_ptr<SlcPolicy> make_greedy_fold_slc() { return std::make_unique<GreedyFoldSlc>(); }

}  // namespace ssdtwin
