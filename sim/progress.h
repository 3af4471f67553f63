// A progress line on stderr for long runs: simulated time, share done and
// wall time, at most every few seconds, starting only after the run has
// taken a few seconds (short runs and tests stay quiet).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "sim/time.h"

namespace ssdtwin {

class Progress {
 public:
  explicit Progress(bool enabled, double every_s = 5.0) : enabled_(enabled), every_s_(every_s) {}
  // Cheap enough to call every few thousand events.
  void update(const std::string& phase, Tick sim_now, double fraction);
  void finish();
  double wall_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  double every_s_;
  Clock::time_point start_ = Clock::now();
  double last_print_ = 0;
  bool printed_ = false;
};

}  // namespace ssdtwin
