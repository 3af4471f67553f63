#include "ftl/gc_pacing.h"

#include <algorithm>

namespace ssdtwin {

GcPacing::GcPacing(const FtlConfig& cfg, const BlockManager& blocks, std::uint32_t unit_slots)
    : cfg_(cfg), blocks_(blocks), unit_slots_(unit_slots), credit_(blocks.dies(), 0.0) {}

double GcPacing::start(std::uint32_t die, const BlockInfo& victim) {
  const double cap = static_cast<double>(blocks_.capacity_slots(victim));
  const double valid = static_cast<double>(victim.valid);
  if (valid == 0) credit_[die] += cap;
  return valid > 0 ? (cap - valid) / valid : cap;
}

void GcPacing::earn(std::uint32_t die, double moved, double rate) {
  const double share = host_share();
  credit_[die] = std::min(credit_[die] + moved * rate * share,
                          cfg_.gc_credit_units * unit_slots_ * std::max(1.0, share));
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

}  // namespace ssdtwin
