// The controller's firmware cores, shared by everything that runs firmware:
// host commands, the handling of NAND operations and GC's moves. Firmware
// runs each task to completion on one core; a task starts on the core that
// frees up first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/activity.h"
#include "sim/time.h"

namespace ssdtwin {

class FirmwareCores {
 public:
  explicit FirmwareCores(std::uint32_t cores) : free_at_(cores, 0) {}
  // Told of the busy time (power); null: none.
  void set_activity(ActivityObserver* a) { activity_ = a; }
  // Books `work` on the core free first, no earlier than `now`; returns when
  // the work ends.
  Tick run(Tick now, Tick work) {
    auto core = std::min_element(free_at_.begin(), free_at_.end());
    *core = std::max(now, *core) + work;
    if (activity_) activity_->on_controller_busy(work);
    return *core;
  }
  // Drive-state snapshots.
  std::vector<Tick>& free_at() { return free_at_; }

 private:
  std::vector<Tick> free_at_;
  ActivityObserver* activity_ = nullptr;
};

}  // namespace ssdtwin
