#include "ftl/gc_policy.h"

#include <stdexcept>

#include "ftl/impl/gc_policies.h"

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

std::vector<std::string> gc_policy_names() {
  std::vector<std::string> names;
  for (const auto& p : gc_policies()) names.emplace_back(p.name);
  return names;
}

std::unique_ptr<GcPolicy> make_gc_policy(const std::string& name) {
  for (const auto& p : gc_policies())
    if (name == p.name) return p.make();
  throw std::invalid_argument("unknown GC policy " + name);
}

}  // namespace ssdtwin
