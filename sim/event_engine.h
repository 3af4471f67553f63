// The discrete-event engine: a time-ordered queue of typed events.
//
// Components implement EventTarget and schedule events on themselves with a
// small integer `kind` and a 64-bit argument (an index into their own
// preallocated tables), so scheduling never allocates once the engine has
// grown to its working size. Events at the same time fire in the order they
// were scheduled (a sequence number breaks ties), which makes runs
// bit-for-bit repeatable.
//
// Most pending events sit in a binary heap. A component whose events of one
// kind nearly always come in time order (the host link's transfers, which
// the link serialises) can schedule them into a lane: a FIFO that takes an
// event in O(1) when it is no earlier than the lane's last, and hands it to
// the heap otherwise. step() runs the earliest of the heap's top and the
// lanes' fronts, so lanes change no event's order, only what it costs: on
// the host-bound rows most events are the host path's, which would
// otherwise each pay a sift through the heap (figures in docs/RESULTS.md).
#pragma once

#include <cstddef>
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
  EventEngine();

  Tick now() const { return now_; }

  // A lane's number; kNoLane schedules into the heap.
  using Lane = std::uint32_t;
  static constexpr Lane kNoLane = UINT32_MAX;
  static constexpr std::size_t kMaxLanes = 8;
  // A new lane (kNoLane once kMaxLanes are taken: its events use the heap).
  Lane add_lane();

  // Schedules target->on_event(kind, arg) at absolute time `at` (>= now),
  // into `lane` if it is no earlier than the lane's last event.
  void schedule_at(Tick at, EventTarget* target, std::uint32_t kind, std::uint64_t arg = 0,
                   Lane lane = kNoLane);
  void schedule_in(Tick delay, EventTarget* target, std::uint32_t kind, std::uint64_t arg = 0,
                   Lane lane = kNoLane) {
    schedule_at(now_ + delay, target, kind, arg, lane);
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
    while (!empty() && next_time() <= t) step();
    if (t > now_) now_ = t;
  }

  bool empty() const { return pending() == 0; }
  std::size_t pending() const { return size_ - (hole_ ? 1 : 0) + lane_pending_; }
  std::uint64_t events_executed() const { return executed_; }
  // A number per timer arm, increasing (sim/timer.h: the order timers were
  // armed in, which a snapshot keeps).
  std::uint64_t next_arm_order() { return ++arm_orders_; }
  // Time of the earliest pending event (only valid when !empty()).
  Tick next_time() const;

 private:
  // The heap holds 16-byte keys, not 40-byte events, so that a move copies
  // two words and a comparison is one 128-bit compare with no branch: the
  // time in the high half, then a 32-bit sequence number, then the event's
  // 32-bit slot in `pool_`. Compared as one unsigned number a key orders by
  // (time, seq); seq is unique among pending events, so the slot never
  // decides.
  __extension__ using Key = unsigned __int128;
  struct Payload {
    EventTarget* target;
    std::uint64_t arg;
    std::uint32_t kind;
  };
  // Binary (a 4-ary heap was no faster: RESULTS, "Benchmarks against
  // MQSim"). sift_down_from_root picks between exactly two children, so the
  // arity is fixed here, not a knob.
  static constexpr std::size_t kArity = 2;
  static_assert(kArity == 2,
                "sift_down_from_root compares two children: rewrite it before changing kArity");
  // Every cell past the last key holds kEmpty, larger than any real key
  // (whose slot is below 2^32 - 1), so child selection needs no bound check.
  static constexpr Key kEmpty = ~Key{0};
  static constexpr std::size_t kPad = kArity - 1;
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;

  static Tick time_of(Key k) { return static_cast<Tick>(k >> 64); }
  static std::uint32_t slot_of(Key k) { return static_cast<std::uint32_t>(k); }

  // A lane's events in key order, in a ring of a power of two.
  struct LaneQueue {
    std::vector<Key> ring;
    std::size_t head = 0, count = 0;
    Key back = 0;  // the last key appended
  };

  std::uint32_t new_slot();
  // Doubles a full lane's ring (rare: rings grow to the working size once).
  [[gnu::noinline, gnu::cold]] void grow_lane(LaneQueue& q);
  void pop_lane(Lane lane);
  void grow_heap();
  void sift_up(std::size_t i, Key key);
  void sift_down_from_root(Key key);
  void close_hole();
  void renumber();

  // heap_[0..size_) is a binary min-heap, placed in `storage_` so that no
  // pair of siblings (indices 2i+1, 2i+2) straddles two cache lines.
  std::vector<Key> storage_;
  Key* heap_ = nullptr;
  std::size_t capacity_ = 0;  // keys that fit before the kEmpty padding
  std::size_t size_ = 0;
  // While a handler runs, the root it was popped from is still counted in
  // size_ but is empty: the handler's first schedule_at drops its key there
  // and sifts it down once, instead of filling the root from the back,
  // sifting that down and then sifting the new key up. Most handlers
  // schedule exactly one follow-up, so this saves most of a sift per event; step() fills a root
  // still empty when its handler returns, so outside a handler there is never a hole.
  bool hole_ = false;

  // An event's target, kind and arg, by slot. Free slots form a list
  // through their `arg`, most recently freed first: a handler's follow-up
  // takes the slot (and cache line) its own event just left.
  std::vector<Payload> pool_;
  std::uint32_t free_slot_ = kNoSlot;
  // Each lane's earliest key (kEmpty: the lane is empty) side by side, for
  // step()'s scan; the lanes themselves; the events they hold.
  Key lane_front_[kMaxLanes];
  std::vector<LaneQueue> lanes_;
  std::size_t lane_pending_ = 0;
  // 32 bits, leaving the slot 32 so the pool never limits pending events.
  // It wraps every 4.3e9 events (a long preconditioning run gets there);
  // renumber() then renumbers the pending events 0..n-1 in their order, one
  // sort of some 100 keys, instead of failing the run.
  std::uint32_t seq_ = 0;
  Tick now_ = 0;
  std::uint64_t executed_ = 0;
  std::uint64_t arm_orders_ = 0;

  friend struct EventEngineTestAccess;
};

}  // namespace ssdtwin
