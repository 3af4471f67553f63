#include "ftl/gc/gc_policy.h"

#include "ftl/gc/impl/gc_policies.h"

namespace ssdtwin {

const std::vector<GcPolicyInfo>& gc_policies() {
  static const std::vector<GcPolicyInfo> kPolicies = {
      {"greedy", "the full block with the fewest valid pages", &make_greedy_gc},
      {"fifo", "the block filled longest ago (a baseline)", &make_fifo_gc},
      {"cost_benefit", "max (1 - u) * age / (1 + u): old and empty blocks (LFS)",
       &make_cost_benefit_gc},
      {"random", "a random full block with an invalid page (a baseline)", &make_random_gc},
  };
  return kPolicies;
}

std::vector<std::string> gc_policy_names() { return policy_names(gc_policies()); }

std::unique_ptr<GcPolicy> make_gc_policy(const std::string& name) {
  return make_policy(gc_policies(), name, "GC policy");
}

}  // namespace ssdtwin
