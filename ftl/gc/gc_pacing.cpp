#include "ftl/gc/gc_pacing.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/state_archive.h"

namespace ssdtwin {

GcPacing::GcPacing(const FtlConfig& cfg, const BlockManager& blocks, std::uint32_t unit_slots)
    : cfg_(cfg), blocks_(blocks), unit_slots_(unit_slots), credit_(blocks.dies(), 0.0) {}

double GcPacing::start(std::uint32_t die, const BlockInfo& victim) {
  // With RAIN every data slot written, the host's or a relocation's, takes
  // stripe / (stripe - 1) slots of flash (its share of a parity unit), so
  // the data a freed block can take again is its capacity less that share:
  // crediting the whole capacity would let the host outrun GC by the
  // parity share and drain the pool to the reserve.
  const double parity =
      cfg_.rain_stripe ? static_cast<double>(cfg_.rain_stripe) / (cfg_.rain_stripe - 1) : 1.0;
  const double cap = static_cast<double>(blocks_.capacity_slots(victim)) / parity;
  const double valid = static_cast<double>(victim.valid);
  if (valid == 0) credit_[die] += cap;
  return valid > 0 ? (cap - valid) / valid : cap;
}

void GcPacing::earn(std::uint32_t die, double moved, double rate) {
  const double share = host_share();
  credit_[die] = std::min(credit_[die] + moved * rate * share,
                          cfg_.gc_credit_units * unit_slots_ * std::max(1.0, share));
}

std::uint64_t GcPacing::moves_to_cover(std::uint32_t die, std::uint32_t slots, double rate) const {
  const double share = host_share();
  const double gain = rate * share;
  if (credit_[die] >= slots) return 0;
  if (gain <= 0 || cfg_.gc_credit_units * unit_slots_ * std::max(1.0, share) < slots)
    return std::numeric_limits<std::uint64_t>::max();
  return std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil((slots - credit_[die]) / gain)));
}

double GcPacing::host_share() const {
  double share = 1.0;
  if (cfg_.gc_urgency.empty()) return share;
  const double free = static_cast<double>(blocks_.free_blocks_total()) / blocks_.dies();
  for (const auto& level : cfg_.gc_urgency) {
    if (free >= level.free_below) break;
    share = level.host_share;
  }
  return share;
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void GcPacing::archive(StateArchive& ar) { ar.vec(credit_, true); }

}  // namespace ssdtwin
