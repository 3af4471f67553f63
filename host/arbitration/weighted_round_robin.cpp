// NVMe weighted round robin with urgent priority class (4.13.2): urgent
// SQs are served before any other, round robin among them; the high,
// medium and low classes then share what is left, each taking up to its
// weight in commands per round (round robin among its own SQs). A round
// ends when no class with commands has weight left; a class with nothing
// waiting gives its turn up rather than holding it.
#include <array>

#include "host/arbitration/arbiters.h"

namespace ssdtwin {

namespace {

class WeightedRoundRobin final : public Arbiter {
 public:
  explicit WeightedRoundRobin(const ArbitrationConfig& c) : burst_(c.burst), weights_(c.weights) {}
  const char* name() const override { return "weighted_round_robin"; }

  void set_queues(std::uint32_t n) override {
    priority_.assign(n, SqPriority::kMedium);
    rebuild();
  }
  void set_priority(std::uint32_t sq, SqPriority p) override {
    priority_.at(sq) = p;
    rebuild();
  }

  std::uint32_t next(const std::vector<std::uint32_t>& waiting) override {
    const std::int64_t urgent = turns_[0].next(waiting, burst_);
    if (urgent >= 0) return static_cast<std::uint32_t>(urgent);
    // At most two passes: this round's credit, then a fresh round's.
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < kWeightedClasses; ++i) {
        const std::size_t k = (class_ + i) % kWeightedClasses;
        if (credit_[k] == 0) continue;
        const std::int64_t sq = turns_[k + 1].next(waiting, burst_);
        if (sq < 0) continue;
        class_ = k;
        --credit_[k];
        return static_cast<std::uint32_t>(sq);
      }
      credit_ = weights_;
      class_ = 0;
    }
    return 0;  // unreachable: some SQ has a command
  }

 private:
  void rebuild() {
    std::array<std::vector<std::uint32_t>, 1 + kWeightedClasses> members;
    for (std::uint32_t sq = 0; sq < priority_.size(); ++sq)
      members[static_cast<std::size_t>(priority_[sq])].push_back(sq);
    for (std::size_t k = 0; k < members.size(); ++k) turns_[k].assign(std::move(members[k]));
    credit_ = weights_;
    class_ = 0;
  }

  std::uint32_t burst_;
  std::array<std::uint32_t, kWeightedClasses> weights_;
  std::vector<SqPriority> priority_;
  std::array<RoundRobinTurn, 1 + kWeightedClasses> turns_;  // urgent, high, medium, low
  std::array<std::uint32_t, kWeightedClasses> credit_{};    // commands left this round
  std::size_t class_ = 0;                                   // the class being served
};

}  // namespace

std::unique_ptr<Arbiter> make_weighted_round_robin_arbiter(const ArbitrationConfig& c) {
  return std::make_unique<WeightedRoundRobin>(c);
}

}  // namespace ssdtwin
