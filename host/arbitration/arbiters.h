// Factories of the built-in arbitration policies (one file each).
#pragma once

#include <memory>

#include "host/arbitration.h"

namespace ssdtwin {

std::unique_ptr<Arbiter> make_round_robin_arbiter(const ArbitrationConfig& c);
std::unique_ptr<Arbiter> make_weighted_round_robin_arbiter(const ArbitrationConfig& c);

}  // namespace ssdtwin
