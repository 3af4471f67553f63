#include "host/arbitration.h"

#include <stdexcept>

#include "host/arbitration/arbiters.h"
#include "sim/config.h"

namespace ssdtwin {

const std::vector<std::string>& sq_priority_names() {
  static const std::vector<std::string> kNames = {"urgent", "high", "medium", "low"};
  return kNames;
}

const char* sq_priority_name(SqPriority p) {
  return sq_priority_names()[static_cast<std::size_t>(p)].c_str();
}

SqPriority parse_sq_priority(const std::string& name) {
  const auto& names = sq_priority_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<SqPriority>(k);
  throw std::invalid_argument("unknown submission queue priority " + name);
}

ArbitrationConfig ArbitrationConfig::from_config(const ConfigNode& nvme) {
  ArbitrationConfig c;
  c.policy = nvme.get_enum("arbitration", arbiter_names(), c.policy);
  c.burst = static_cast<std::uint32_t>(nvme.get_int("arbitration_burst", c.burst, 1, 64));
  if (c.burst & (c.burst - 1))
    nvme.fail("arbitration_burst",
              "expected a power of two from 1 to 64 (NVMe's Arbitration Burst)");
  if (nvme.has("weights")) {
    if (c.policy != "weighted_round_robin")
      nvme.fail("weights", "expected weights only with arbitration: weighted_round_robin");
    const ConfigNode w = nvme.child("weights");
    static const char* const kKeys[kWeightedClasses] = {"high", "medium", "low"};
    for (std::size_t k = 0; k < kWeightedClasses; ++k)
      c.weights[k] = static_cast<std::uint32_t>(w.get_int(kKeys[k], c.weights[k], 1, 256));
  }
  return c;
}

std::int64_t RoundRobinTurn::next(const std::vector<std::uint32_t>& waiting, std::uint32_t burst) {
  const std::size_t n = members_.size();
  if (n == 0) return -1;
  if (left_ > 0 && waiting[members_[at_]] > 0) {
    --left_;
    return members_[at_];
  }
  // The next SQ with commands after the current one (itself last).
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t k = (at_ + i) % n;
    if (waiting[members_[k]] > 0) {
      at_ = k;
      left_ = burst - 1;
      return members_[k];
    }
  }
  return -1;
}

const std::vector<ArbiterInfo>& arbiters() {
  static const std::vector<ArbiterInfo> kArbiters = {
      {"round_robin", "every submission queue in turn, arbitration_burst commands a turn",
       &make_round_robin_arbiter},
      {"weighted_round_robin",
       "urgent queues first, then high/medium/low classes by weights (commands per round)",
       &make_weighted_round_robin_arbiter},
  };
  return kArbiters;
}

std::vector<std::string> arbiter_names() { return policy_names(arbiters()); }

std::unique_ptr<Arbiter> make_arbiter(const ArbitrationConfig& c) {
  return make_policy(arbiters(), c.policy, "arbitration policy", c);
}

}  // namespace ssdtwin
