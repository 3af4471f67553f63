// idle_fold plus reclaim: a full SLC block none of whose data is valid any
// more (the host overwrote or trimmed all of it) is erased at once, with
// nothing to fold, and goes back to its pool. Firmware does this because an
// SLC block costs only an erase to recover; without it a cache whose data
// was overwritten while the drive had no idle time stays unusable until the
// next idle period (a second sequential pass leaves the static region full
// of invalid pages). Where host data goes and when to fold are idle_fold's.
#include "ftl/slc/impl/slc_idle_fold.h"
#include "ftl/slc/impl/slc_policies.h"
#include "ftl/slc/slc_cache.h"

namespace ssdtwin {

namespace {

class ReclaimSlc final : public IdleFoldSlc {
 public:
  std::uint32_t reclaim_victim(const SlcCache& c, std::uint32_t die) const override {
    return c.dead_block(die);
  }
};

}  // namespace

std::unique_ptr<SlcPolicy> make_reclaim_slc() { return std::make_unique<ReclaimSlc>(); }

}  // namespace ssdtwin
