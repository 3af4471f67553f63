// Factories of the built-in GC victim policies (one file each).
#pragma once

#include <memory>

#include "ftl/gc/gc_policy.h"

namespace ssdtwin {

std::unique_ptr<GcPolicy> make_greedy_gc();
std::unique_ptr<GcPolicy> make_fifo_gc();
std::unique_ptr<GcPolicy> make_cost_benefit_gc();
std::unique_ptr<GcPolicy> make_random_gc();

}  // namespace ssdtwin
