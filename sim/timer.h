// A component's one-shot timer: armed for a time, re-armed or cancelled.
//
// Cancelling leaves the engine's event where it is and drops it when it
// fires: the event carries the timer's generation, and an arm or a cancel
// moves the generation on. The queue is never searched, so cancelling costs
// nothing on the hot path. Each arm also takes the engine's next arm order,
// so a snapshot restores the pending timers in the order they were armed
// (the engine fires events of equal time in the order they were scheduled).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "sim/event_engine.h"
#include "sim/time.h"

namespace ssdtwin {

class Timer {
 public:
  // Fires target->on_event(kind, generation): hand the argument to fires().
  Timer(EventEngine& engine, EventTarget* target, std::uint32_t kind)
      : engine_(&engine), target_(target), kind_(kind) {}

  // Arms the timer for `at` (>= now), replacing a pending arm.
  void arm(Tick at) {
    ++generation_;
    armed_ = true;
    at_ = at;
    order_ = engine_->next_arm_order();
    engine_->schedule_at(at, target_, kind_, generation_);
  }
  // The pending arm, if any, will not fire.
  void cancel() {
    ++generation_;
    armed_ = false;
  }
  bool armed() const { return armed_; }
  Tick at() const { return at_; }  // the pending arm's time (when armed)

  // In the target's on_event(kind, arg): true when the event is the pending
  // arm (the timer is then disarmed), false for a cancelled or replaced one.
  bool fires(std::uint64_t arg) {
    if (!armed_ || arg != generation_) return false;
    armed_ = false;
    return true;
  }

  // Drive-state snapshots: whether it is armed, for when, and its arm order.
  template <typename Archive>
  void archive(Archive& ar) {
    ar.pods(armed_, at_, order_);
  }
  // After a snapshot load: arms again each of `timers` that was armed, in
  // the order they were armed before.
  static void rearm(std::initializer_list<Timer*> timers) {
    std::vector<Timer*> armed;
    for (Timer* t : timers)
      if (t->armed_) armed.push_back(t);
    std::sort(armed.begin(), armed.end(),
              [](const Timer* a, const Timer* b) { return a->order_ < b->order_; });
    for (Timer* t : armed) t->arm(t->at_);
  }

 private:
  EventEngine* engine_;
  EventTarget* target_;
  std::uint32_t kind_;
  bool armed_ = false;
  Tick at_ = 0;
  std::uint64_t order_ = 0;       // the engine's arm order of the pending arm
  std::uint64_t generation_ = 0;  // the pending arm's event carries it
};

}  // namespace ssdtwin
