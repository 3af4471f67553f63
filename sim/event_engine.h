// The discrete-event engine: a time-ordered queue of typed events.
//
// Components implement EventTarget and schedule events on themselves with a
// small integer `kind` and a 64-bit argument (an index into their own
// preallocated tables), so scheduling never allocates once the heap has
// grown to its working size. Events at the same time fire in the order they
// were scheduled (a sequence number breaks ties), which makes runs
// bit-for-bit repeatable.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace ssdtwin {

class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void on_event(std::uint32_t kind, std::uint64_t arg) = 0;
};

class EventEngine {
 public:
  EventEngine() { heap_.reserve(1 << 12); }

  Tick now() const { return now_; }

  // Schedules target->on_event(kind, arg) at absolute time `at` (>= now).
  void schedule_at(Tick at, EventTarget* target, std::uint32_t kind, std::uint64_t arg = 0);
  void schedule_in(Tick delay, EventTarget* target, std::uint32_t kind, std::uint64_t arg = 0) {
    schedule_at(now_ + delay, target, kind, arg);
  }

  // Runs the earliest event; false when none is left.
  bool step();
  // Runs events until `stop()` returns true or none is left.
  template <typename Pred>
  void run_until(Pred stop) {
    while (!stop() && step()) {
    }
  }

  // Runs every event up to and including time `t`, then sets the clock to
  // `t` (an idle period: background work runs, the host sends nothing).
  void advance_to(Tick t) {
    while (!heap_.empty() && heap_.front().time <= t) step();
    if (t > now_) now_ = t;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t pending() const { return heap_.size(); }
  std::uint64_t events_executed() const { return executed_; }
  // Time of the earliest pending event (only valid when !empty()).
  Tick next_time() const { return heap_.front().time; }

 private:
  struct Event {
    Tick time;
    std::uint64_t seq;
    EventTarget* target;
    std::uint64_t arg;
    std::uint32_t kind;
  };
  static bool later(const Event& a, const Event& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;  // binary min-heap on (time, seq)
  Tick now_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t executed_ = 0;
};

}  // namespace ssdtwin
