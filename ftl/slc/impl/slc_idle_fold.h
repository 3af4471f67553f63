// The idle_fold SLC cache policy (ftl/slc/impl/slc_idle_fold.cpp), a base the
// other built-in policies extend: they share where host data goes.
#pragma once

#include "ftl/slc/slc_policy.h"

namespace ssdtwin {

class IdleFoldSlc : public SlcPolicy {
 public:
  HostTarget host_target(const SlcCache& c, std::uint32_t die) const override;
  bool needs_fold(const SlcCache& c, std::uint32_t die) const override;
  std::uint32_t fold_victim(const SlcCache& c, std::uint32_t die) const override;
  std::uint32_t reclaim_victim(const SlcCache& c, std::uint32_t die) const override;
};

}  // namespace ssdtwin
