// Factories of the built-in SLC cache policies (one file each).
#pragma once

#include <memory>

#include "ftl/slc/slc_policy.h"

namespace ssdtwin {

std::unique_ptr<SlcPolicy> make_idle_fold_slc();
std::unique_ptr<SlcPolicy> make_reclaim_slc();
std::unique_ptr<SlcPolicy> make_greedy_fold_slc();

}  // namespace ssdtwin
