// NVMe round robin arbitration (4.13.1): every SQ is a candidate in turn,
// whatever its priority class, and gives up to Arbitration Burst commands.
#include <numeric>

#include "host/arbitration/arbiters.h"

namespace ssdtwin {

namespace {

class RoundRobin final : public Arbiter {
 public:
  explicit RoundRobin(const ArbitrationConfig& c) : burst_(c.burst) {}
  const char* name() const override { return "round_robin"; }

  void set_queues(std::uint32_t n) override {
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    turn_.assign(std::move(all));
  }
  void set_priority(std::uint32_t, SqPriority) override {}

  std::uint32_t next(const std::vector<std::uint32_t>& waiting) override {
    return static_cast<std::uint32_t>(turn_.next(waiting, burst_));
  }

 private:
  std::uint32_t burst_;
  RoundRobinTurn turn_;
};

}  // namespace

std::unique_ptr<Arbiter> make_round_robin_arbiter(const ArbitrationConfig& c) {
  return std::make_unique<RoundRobin>(c);
}

}  // namespace ssdtwin
