// Cost-benefit victim choice (Rosenblum & Ousterhout, "The Design and
// Implementation of a Log-Structured File System", 1992): collect the block
// that maximises
//
//     benefit / cost = (1 - u) * age / (1 + u)
//
// where u is the block's valid fraction (valid / capacity_slots). Reclaiming
// it frees (1 - u) of a block, and costs reading the whole block (1) plus
// writing back its valid data (u). The age factor favours cold blocks: data
// that has stayed valid a long time is likely to stay valid, so collecting an
// old block at a somewhat higher u beats collecting a young block whose
// remaining pages are about to be invalidated anyway.
//
// Age comes from existing, deterministic state: BlockInfo::closed_seq, the
// order in which blocks became full. With M the largest closed_seq among the
// candidates, age = M + 1 - closed_seq (the newest candidate has age 1).
//
// Scores are compared exactly as fractions in integer arithmetic, so ties are
// real ties and go to the lowest block index. A block with u = 1 has no
// benefit; when no candidate has u < 1 the policy picks nothing.
#include "ftl/blocks/block_manager.h"
#include "ftl/gc/impl/gc_policies.h"

namespace ssdtwin {

namespace {

using u128 = unsigned __int128;

// (1 - u) * age / (1 + u) with u = valid / cap, as the fraction
// (cap - valid) * age / (cap + valid).
struct Score {
  u128 num = 0;
  u128 den = 1;
};

// a > b, by cross-multiplication: a.num / a.den > b.num / b.den. num is at
// most cap * 2^32 (age fits 32 bits) and den at most 2 * cap, so each product
// is below 2^33 * cap^2: exact in 128 bits for any block under 2^47 slots.
bool greater(const Score& a, const Score& b) { return a.num * b.den > b.num * a.den; }

struct CostBenefit {
  template <class Candidates>
  std::uint32_t operator()(const Candidates& cands, Rng&) const {
    bool any = false;
    std::uint32_t newest = 0;
    VictimCandidate c;
    for (std::uint32_t b = 0; b < cands.size(); ++b) {
      if (!cands.get(b, c)) continue;
      if (!any || c.closed_seq > newest) newest = c.closed_seq;
      any = true;
    }
    if (!any) return kNoBlock;

    std::uint32_t best = kNoBlock;
    Score best_score;
    for (std::uint32_t b = 0; b < cands.size(); ++b) {
      if (!cands.get(b, c)) continue;
      if (c.valid >= c.capacity) continue;  // u = 1: nothing to gain
      const std::uint64_t age = std::uint64_t{newest} + 1 - c.closed_seq;
      Score s;
      s.num = u128{c.capacity - c.valid} * age;
      s.den = u128{c.capacity} + c.valid;
      if (best == kNoBlock || greater(s, best_score)) {
        best = b;
        best_score = s;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<GcPolicy> make_cost_benefit_gc() {
  return std::make_unique<GcPolicyOf<CostBenefit>>();
}

}  // namespace ssdtwin
