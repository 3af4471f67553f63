#include "host/arbitration.h"

#include <stdexcept>

#include "host/arbitration/arbiters.h"
#include "sim/config.h"
#include "sim/params.h"

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

namespace {

const ParamSection& nvme_part() {
  static const ParamSection kSection{
      "drive.host.nvme",
      "",
      {
          param::choice("arbitration", "round_robin", &arbiter_names,
                        "which submission queue's head enters the controller next: every queue "
                        "in turn (classes ignored), or urgent queues first and then high, "
                        "medium and low by weight (NVMe 1.4, 4.13)"),
          param::integer("arbitration_burst", "1", 1, 64, "commands",
                         "commands taken from one queue per turn (NVMe's Arbitration Burst; a "
                         "power of two)"),
          param::map("weights", "commands per round of each class (weighted_round_robin only)"),
      }};
  return kSection;
}

const ParamSection& weights_section() {
  static const ParamSection kSection{
      "drive.host.nvme.weights",
      "Weighted round robin: commands per round of the high, medium and low priority classes "
      "(the Arbitration feature's HPW, MPW, LPW, 1-based here).",
      {
          param::integer("high", "1", 1, 256, "commands", "commands per round of high queues"),
          param::integer("medium", "1", 1, 256, "commands", "commands per round of medium queues"),
          param::integer("low", "1", 1, 256, "commands", "commands per round of low queues"),
      }};
  return kSection;
}

}  // namespace

std::vector<const ParamSection*> ArbitrationConfig::params() {
  return {&nvme_part(), &weights_section()};
}

ArbitrationConfig ArbitrationConfig::from_config(const ConfigNode& nvme_node) {
  const Params nvme(nvme_node, nvme_part());
  ArbitrationConfig c;
  c.policy = nvme.choice("arbitration");
  c.burst = static_cast<std::uint32_t>(nvme.integer("arbitration_burst"));
  if (c.burst & (c.burst - 1))
    nvme.fail("arbitration_burst",
              "expected a power of two from 1 to 64 (NVMe's Arbitration Burst)");
  if (nvme.has("weights")) {
    if (c.policy != "weighted_round_robin")
      nvme.fail("weights", "expected weights only with arbitration: weighted_round_robin");
    const Params w = nvme.child("weights", weights_section());
    static const char* const kKeys[kWeightedClasses] = {"high", "medium", "low"};
    for (std::size_t k = 0; k < kWeightedClasses; ++k)
      c.weights[k] = static_cast<std::uint32_t>(w.integer(kKeys[k]));
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
