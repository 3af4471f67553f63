#include "ftl/slc/slc_policy.h"

#include "ftl/slc/impl/slc_policies.h"

namespace ssdtwin {

const std::vector<SlcPolicyInfo>& slc_policies() {
  static const std::vector<SlcPolicyInfo> kPolicies = {
      {"reclaim",
       "idle_fold, and a full SLC block holding no valid data is erased at once, so the cache "
       "keeps taking host writes under sustained load",
       &make_reclaim_slc},
      {"greedy_fold",
       "reclaim, and when a die's cache is full under host writes, the SLC block with the "
       "fewest valid pages is folded so host data keeps entering SLC",
       &make_greedy_fold_slc},
      {"idle_fold",
       "host data to SLC while there is room; SLC blocks are freed only by folding (in idle "
       "time, or when full if fold.while_writing or when_full: fold_first)",
       &make_idle_fold_slc},
  };
  return kPolicies;
}

std::vector<std::string> slc_policy_names() { return policy_names(slc_policies()); }

std::unique_ptr<SlcPolicy> make_slc_policy(const std::string& name) {
  return make_policy(slc_policies(), name, "SLC cache policy");
}

}  // namespace ssdtwin
