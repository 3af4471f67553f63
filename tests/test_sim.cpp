// Unit tests for the simulation kernel: event engine, random numbers,
// latency histogram, transfer time and throughput series.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/csv.h"
#include "sim/event_engine.h"
#include "sim/histogram.h"
#include "sim/metric.h"
#include "sim/output_file.h"
#include "sim/rng.h"
#include "sim/steady_state.h"
#include "sim/time.h"
#include "sim/timer.h"
#include "sim/timeseries.h"

using ssdtwin::BoundarySampler;
using ssdtwin::ByteStepSeries;
using ssdtwin::csv_number;
using ssdtwin::EventEngine;
using ssdtwin::EventTarget;
using ssdtwin::IntervalLatencySeries;
using ssdtwin::IntervalSeries;
using ssdtwin::kMaxIntervals;
using ssdtwin::LatencyHistogram;
using ssdtwin::Rng;
using ssdtwin::round_decimals;
using ssdtwin::Tick;
using ssdtwin::to_seconds;
using ssdtwin::transfer_time;
using ssdtwin::TransferClock;
using ssdtwin::operator""_ns;
using ssdtwin::operator""_us;
using ssdtwin::operator""_ms;
using ssdtwin::operator""_s;

namespace {

// Records every event it receives with the engine time at which it ran.
class Recorder : public EventTarget {
 public:
  struct Fired {
    Tick at;
    std::uint32_t kind;
    std::uint64_t arg;
  };

  explicit Recorder(EventEngine& engine) : engine_(engine) {}
  void on_event(std::uint32_t kind, std::uint64_t arg) override {
    fired.push_back({engine_.now(), kind, arg});
  }

  std::vector<std::uint64_t> args() const {
    std::vector<std::uint64_t> out;
    for (const Fired& f : fired) out.push_back(f.arg);
    return out;
  }

  std::vector<Fired> fired;

 private:
  EventEngine& engine_;
};

// Schedules follow-up events from inside its handler, as components do.
class Chainer : public EventTarget {
 public:
  Chainer(EventEngine& engine, Rng& rng, int budget) : engine_(engine), rng_(rng), left_(budget) {}
  void on_event(std::uint32_t, std::uint64_t) override {
    times.push_back(engine_.now());
    if (left_-- > 0) engine_.schedule_in(rng_.below(1000), this, 0);
  }
  std::vector<Tick> times;

 private:
  EventEngine& engine_;
  Rng& rng_;
  int left_;
};

// Schedules from outside the engine and from inside its handler by a seeded
// random plan, and checks every event against a reference queue: an ordered
// set of (time, id), ids growing in scheduling order. Follow-ups push the
// number pending towards `target`, so a run can sweep the heap's size.
class ModelChecker : public EventTarget {
 public:
  ModelChecker(EventEngine& engine, std::uint64_t seed) : engine_(engine), rng_(seed) {}

  // Lanes to schedule into, besides the heap: each event picks one of
  // them or the heap in turn, and a lane's event is three times in four no
  // earlier than the lane's last (appended) and otherwise random (most
  // such go to the heap).
  void use_lanes(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) lanes_.push_back({engine_.add_lane(), 0});
  }

  void schedule() {
    Tick at = engine_.now() + delay();
    EventEngine::Lane lane = EventEngine::kNoLane;
    if (!lanes_.empty() && next_id_ % (lanes_.size() + 1) != 0) {
      auto& [id, last] = lanes_[next_id_ % (lanes_.size() + 1) - 1];
      lane = id;
      if (rng_.below(4) != 0) at = std::max(at, last + rng_.below(3));
      last = std::max(last, at);
    }
    engine_.schedule_at(at, this, static_cast<std::uint32_t>(next_id_ % 7), next_id_, lane);
    ref_.emplace(at, next_id_++);
    max_pending_ = std::max(max_pending_, ref_.size());
  }

  void on_event(std::uint32_t kind, std::uint64_t arg) override {
    REQUIRE_FALSE(ref_.empty());
    const auto expected = *ref_.begin();
    ref_.erase(ref_.begin());
    REQUIRE(arg == expected.second);
    REQUIRE(kind == arg % 7);
    REQUIRE(engine_.now() == expected.first);
    ++fired_;
    // The engine's view from inside a handler, before and after follow-ups.
    check_view();
    const std::uint64_t r = rng_.below(10);
    const int follow_ups = ref_.size() < target ? (r < 5   ? 1
                                                   : r < 8 ? 2
                                                           : 4)
                                                : (r < 4   ? 0
                                                   : r < 9 ? 1
                                                           : 2);
    for (int i = 0; i < follow_ups; ++i) {
      schedule();
      check_view();
    }
  }

  void check_view() const {
    REQUIRE(engine_.pending() == ref_.size());
    REQUIRE(engine_.empty() == ref_.empty());
    if (!ref_.empty()) REQUIRE(engine_.next_time() == ref_.begin()->first);
  }

  std::size_t pending() const { return ref_.size(); }
  Tick next_time() const { return ref_.begin()->first; }
  std::size_t max_pending() const { return max_pending_; }
  std::uint64_t fired() const { return fired_; }
  std::size_t target = 0;

 private:
  // Ties are common: a quarter of the delays are zero and another quarter
  // fall in four nanoseconds.
  Tick delay() {
    switch (rng_.below(4)) {
      case 0:
        return 0;
      case 1:
        return rng_.below(4);
      case 2:
        return rng_.below(1000);
      default:
        return rng_.below(1000000);
    }
  }

  EventEngine& engine_;
  Rng rng_;
  std::set<std::pair<Tick, std::uint64_t>> ref_;
  std::vector<std::pair<EventEngine::Lane, Tick>> lanes_;  // lane, its latest time
  std::uint64_t next_id_ = 0;
  std::uint64_t fired_ = 0;
  std::size_t max_pending_ = 0;
};

// Runs `checker` through heaps of many sizes (past the engine's first
// growth at 4096), stepping, scheduling from outside and advancing.
void sweep_sizes(EventEngine& engine, ModelChecker& checker, Rng& plan) {
  for (const std::size_t size : {1u, 2u, 3u, 5u, 17u, 64u, 80u, 300u, 5000u, 40u, 1u, 0u}) {
    checker.target = size;
    const std::size_t steps = std::max<std::size_t>(3 * size, 1500);
    for (std::size_t i = 0; i < steps; ++i) {
      const std::uint64_t r = plan.below(20);
      if (checker.pending() == 0 || (r < 2 && checker.pending() < size)) {
        checker.schedule();
      } else if (r == 2) {
        const Tick t = engine.now() + plan.below(3000);
        engine.advance_to(t);
        REQUIRE(engine.now() == t);
        REQUIRE((checker.pending() == 0 || checker.next_time() > t));
      } else {
        REQUIRE(engine.step());
      }
      checker.check_view();
    }
  }
  while (engine.step()) {
  }
  checker.check_view();
}

Tick bucket_width(std::size_t b) {
  return LatencyHistogram::bucket_high(b) - LatencyHistogram::bucket_low(b);
}

}  // namespace

namespace ssdtwin {
// The engine's private state that some tests need: the payload pool's size,
// and the sequence counter, to make it wrap without running 4e9 events.
struct EventEngineTestAccess {
  static std::size_t payload_slots(const EventEngine& e) { return e.pool_.size(); }
  static void set_next_seq(EventEngine& e, std::uint32_t seq) { e.seq_ = seq; }
};
}  // namespace ssdtwin
using ssdtwin::EventEngineTestAccess;

// ---- EventEngine ----

TEST_CASE("EventEngine runs events in time order whatever order they were scheduled in") {
  EventEngine engine;
  Recorder r(engine);
  engine.schedule_at(30_us, &r, 3, 30);
  engine.schedule_at(10_us, &r, 1, 10);
  engine.schedule_at(20_us, &r, 2, 20);
  REQUIRE(engine.pending() == 3);
  REQUIRE(engine.next_time() == 10_us);

  while (engine.step()) {
  }

  REQUIRE(r.fired.size() == 3);
  CHECK(r.fired[0].at == 10_us);
  CHECK(r.fired[0].kind == 1u);
  CHECK(r.fired[1].at == 20_us);
  CHECK(r.fired[1].kind == 2u);
  CHECK(r.fired[2].at == 30_us);
  CHECK(r.fired[2].kind == 3u);
  CHECK(engine.now() == 30_us);
  CHECK(engine.empty());
  CHECK(engine.events_executed() == 3u);
  CHECK_FALSE(engine.step());
}

TEST_CASE("EventEngine runs same-time events in the order they were scheduled") {
  EventEngine engine;
  Recorder r(engine);
  // Interleave two instants so that the heap has to reorder, and give each
  // instant enough events to exercise several heap levels.
  for (std::uint64_t i = 0; i < 50; ++i) {
    engine.schedule_at(7_us, &r, 0, 100 + i);
    engine.schedule_at(5_us, &r, 0, i);
  }
  while (engine.step()) {
  }

  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 50; ++i) expected.push_back(i);
  for (std::uint64_t i = 0; i < 50; ++i) expected.push_back(100 + i);
  CHECK(r.args() == expected);
}

namespace {
// Records which of its timers fired, and when.
struct TimerOwner : ssdtwin::EventTarget {
  explicit TimerOwner(ssdtwin::EventEngine& e) : engine(e), a(e, this, 0), b(e, this, 1) {}
  void on_event(std::uint32_t kind, std::uint64_t arg) override {
    ssdtwin::Timer& t = kind == 0 ? a : b;
    if (t.fires(arg)) fired.emplace_back(kind, engine.now());
  }
  ssdtwin::EventEngine& engine;
  ssdtwin::Timer a, b;
  std::vector<std::pair<std::uint32_t, ssdtwin::Tick>> fired;
};
// A snapshot archive reduced to words: saves them, then loads them back.
struct SaveWords {
  std::vector<std::uint64_t> v;
  template <typename... T>
  void pods(T&... x) {
    (v.push_back(static_cast<std::uint64_t>(x)), ...);
  }
};
struct LoadWords {
  const std::vector<std::uint64_t>& v;
  std::size_t i = 0;
  template <typename... T>
  void pods(T&... x) {
    ((x = static_cast<T>(v[i++])), ...);
  }
};
}  // namespace

TEST_CASE("a timer fires once per arm, and a cancelled or replaced arm does not fire") {
  ssdtwin::EventEngine engine;
  TimerOwner o(engine);
  o.a.arm(100);
  o.a.arm(200);  // replaces the arm at 100
  o.b.arm(150);
  o.b.cancel();
  CHECK(o.a.armed());
  CHECK_FALSE(o.b.armed());
  while (engine.step()) {
  }
  REQUIRE(o.fired.size() == 1);
  CHECK(o.fired[0] == std::pair<std::uint32_t, ssdtwin::Tick>{0, 200});
  CHECK_FALSE(o.a.armed());
}

TEST_CASE("timers re-armed after a snapshot fire in the order they were first armed") {
  // Both due at the same time: the engine fires equal times in the order
  // they were scheduled, so the restore must schedule in arm order.
  for (bool a_first : {true, false}) {
    ssdtwin::EventEngine engine;
    TimerOwner o(engine);
    if (a_first)
      o.a.arm(500), o.b.arm(500);
    else
      o.b.arm(500), o.a.arm(500);
    ssdtwin::EventEngine restored_engine;
    TimerOwner r(restored_engine);
    // Copy each timer's archived state (armed, time, order) across.
    SaveWords saved_a, saved_b;
    o.a.archive(saved_a);
    o.b.archive(saved_b);
    LoadWords load_a{saved_a.v}, load_b{saved_b.v};
    r.a.archive(load_a);
    r.b.archive(load_b);
    ssdtwin::Timer::rearm({&r.a, &r.b});  // listed a, b whatever the arm order
    while (restored_engine.step()) {
    }
    REQUIRE(r.fired.size() == 2);
    CHECK(r.fired[0].first == (a_first ? 0u : 1u));
    CHECK(r.fired[1].second == 500);
  }
}

TEST_CASE("EventEngine rejects an event scheduled before the current time") {
  EventEngine engine;
  Recorder r(engine);
  engine.schedule_at(100_ns, &r, 0);
  engine.step();
  REQUIRE(engine.now() == 100_ns);

  CHECK_THROWS_AS(engine.schedule_at(99_ns, &r, 0), std::logic_error);
  CHECK(engine.empty());
  // "Now" itself is not the past.
  CHECK_NOTHROW(engine.schedule_at(100_ns, &r, 0));
  CHECK_NOTHROW(engine.schedule_in(0, &r, 0));
  CHECK(engine.pending() == 2);
}

TEST_CASE("EventEngine advance_to runs events up to and including t and then sets now to t") {
  EventEngine engine;
  Recorder r(engine);
  engine.schedule_at(10_us, &r, 0, 1);
  engine.schedule_at(20_us, &r, 0, 2);
  engine.schedule_at(20_us + 1_ns, &r, 0, 3);

  engine.advance_to(20_us);
  CHECK(r.args() == std::vector<std::uint64_t>{1, 2});
  CHECK(engine.now() == 20_us);
  CHECK(engine.pending() == 1);

  // An idle period with nothing due only moves the clock.
  r.fired.clear();
  engine.advance_to(20_us);
  CHECK(r.fired.empty());
  CHECK(engine.now() == 20_us);

  // Going "back" is a no-op.
  engine.advance_to(5_us);
  CHECK(engine.now() == 20_us);
  CHECK(r.fired.empty());

  engine.advance_to(1_ms);
  CHECK(r.args() == std::vector<std::uint64_t>{3});
  CHECK(engine.now() == 1_ms);
  CHECK(engine.empty());
}

TEST_CASE("EventEngine advance_to also runs events that handlers schedule within the window") {
  EventEngine engine;
  Rng rng(3);
  Chainer c(engine, rng, 1000000);
  engine.schedule_at(0, &c, 0);
  engine.advance_to(50_us);

  REQUIRE_FALSE(c.times.empty());
  CHECK(c.times.back() <= 50_us);
  // The follow-up of the last event ran is beyond the window, still pending.
  REQUIRE(engine.pending() == 1);
  CHECK(engine.next_time() > 50_us);
  CHECK(engine.now() == 50_us);
}

TEST_CASE("EventEngine run_until stops as soon as the predicate holds") {
  EventEngine engine;
  Recorder r(engine);
  for (std::uint64_t i = 1; i <= 10; ++i) engine.schedule_at(i * 1_us, &r, 0, i);
  engine.run_until([&] { return r.fired.size() == 4; });
  CHECK(r.fired.size() == 4);
  CHECK(engine.now() == 4_us);
  CHECK(engine.pending() == 6);
  engine.run_until([] { return false; });
  CHECK(r.fired.size() == 10);
  CHECK(engine.events_executed() == 10u);
}

TEST_CASE("EventEngine pops many random schedules sorted by time, ties in scheduling order") {
  EventEngine engine;
  Recorder r(engine);
  Rng rng(12345);
  // Times drawn from a small range so that many events tie; batches are
  // scheduled between runs so the heap is exercised while partly drained.
  std::vector<std::pair<Tick, std::uint64_t>> scheduled;
  std::uint64_t id = 0;
  for (int batch = 0; batch < 20; ++batch) {
    for (int i = 0; i < 500; ++i) {
      const Tick at = engine.now() + rng.below(200);
      engine.schedule_at(at, &r, 0, id);
      scheduled.emplace_back(at, id++);
    }
    for (int i = 0; i < 250; ++i) engine.step();
  }
  while (engine.step()) {
  }

  REQUIRE(r.fired.size() == scheduled.size());
  for (std::size_t i = 0; i < r.fired.size(); ++i) {
    // Each event ran at the time it was scheduled for.
    REQUIRE(r.fired[i].at == scheduled[r.fired[i].arg].first);
    if (i == 0) continue;
    const auto& prev = r.fired[i - 1];
    const auto& cur = r.fired[i];
    REQUIRE(prev.at <= cur.at);
    // Ids grow with scheduling order, so equal times must have growing ids.
    if (prev.at == cur.at) REQUIRE(prev.arg < cur.arg);
  }
}

TEST_CASE("EventEngine keeps time monotonic when handlers schedule follow-up events") {
  EventEngine engine;
  Rng rng(99);
  Chainer c(engine, rng, 5000);
  for (int i = 0; i < 16; ++i) engine.schedule_at(rng.below(1000), &c, 0);
  while (engine.step()) {
  }
  CHECK(c.times.size() == 16u + 5000u);  // the initial events and every follow-up
  CHECK(std::is_sorted(c.times.begin(), c.times.end()));
}

TEST_CASE("EventEngine matches a reference queue at sizes from 0 to 5000, with and without lanes") {
  // With lanes, lanes and heap together keep the one order of (time,
  // scheduling order), whether a lane's events come in order or not, as
  // the number pending (and with it each lane's ring) grows and shrinks.
  const std::pair<std::uint64_t, std::size_t> cases[] = {{1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 3}};
  for (const auto& [seed, lanes] : cases) {
    INFO("seed " << seed << ", " << lanes << " lanes");
    EventEngine engine;
    ModelChecker checker(engine, seed);
    checker.use_lanes(lanes);
    Rng plan(seed + 100);
    sweep_sizes(engine, checker, plan);
    CHECK(engine.empty());
    CHECK(engine.events_executed() == checker.fired());
    CHECK(checker.max_pending() > 5000);
  }
}

TEST_CASE("EventEngine lanes: out-of-order events go to the heap, ties keep scheduling order") {
  EventEngine engine;
  Recorder r(engine);
  const EventEngine::Lane lane = engine.add_lane();
  REQUIRE(lane != EventEngine::kNoLane);
  engine.schedule_at(5_us, &r, 0, 1, lane);
  engine.schedule_at(3_us, &r, 0, 2, lane);  // earlier than the lane's last: the heap
  engine.schedule_at(5_us, &r, 0, 3);        // the heap, tied with 1
  engine.schedule_at(5_us, &r, 0, 4, lane);
  engine.schedule_at(4_us, &r, 0, 5);
  CHECK(engine.pending() == 5);
  CHECK(engine.next_time() == 3_us);
  while (engine.step()) {
  }
  CHECK(r.args() == std::vector<std::uint64_t>{2, 5, 1, 3, 4});

  // Past kMaxLanes a component gets kNoLane, and its events use the heap.
  EventEngine full;
  Recorder f(full);
  for (std::size_t i = 0; i < EventEngine::kMaxLanes; ++i)
    CHECK(full.add_lane() != EventEngine::kNoLane);
  const EventEngine::Lane none = full.add_lane();
  CHECK(none == EventEngine::kNoLane);
  full.schedule_at(2_us, &f, 0, 1, none);
  full.schedule_at(1_us, &f, 0, 2, 0);
  while (full.step()) {
  }
  CHECK(f.args() == std::vector<std::uint64_t>{2, 1});
}

TEST_CASE("EventEngine runs same-time follow-ups after the same-time events already pending") {
  EventEngine engine;
  Recorder r(engine);
  // A handler that schedules at its own time: its follow-ups tie with the
  // events already pending at that time and must run after them.
  struct Spawner : EventTarget {
    EventEngine& engine;
    Recorder& r;
    Spawner(EventEngine& e, Recorder& rec) : engine(e), r(rec) {}
    void on_event(std::uint32_t, std::uint64_t arg) override {
      r.on_event(0, arg);
      for (std::uint64_t i = 1; i <= 3; ++i) engine.schedule_in(0, &r, 0, arg * 10 + i);
      engine.schedule_in(1, &r, 0, arg * 10 + 9);
    }
  } spawner(engine, r);
  engine.schedule_at(5_us, &r, 0, 1);
  engine.schedule_at(5_us, &spawner, 0, 2);
  engine.schedule_at(5_us, &r, 0, 3);
  engine.schedule_at(5_us, &spawner, 0, 4);
  engine.schedule_at(5_us, &r, 0, 5);
  while (engine.step()) {
  }
  CHECK(r.args() == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 21, 22, 23, 41, 42, 43, 29, 49});
}

TEST_CASE("EventEngine reuses payload slots: no growth while the number pending is bounded") {
  EventEngine engine;
  Rng rng(5);
  // A steady 50 pending (each event schedules one follow-up) for 200,000
  // events takes 50 slots, the first 50.
  Chainer c(engine, rng, 200000);
  for (int i = 0; i < 50; ++i) engine.schedule_at(rng.below(1000), &c, 0);
  CHECK(EventEngineTestAccess::payload_slots(engine) == 50);
  while (engine.pending() == 50) engine.step();
  CHECK(EventEngineTestAccess::payload_slots(engine) == 50);
  CHECK(engine.events_executed() > 200000u);

  // Under a fluctuating load the pool is exactly as large as the most
  // events ever pending at once.
  EventEngine engine2;
  ModelChecker checker(engine2, 9);
  Rng plan(10);
  sweep_sizes(engine2, checker, plan);
  CHECK(EventEngineTestAccess::payload_slots(engine2) == checker.max_pending());
}

TEST_CASE("EventEngine keeps ties in scheduling order across the sequence number's wrap") {
  EventEngine engine;
  Recorder r(engine);
  // Ten numbers left before the 32-bit counter wraps. The events at 3 us
  // go to a lane (in order), those at 5 us to the heap.
  EventEngineTestAccess::set_next_seq(engine, UINT32_MAX - 9);
  const EventEngine::Lane lane = engine.add_lane();
  std::vector<std::pair<Tick, std::uint64_t>> scheduled;
  auto add = [&](Tick at, std::uint64_t id) {
    engine.schedule_at(at, &r, 0, id, at == 3_us ? lane : EventEngine::kNoLane);
    scheduled.emplace_back(at, id);
  };
  for (std::uint64_t id = 0; id < 20; ++id) add(id % 2 ? 3_us : 5_us, id);
  for (int i = 0; i < 3; ++i) engine.step();  // ids 1, 3 and 5 at 3 us
  for (std::uint64_t id = 20; id < 30; ++id) add(id % 2 ? 3_us : 5_us, id);
  while (engine.step()) {
  }
  std::sort(scheduled.begin(), scheduled.end());
  std::vector<std::uint64_t> expected;
  for (const auto& [at, id] : scheduled) expected.push_back(id);
  CHECK(r.args() == expected);

  // And under a random load that crosses the wrap inside handlers, with
  // events in lanes and in the heap.
  for (const std::size_t lanes : {0u, 2u}) {
    EventEngine engine2;
    EventEngineTestAccess::set_next_seq(engine2, UINT32_MAX - 3000);
    ModelChecker checker(engine2, 11);
    checker.use_lanes(lanes);
    Rng plan(12);
    sweep_sizes(engine2, checker, plan);
    CHECK(engine2.events_executed() == checker.fired());
  }
}

TEST_CASE("EventEngine stays consistent when a handler steps the engine itself") {
  EventEngine engine;
  Recorder r(engine);
  struct Nested : EventTarget {
    EventEngine& engine;
    Recorder& r;
    bool schedule_first;
    Nested(EventEngine& e, Recorder& rec, bool first) : engine(e), r(rec), schedule_first(first) {}
    void on_event(std::uint32_t, std::uint64_t arg) override {
      r.on_event(0, arg);
      if (schedule_first) engine.schedule_in(0, &r, 0, arg + 1);
      REQUIRE(engine.step());  // runs the next pending event, not the follow-up
      if (!schedule_first) engine.schedule_in(0, &r, 0, arg + 1);
    }
  };
  Nested first(engine, r, true);
  Nested second(engine, r, false);
  engine.schedule_at(1_us, &first, 0, 10);
  engine.schedule_at(1_us, &r, 0, 20);
  engine.schedule_at(2_us, &second, 0, 30);
  engine.schedule_at(2_us, &r, 0, 40);
  engine.schedule_at(3_us, &r, 0, 50);
  while (engine.step()) {
  }
  CHECK(r.args() == std::vector<std::uint64_t>{10, 20, 11, 30, 40, 31, 50});
  CHECK(engine.events_executed() == 7u);
}

TEST_CASE("EventEngine stays consistent after a handler throws") {
  EventEngine engine;
  Recorder r(engine);
  struct Thrower : EventTarget {
    void on_event(std::uint32_t, std::uint64_t) override {
      throw std::runtime_error("handler failed");
    }
  } thrower;
  engine.schedule_at(1_us, &thrower, 0);
  engine.schedule_at(2_us, &r, 0, 2);
  engine.schedule_at(3_us, &r, 0, 3);
  CHECK_THROWS_AS(engine.step(), std::runtime_error);
  CHECK(engine.pending() == 2);
  CHECK(engine.next_time() == 2_us);
  engine.schedule_at(2_us, &r, 0, 4);
  while (engine.step()) {
  }
  CHECK(r.args() == std::vector<std::uint64_t>{2, 4, 3});
}

// ---- Rng ----

TEST_CASE("Rng gives the same sequence for the same seed and a different one for another seed") {
  Rng a(42);
  Rng b(42);
  Rng c(43);
  std::vector<std::uint64_t> va, vb, vc;
  for (int i = 0; i < 1000; ++i) {
    va.push_back(a.next());
    vb.push_back(b.next());
    vc.push_back(c.next());
  }
  CHECK(va == vb);
  CHECK(va != vc);

  // reseed restarts the sequence.
  a.reseed(42);
  for (int i = 0; i < 1000; ++i) REQUIRE(a.next() == va[static_cast<std::size_t>(i)]);
}

TEST_CASE("Rng below(n) stays below n and is roughly uniform") {
  Rng rng(7);
  SECTION("a small bound passes a chi-square test") {
    constexpr std::uint64_t kBins = 10;
    constexpr int kDraws = 100000;
    std::array<int, kBins> counts{};
    for (int i = 0; i < kDraws; ++i) {
      const std::uint64_t v = rng.below(kBins);
      REQUIRE(v < kBins);
      ++counts[v];
    }
    const double expected = static_cast<double>(kDraws) / kBins;
    double chi2 = 0;
    for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
    // 9 degrees of freedom: mean 9; P(chi2 > 40) is below 1e-5.
    CHECK(chi2 < 40.0);
  }
  SECTION("a bound of one always gives zero") {
    for (int i = 0; i < 100; ++i) REQUIRE(rng.below(1) == 0u);
  }
  SECTION("a huge bound that is not a power of two splits evenly into thirds") {
    // bound = 3 * 2^62: each third [k * 2^62, (k+1) * 2^62) should get 1/3.
    constexpr std::uint64_t kThird = std::uint64_t{1} << 62;
    constexpr std::uint64_t kBound = 3 * kThird;
    constexpr int kDraws = 30000;
    std::array<int, 3> counts{};
    for (int i = 0; i < kDraws; ++i) {
      const std::uint64_t v = rng.below(kBound);
      REQUIRE(v < kBound);
      ++counts[v / kThird];
    }
    // sd of each count is about 82; allow 6 sd.
    for (int c : counts) CHECK(std::abs(c - kDraws / 3) < 500);
  }
}

TEST_CASE("Rng uniform() stays from 0 up to but excluding 1 with mean about one half") {
  Rng rng(2024);
  constexpr int kDraws = 100000;
  double sum = 0;
  double lo = 1;
  double hi = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  // Standard error of the mean is sqrt(1/12 / N) ~ 0.0009.
  CHECK(std::abs(sum / kDraws - 0.5) < 0.006);
  CHECK(lo < 0.001);
  CHECK(hi > 0.999);
}

// ---- LatencyHistogram ----

TEST_CASE("LatencyHistogram buckets tile the value range without gaps or overlaps") {
  for (std::size_t b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    REQUIRE(LatencyHistogram::bucket_low(b) < LatencyHistogram::bucket_high(b));
    REQUIRE(LatencyHistogram::bucket_high(b) == LatencyHistogram::bucket_low(b + 1));
    REQUIRE(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b)) == b);
    REQUIRE(LatencyHistogram::bucket_of(LatencyHistogram::bucket_high(b) - 1) == b);
  }
  // The last bucket ends at 2^kMaxExp.
  CHECK(LatencyHistogram::bucket_high(LatencyHistogram::kBuckets - 1) ==
        Tick{1} << LatencyHistogram::kMaxExp);
}

TEST_CASE("LatencyHistogram bucket_of puts every value between its bucket's low and high") {
  std::vector<Tick> values;
  for (Tick v = 0; v < 5000; ++v) values.push_back(v);
  Rng rng(5);
  for (int e = 6; e < LatencyHistogram::kMaxExp; ++e) {
    const Tick p = Tick{1} << e;
    values.insert(values.end(), {p - 1, p, p + 1, p + p / 2, 2 * p - 1});
    for (int i = 0; i < 200; ++i) values.push_back(p + rng.below(p));
  }
  for (Tick v : values) {
    const std::size_t b = LatencyHistogram::bucket_of(v);
    REQUIRE(b < LatencyHistogram::kBuckets);
    INFO("v = " << v << ", bucket " << b);
    REQUIRE(LatencyHistogram::bucket_low(b) <= v);
    REQUIRE(v < LatencyHistogram::bucket_high(b));
  }
}

TEST_CASE("LatencyHistogram is exact below 64 ns and at most 1/32 wide relative above") {
  const std::size_t sub = std::size_t{1} << LatencyHistogram::kSubBits;
  for (Tick v = 0; v < sub; ++v) {
    const std::size_t b = LatencyHistogram::bucket_of(v);
    REQUIRE(LatencyHistogram::bucket_low(b) == v);
    REQUIRE(bucket_width(b) == 1u);
  }
  for (std::size_t b = sub; b < LatencyHistogram::kBuckets; ++b) {
    INFO("bucket " << b << " [" << LatencyHistogram::bucket_low(b) << ", "
                   << LatencyHistogram::bucket_high(b) << ")");
    REQUIRE(bucket_width(b) * 32 <= LatencyHistogram::bucket_low(b));
  }
}

TEST_CASE("LatencyHistogram puts values beyond 2^40 ns in the last bucket") {
  const Tick top = Tick{1} << LatencyHistogram::kMaxExp;
  CHECK(LatencyHistogram::bucket_of(top) == LatencyHistogram::kBuckets - 1);
  CHECK(LatencyHistogram::bucket_of(~Tick{0}) == LatencyHistogram::kBuckets - 1);
  LatencyHistogram h;
  h.record(~Tick{0});
  CHECK(h.max() == ~Tick{0});
  CHECK(h.percentile(0.5) == ~Tick{0});  // clamped to [min, max]
}

TEST_CASE("LatencyHistogram percentiles of 1..100000 us are within one bucket of the truth") {
  constexpr std::uint64_t kN = 100000;
  LatencyHistogram h;
  for (std::uint64_t i = 1; i <= kN; ++i) h.record(i * 1_us);
  REQUIRE(h.count() == kN);
  CHECK(h.min() == 1_us);
  CHECK(h.max() == kN * 1_us);

  for (double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    // Nearest rank: the ceil(q * N)-th smallest sample (at least the first).
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(kN))));
    const Tick truth = rank * 1_us;
    const Tick got = h.percentile(q);
    const Tick tolerance = bucket_width(LatencyHistogram::bucket_of(truth));
    INFO("q = " << q << ", truth " << truth << ", got " << got);
    CHECK(got + tolerance >= truth);
    CHECK(got <= truth + tolerance);
    // And within the advertised relative resolution.
    CHECK(std::abs(static_cast<double>(got) - static_cast<double>(truth)) <=
          static_cast<double>(truth) / 32.0);
  }
  CHECK(h.percentile(1.0) <= h.max());
  CHECK(h.percentile(0.0) >= h.min());
}

TEST_CASE("LatencyHistogram percentiles are monotonic in q") {
  LatencyHistogram h;
  Rng rng(11);
  for (int i = 0; i < 20000; ++i) h.record(rng.below(10_ms) + 1);
  Tick prev = 0;
  for (int i = 0; i <= 1000; ++i) {
    const Tick p = h.percentile(i / 1000.0);
    REQUIRE(p >= prev);
    prev = p;
  }
}

TEST_CASE("LatencyHistogram mean, min and max are exact, not bucketed") {
  constexpr std::uint64_t kN = 100000;
  LatencyHistogram h;
  for (std::uint64_t i = 1; i <= kN; ++i) h.record(i * 1_us);
  // Sum of i * 1000 for i = 1..N is 1000 * N (N + 1) / 2.
  const double mean_ns = 1000.0 * static_cast<double>(kN + 1) / 2.0;
  CHECK(h.mean() == mean_ns);

  LatencyHistogram odd;
  for (Tick v : {1000003, 17, 999999999}) odd.record(v);
  CHECK(odd.mean() == Approx((1000003.0 + 17.0 + 999999999.0) / 3.0).epsilon(1e-15));
  CHECK(odd.min() == 17u);
  CHECK(odd.max() == 999999999u);
}

TEST_CASE("LatencyHistogram merge equals recording both sets into one histogram") {
  Rng rng(8);
  LatencyHistogram a, b, both;
  for (int i = 0; i < 5000; ++i) {
    const Tick v = 50_us + rng.below(100_us);
    a.record(v);
    both.record(v);
  }
  for (int i = 0; i < 3000; ++i) {
    const Tick v = 1_ms + rng.below(5_ms);
    b.record(v);
    both.record(v);
  }
  LatencyHistogram merged = a;
  merged.merge(b);
  CHECK(merged.count() == both.count());
  CHECK(merged.mean() == Approx(both.mean()).epsilon(1e-12));
  CHECK(merged.min() == both.min());
  CHECK(merged.max() == both.max());
  for (double q : {0.0, 0.1, 0.5, 0.6, 0.62, 0.63, 0.9, 0.99, 1.0}) {
    INFO("q = " << q);
    CHECK(merged.percentile(q) == both.percentile(q));
  }

  SECTION("merging into an empty histogram copies the other") {
    LatencyHistogram empty;
    empty.merge(b);
    CHECK(empty.count() == b.count());
    CHECK(empty.min() == b.min());
    CHECK(empty.max() == b.max());
    CHECK(empty.percentile(0.5) == b.percentile(0.5));
  }
  SECTION("merging an empty histogram changes nothing") {
    LatencyHistogram copy = a;
    copy.merge(LatencyHistogram());
    CHECK(copy.count() == a.count());
    CHECK(copy.min() == a.min());
    CHECK(copy.max() == a.max());
    CHECK(copy.mean() == a.mean());
  }
}

TEST_CASE("An empty LatencyHistogram reports zero for every statistic") {
  LatencyHistogram h;
  CHECK(h.count() == 0u);
  CHECK(h.mean() == 0.0);
  CHECK(h.min() == 0u);
  CHECK(h.max() == 0u);
  CHECK(h.percentile(0.0) == 0u);
  CHECK(h.percentile(0.5) == 0u);
  CHECK(h.percentile(1.0) == 0u);

  h.record(123_us);
  h.clear();
  CHECK(h.count() == 0u);
  CHECK(h.percentile(0.99) == 0u);
}

TEST_CASE("LatencyHistogram min is tracked when the first value is the largest") {
  LatencyHistogram h;
  h.record(5_ms);
  h.record(3_us);
  h.record(4_ms);
  CHECK(h.min() == 3_us);
  CHECK(h.max() == 5_ms);
  // The lowest percentile is in the minimum's bucket, never below the minimum.
  const std::size_t b = LatencyHistogram::bucket_of(3_us);
  CHECK(h.percentile(0.0) >= 3_us);
  CHECK(h.percentile(0.0) < LatencyHistogram::bucket_high(b));
}

// ---- transfer_time ----

TEST_CASE("transfer_time is exact for whole nanoseconds and rounds partial ones up") {
  // 400 MB/s: 2.5 ns per byte.
  CHECK(transfer_time(0, 400e6) == 0u);
  CHECK(transfer_time(2, 400e6) == 5u);
  CHECK(transfer_time(1, 400e6) == 3u);  // 2.5 ns -> 3
  CHECK(transfer_time(4096, 400e6) == 4096u * 5 / 2);
  CHECK(transfer_time(4097, 400e6) == (4097u * 5 + 1) / 2);
  // 3 GB/s: a third of a nanosecond per byte.
  CHECK(transfer_time(1, 3e9) == 1u);
  CHECK(transfer_time(3, 3e9) == 1u);
  CHECK(transfer_time(4, 3e9) == 2u);
}

TEST_CASE("transfer_time is the smallest whole nanosecond count that covers the transfer") {
  Rng rng(17);
  for (std::uint64_t rate : {200'000'000ull, 400'000'000ull, 1'000'000'000ull, 3'000'000'000ull}) {
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t bytes = rng.below(65537);
      const Tick t = transfer_time(bytes, static_cast<double>(rate));
      // t ns at `rate` B/s moves t * rate / 1e9 bytes: must cover `bytes`,
      // and one nanosecond less must not.
      const unsigned __int128 need = static_cast<unsigned __int128>(bytes) * 1'000'000'000u;
      INFO("bytes " << bytes << " at " << rate << " B/s -> " << t << " ns");
      REQUIRE(static_cast<unsigned __int128>(t) * rate >= need);
      if (t > 0) REQUIRE(static_cast<unsigned __int128>(t - 1) * rate < need);
    }
  }
}

TEST_CASE("TransferClock returns what transfer_time returns, whatever sizes follow each other") {
  // Rates whose byte times are not whole nanoseconds, so rounding matters;
  // sizes repeat, alternate and start at 0 (the remembered size before any).
  for (const double rate : {400e6, 533.333e6, 3.938e9}) {
    TransferClock clock(rate);
    Rng rng(7);
    const std::uint64_t sizes[] = {0, 512, 4096, 4097, 16384, 65536, 131072};
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t bytes = sizes[rng.below(std::size(sizes))];
      REQUIRE(clock(bytes) == transfer_time(bytes, rate));
    }
    CHECK(clock(0) == 0u);
  }
}

// ---- throughput series ----

TEST_CASE("IntervalSeries sums bytes and IOs per operation into fixed bins from its start") {
  IntervalSeries s(5_ms, 1_ms);
  s.add(5_ms, 0, 4096);            // bin 0
  s.add(6_ms - 1_ns, 0, 8192);     // bin 0, last ns
  s.add(6_ms - 1_ns, 1, 131072);   // bin 0, another op
  s.add(6_ms, 1, 4096);            // bin 1
  s.add(8_ms + 500_us, 2, 65536);  // bin 3; bin 2 stays empty

  REQUIRE(s.bins().size() == 4);
  CHECK(s.start() == 5_ms);
  CHECK(s.interval() == 1_ms);
  const auto& b = s.bins();
  CHECK(b[0].bytes[0] == 4096u + 8192u);
  CHECK(b[0].ios[0] == 2u);
  CHECK(b[0].bytes[1] == 131072u);
  CHECK(b[0].ios[1] == 1u);
  CHECK(b[0].ios[2] == 0u);
  CHECK(b[1].bytes[1] == 4096u);
  CHECK(b[1].ios[1] == 1u);
  for (int op = 0; op < IntervalSeries::kOps; ++op) {
    CHECK(b[2].bytes[op] == 0u);
    CHECK(b[2].ios[op] == 0u);
  }
  CHECK(b[3].bytes[2] == 65536u);
  CHECK(b[3].ios[2] == 1u);
}

TEST_CASE("interval series stop with an error past their row limit instead of allocating it") {
  IntervalSeries s(0, 1000);  // 1 us intervals
  s.add(5000, 0, 4096);
  CHECK(s.bins().size() == 6);
  const Tick far = static_cast<Tick>(kMaxIntervals) * 1000;
  CHECK_THROWS_WITH(s.add(far, 0, 4096),
                    Catch::Contains("interval " + std::to_string(kMaxIntervals)) &&
                        Catch::Contains("1000 ns each") && Catch::Contains("timeseries.interval"));
  CHECK(s.bins().size() == 6);  // nothing was allocated for it
  IntervalLatencySeries l(0, 1000);
  CHECK_THROWS_AS(l.record(far, 10), std::length_error);
  // A sampler may fill up to the limit, and no further.
  BoundarySampler b(0, 1000, 1);
  const double v = 1;
  CHECK_THROWS_AS(b.take(far + 1000, &v), std::length_error);
  CHECK(b.rows() == 0);
}

TEST_CASE("ByteStepSeries gives each completed step's size divided by its duration") {
  constexpr std::uint64_t kGB = 1'000'000'000;
  const Tick start = 10_s;
  ByteStepSeries s(start, kGB);
  CHECK(s.step() == kGB);

  // Step 0 completes in two halves at 11 s and 12 s.
  s.add(11_s, kGB / 2);
  CHECK(s.segments() == 0u);
  s.add(12_s, kGB / 2);
  // Step 1 in one go at 13 s; step 2 at 17 s.
  s.add(13_s, kGB);
  s.add(17_s, kGB);
  // Half a step is not a segment yet.
  s.add(18_s, kGB / 2);

  REQUIRE(s.segments() == 3u);
  CHECK(s.rate(0) == Approx(static_cast<double>(kGB) / to_seconds(12_s - start)));
  CHECK(s.rate(1) == Approx(static_cast<double>(kGB) / to_seconds(13_s - 12_s)));
  CHECK(s.rate(2) == Approx(static_cast<double>(kGB) / to_seconds(17_s - 13_s)));
}

TEST_CASE("ByteStepSeries with a zero step records nothing") {
  ByteStepSeries s(0, 0);
  s.add(1_s, 1'000'000);
  CHECK(s.segments() == 0u);
}

// ---------------------------------------------------------------------------
// SNIA PTS steady-state rule (sim/steady_state): every round of the window
// within +/-10% of the window's mean, and the least-squares line's change
// across the window within 10% of that mean.

TEST_CASE("a flat series of rounds is in steady state", "[sim][steady]") {
  const std::vector<double> y{100, 100, 100, 100, 100};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK(r.steady);
  CHECK(r.mean == Approx(100));
  CHECK(r.slope == Approx(0).margin(1e-12));
  CHECK(r.max_excursion == Approx(0).margin(1e-12));
  CHECK(r.line_change == Approx(0).margin(1e-12));
  CHECK(r.first_round == 0u);
  CHECK(ssdtwin::first_steady_round(y) == 4u);
}

TEST_CASE("one round 15 percent off the others breaks steady state", "[sim][steady]") {
  // Mean 103: the middle round is 12 off and 12 > 10.3. It sits at the centre
  // of the window so the fitted line is flat and only the excursion fails.
  const std::vector<double> y{100, 100, 115, 100, 100};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK_FALSE(r.steady);
  CHECK(r.mean == Approx(103));
  CHECK(r.max_excursion == Approx(12));
  CHECK(r.line_change == Approx(0).margin(1e-12));
}

TEST_CASE("a ramp within the excursion bound but with a steep line is not steady",
          "[sim][steady]") {
  // Mean 100 and max excursion 6 <= 10. Least-squares slope 3 per round so
  // the line changes by 3 * 4 = 12 > 10 across the window.
  const std::vector<double> y{94, 97, 100, 103, 106};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK_FALSE(r.steady);
  CHECK(r.mean == Approx(100));
  CHECK(r.max_excursion == Approx(6));
  CHECK(r.slope == Approx(3));
  CHECK(r.line_change == Approx(12));
}

TEST_CASE("a noisy but flat series is in steady state", "[sim][steady]") {
  // Mean 1000 and max excursion 40 <= 100. Sum of (x - 2)(y - mean) over
  // x = 0..4 is 0 - 40 + 0 + 30 - 80 = -90 and sum of (x - 2)^2 is 10 so the
  // slope is -9 and the line changes by -36 with |-36| <= 100.
  const std::vector<double> y{1000, 1040, 970, 1030, 960};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK(r.steady);
  CHECK(r.mean == Approx(1000));
  CHECK(r.max_excursion == Approx(40));
  CHECK(r.slope == Approx(-9));
  CHECK(r.line_change == Approx(-36));
}

TEST_CASE("the last window decides and earlier rounds do not matter", "[sim][steady]") {
  const std::vector<double> y{5000, 10, 100, 101, 99, 100, 100};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK(r.steady);
  CHECK(r.first_round == 2u);
}

TEST_CASE("first_steady_round finds the first steady window of a decaying series",
          "[sim][steady]") {
  // Window 5 and tolerances 10 percent. The window ending at round
  //   4: {300 160 112 108 104} mean 156.8 and excursion 143.2: no
  //   5: {160 112 108 104 100} mean 116.8 and excursion 43.2 > 11.68: no
  //   6: {112 108 104 100 100} mean 104.8 and excursion 7.2 <= 10.48 but
  //      sum (x-2)y = -224 - 108 + 0 + 100 + 200 = -32 so slope -3.2 and the
  //      line changes by -12.8 with 12.8 > 10.48: no (the slope rule fails)
  //   7: {108 104 100 100 100} mean 102.4 and excursion 5.6 <= 10.24 and
  //      sum (x-2)y = -216 - 104 + 0 + 100 + 200 = -20 so slope -2 and the
  //      line changes by -8 with 8 <= 10.24: steady.
  const std::vector<double> y{300, 160, 112, 108, 104, 100, 100, 100, 100};
  CHECK(ssdtwin::first_steady_round(y) == 7u);
  const std::vector<double> w6(y.begin() + 2, y.begin() + 7);
  const auto r6 = ssdtwin::snia_steady_state(w6);
  CHECK_FALSE(r6.steady);
  CHECK(r6.max_excursion == Approx(7.2));
  CHECK(r6.line_change == Approx(-12.8));
  const std::vector<double> w7(y.begin() + 3, y.begin() + 8);
  const auto r7 = ssdtwin::snia_steady_state(w7);
  CHECK(r7.steady);
  CHECK(r7.line_change == Approx(-8));
  // A series that never settles.
  CHECK(ssdtwin::first_steady_round({100, 200, 100, 200, 100, 200}) == ssdtwin::kNoSteadyRound);
}

TEST_CASE("fewer rounds than the window are never steady", "[sim][steady]") {
  const std::vector<double> y{100, 100, 100, 100};
  const auto r = ssdtwin::snia_steady_state(y);
  CHECK_FALSE(r.steady);
  CHECK(r.first_round == ssdtwin::kNoSteadyRound);
  CHECK(ssdtwin::first_steady_round(y) == ssdtwin::kNoSteadyRound);
  CHECK_FALSE(ssdtwin::snia_steady_state({}).steady);
  CHECK(ssdtwin::first_steady_round({}) == ssdtwin::kNoSteadyRound);
}

TEST_CASE("a zero or negative mean is never steady", "[sim][steady]") {
  CHECK_FALSE(ssdtwin::snia_steady_state({0, 0, 0, 0, 0}).steady);
  CHECK_FALSE(ssdtwin::snia_steady_state({-5, -5, -5, -5, -5}).steady);
  CHECK(ssdtwin::first_steady_round({0, 0, 0, 0, 0, 0}) == ssdtwin::kNoSteadyRound);
}

TEST_CASE("the window and both tolerances are parameters", "[sim][steady]") {
  // Excursion 12 of mean 103: steady with a 15 percent excursion bound.
  CHECK(ssdtwin::snia_steady_state({100, 100, 115, 100, 100}, 5, 0.15).steady);
  // Line change 12 of mean 100: steady with a 15 percent slope bound but not
  // with 10 percent.
  CHECK(ssdtwin::snia_steady_state({94, 97, 100, 103, 106}, 5, 0.10, 0.15).steady);
  CHECK_FALSE(ssdtwin::snia_steady_state({94, 97, 100, 103, 106}, 5, 0.10, 0.10).steady);
  // A 3-round window: four rounds are enough and the first steady window
  // ends at round 3 ({100 100 100}; the window ending at 2 holds the 50).
  const std::vector<double> y{50, 100, 100, 100};
  const auto r = ssdtwin::snia_steady_state(y, 3);
  CHECK(r.steady);
  CHECK(r.first_round == 1u);
  CHECK(ssdtwin::first_steady_round(y, 3) == 3u);
  CHECK_FALSE(ssdtwin::snia_steady_state(y, 5).steady);
  // Tighter tolerances reject what the defaults accept.
  const std::vector<double> noisy{1000, 1040, 970, 1030, 960};
  CHECK_FALSE(ssdtwin::snia_steady_state(noisy, 5, 0.03).steady);
  CHECK_FALSE(ssdtwin::snia_steady_state(noisy, 5, 0.10, 0.03).steady);
  // A line needs two points and tolerances cannot be negative.
  CHECK_THROWS_AS(ssdtwin::snia_steady_state(y, 1), std::invalid_argument);
  CHECK_THROWS_AS(ssdtwin::first_steady_round(y, 0), std::invalid_argument);
  CHECK_THROWS_AS(ssdtwin::snia_steady_state(y, 3, -0.1), std::invalid_argument);
}

// ---- Result files (sim/output_file.h)

namespace {

std::filesystem::path output_scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ssdtwin_sim_" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a result file appears under its name only when written whole", "[sim][output]") {
  const auto dir = output_scratch("whole");
  const std::string path = (dir / "a.csv").string();
  {
    ssdtwin::OutputFile f(path);
    f << "x,y\n" << std::string(200000, 'z') << "\n";  // more than one buffer
    CHECK_FALSE(std::filesystem::exists(path));
    f.commit();
  }
  CHECK(read_all(path) == "x,y\n" + std::string(200000, 'z') + "\n");
  CHECK_FALSE(std::filesystem::exists(ssdtwin::temporary_path(path)));
  {
    ssdtwin::OutputFile abandoned(path);  // e.g. an exception while writing it
    abandoned << "partial";
  }
  CHECK(read_all(path).substr(0, 4) == "x,y\n");  // the whole earlier file stays
  CHECK_FALSE(std::filesystem::exists(ssdtwin::temporary_path(path)));
}

TEST_CASE("a write to a full device is an error naming the file, and leaves nothing behind",
          "[sim][output]") {
  const auto dir = output_scratch("full");
  const std::string path = (dir / "timeseries.csv").string();
  // The temporary on /dev/full: every write fails with ENOSPC, as on a full
  // disk (permissions would not do: the tests may run as root).
  std::filesystem::create_symlink("/dev/full", ssdtwin::temporary_path(path));
  try {
    ssdtwin::write_output_file(path, "phase,time_s\n");
    FAIL("no error");
  } catch (const ssdtwin::OutputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(path + ": cannot write"));
    CHECK_THAT(e.what(), Catch::Contains("No space left on device"));
  }
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::is_symlink(ssdtwin::temporary_path(path)));
}

TEST_CASE("a result file in a folder that is not one is an error naming it", "[sim][output]") {
  const auto dir = output_scratch("notdir");
  std::ofstream(dir / "file") << "x";
  const std::string path = (dir / "file" / "a.csv").string();
  CHECK_THROWS_WITH(ssdtwin::write_output_file(path, "x"),
                    Catch::StartsWith(path + ": cannot create"));
}

// ---- Charts (sim/chart.h): a report's charts drawn concurrently

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <cerrno>
#include <memory>

#include "sim/chart.h"

namespace {

bool gnuplot_installed() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// Whole as ChartBatch checks it: PNG's signature, and its IEND chunk last.
bool whole_png_file(const std::filesystem::path& p) {
  const std::string d = read_all(p);
  return d.size() > 20 && d.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0 &&
         d.compare(d.size() - 12, 12, std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12)) == 0;
}

std::vector<std::string> temporaries_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().extension() == ".tmp") out.push_back(f.path().filename().string());
  return out;
}

// No child left to reap: every gnuplot was waited for.
bool no_children() {
  errno = 0;
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

// A CSV of `rows` points, and a one-line chart of it; `filter` may leave
// it no point at all, which gnuplot rejects ("x range is invalid").
ssdtwin::Chart line_chart(const std::filesystem::path& dir, const std::string& name, int rows,
                          const std::string& filter = "") {
  std::string csv = "x,y\n";
  for (int i = 1; i <= rows; ++i) csv += std::to_string(i) + "," + std::to_string(i * i) + "\n";
  const std::string path = (dir / (name + ".csv")).string();
  ssdtwin::write_output_file(path, csv);
  ssdtwin::Chart c{name, "x", "y", {}, false};
  c.series.push_back({path, 1, 2, "y", filter});
  return c;
}

// The warnings logged while it lives, in order.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    sink->set_pattern("%v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", sink));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream text_;
};

}  // namespace

TEST_CASE("the charts of one batch all appear, each whole, with no temporary left",
          "[sim][chart]") {
  const auto dir = output_scratch("chart_batch");
  const bool gnuplot = gnuplot_installed();
  CapturedLog log;
  ssdtwin::ChartBatch charts(2);  // fewer slots than charts: some wait for one
  std::vector<ssdtwin::ChartBatch::Ticket> tickets;
  for (int k = 0; k < 5; ++k) {
    const std::string name = "c" + std::to_string(k);
    tickets.push_back(charts.draw(line_chart(dir, name, 10 + k), (dir / (name + ".png")).string()));
  }
  ssdtwin::Chart a = line_chart(dir, "top", 20), b = line_chart(dir, "bottom", 30);
  tickets.push_back(charts.draw_stacked({a, b}, (dir / "stacked.png").string()));
  charts.finish();
  CHECK(no_children());
  for (std::size_t k = 0; k < tickets.size(); ++k) CHECK(charts.wait(tickets[k]) == gnuplot);
  for (const std::string name : {"c0", "c1", "c2", "c3", "c4", "stacked"}) {
    INFO(name);
    CHECK(std::filesystem::exists(dir / (name + ".gp")));  // drawn or not
    if (gnuplot)
      CHECK(whole_png_file(dir / (name + ".png")));
    else
      CHECK_FALSE(std::filesystem::exists(dir / (name + ".png")));
  }
  CHECK(temporaries_in(dir).empty());
  if (gnuplot) CHECK(log.text().empty());
}

TEST_CASE("a series' row bounds limit the rows gnuplot reads, counted from the first data row",
          "[sim][chart]") {
  const auto dir = output_scratch("chart_rows");
  // Row k (0-based, after the header) holds x = k + 1; the filter accepts
  // x = 10 alone, the last row.
  auto bounded = [&](const std::string& name, long first, long last) {
    ssdtwin::Chart c = line_chart(dir, name, 10, "$1 == 10");
    c.series[0].first_row = first;
    c.series[0].last_row = last;
    return c;
  };
  ssdtwin::ChartBatch charts;
  const auto last = charts.draw(bounded("last", 9, 9), (dir / "last.png").string());
  const auto before = charts.draw(bounded("before", 0, 8), (dir / "before.png").string());
  CapturedLog log;
  charts.finish();
  std::ifstream gp(dir / "last.gp");
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  CHECK_THAT(script, Catch::Contains(" every ::9::9 using 1:($1 == 10 ? $2 : 1/0)"));
  if (!gnuplot_installed()) return;
  CHECK(charts.wait(last));          // row 9 is x = 10: the header is not a row
  CHECK_FALSE(charts.wait(before));  // rows 0-8 hold no x = 10: no point to draw
  CHECK(whole_png_file(dir / "last.png"));
  CHECK_FALSE(std::filesystem::exists(dir / "before.png"));
}

TEST_CASE(
    "a batch of scripts writes each chart's script and starts no gnuplot, none writes neither",
    "[sim][chart]") {
  const auto dir = output_scratch("chart_modes");
  std::ofstream(dir / "a.png") << "from an earlier run";
  std::ofstream(dir / "b.gp") << "from an earlier run";
  {
    ssdtwin::ChartBatch charts(ssdtwin::ChartOutput::kScript);
    const auto t = charts.draw(line_chart(dir, "a", 10), (dir / "a.png").string());
    charts.finish();
    CHECK_FALSE(charts.wait(t));  // no PNG drawn
    CHECK(std::filesystem::exists(dir / "a.gp"));
    CHECK_FALSE(std::filesystem::exists(dir / "a.png"));
  }
  {
    ssdtwin::ChartBatch charts(ssdtwin::ChartOutput::kNone);
    const auto t = charts.draw(line_chart(dir, "b", 10), (dir / "b.png").string());
    CHECK_FALSE(charts.wait(t));
    CHECK_FALSE(std::filesystem::exists(dir / "b.gp"));
    CHECK_FALSE(std::filesystem::exists(dir / "b.png"));
  }
  CHECK(ssdtwin::chart_output_named("script") == ssdtwin::ChartOutput::kScript);
  CHECK_FALSE(ssdtwin::chart_output_named("pdf"));
  for (auto o :
       {ssdtwin::ChartOutput::kPng, ssdtwin::ChartOutput::kScript, ssdtwin::ChartOutput::kNone})
    CHECK(ssdtwin::chart_output_named(ssdtwin::chart_output_name(o)) == o);
}

TEST_CASE("a chart gnuplot rejects warns and returns false, the others of its batch still appear",
          "[sim][chart]") {
  if (!gnuplot_installed()) return;  // a missing gnuplot fails every chart: the case above
  const auto dir = output_scratch("chart_fails");
  CapturedLog log;
  ssdtwin::ChartBatch charts;
  const auto before = charts.draw(line_chart(dir, "before", 10), (dir / "before.png").string());
  const auto empty1 =
      charts.draw(line_chart(dir, "empty1", 10, "$1 > 100"), (dir / "empty1.png").string());
  const auto middle = charts.draw(line_chart(dir, "middle", 10), (dir / "middle.png").string());
  const auto empty2 =
      charts.draw(line_chart(dir, "empty2", 10, "$1 > 100"), (dir / "empty2.png").string());
  const auto after = charts.draw(line_chart(dir, "after", 10), (dir / "after.png").string());
  // A result asked for early: that chart and those before it, no more.
  CHECK_FALSE(charts.wait(empty1));
  const std::string first = log.text();
  CHECK_THAT(first, Catch::Contains("empty1.png not drawn: gnuplot failed on"));
  // gnuplot's own error follows, naming its script's line.
  CHECK_THAT(first, Catch::Contains("empty1.gp: \"" + (dir / "empty1.gp").string() + "\" line "));
  CHECK_THAT(first, !Catch::Contains("empty2"));
  charts.finish();
  CHECK(charts.wait(before));
  CHECK(charts.wait(middle));
  CHECK_FALSE(charts.wait(empty2));
  CHECK(charts.wait(after));
  // One warning per failed chart, in the order the charts were requested.
  const std::string all = log.text();
  REQUIRE(all.find("empty2.png not drawn") != std::string::npos);
  CHECK(all.find("empty1.png not drawn") < all.find("empty2.png not drawn"));
  CHECK(std::count(all.begin(), all.end(), '\n') == 2);
  for (const std::string name : {"before", "middle", "after"})
    CHECK(whole_png_file(dir / (name + ".png")));
  for (const std::string name : {"empty1", "empty2"})
    CHECK_FALSE(std::filesystem::exists(dir / (name + ".png")));
  CHECK(temporaries_in(dir).empty());
  CHECK(no_children());
}

TEST_CASE("a chart batch destroyed before finish() waits for its gnuplots and leaves no temporary",
          "[sim][chart]") {
  const auto dir = output_scratch("chart_early");
  const bool gnuplot = gnuplot_installed();
  CapturedLog log;
  SECTION("at the end of its scope") {
    {
      ssdtwin::ChartBatch charts;
      for (int k = 0; k < 6; ++k) {
        const std::string name = "c" + std::to_string(k);
        charts.draw(line_chart(dir, name, 50), (dir / (name + ".png")).string());
      }
    }
    CHECK(no_children());
    // Finished as finish() would have: the charts are in place.
    for (int k = 0; k < 6; ++k)
      CHECK(std::filesystem::exists(dir / ("c" + std::to_string(k) + ".png")) == gnuplot);
  }
  SECTION("while an exception unwinds the report") {
    try {
      ssdtwin::ChartBatch charts;
      for (int k = 0; k < 6; ++k) {
        const std::string name = "c" + std::to_string(k);
        charts.draw(line_chart(dir, name, 50), (dir / (name + ".png")).string());
      }
      // A result file that cannot be written, after the charts started.
      ssdtwin::write_output_file((dir / "no_such_folder" / "summary.json").string(), "{}");
      FAIL("no error");
    } catch (const ssdtwin::OutputError& e) {
      CHECK_THAT(e.what(), Catch::Contains("summary.json"));
    }
    CHECK(no_children());
  }
  CHECK(temporaries_in(dir).empty());
}

TEST_CASE("wait_for_file finishes the charts that read a file before it is rewritten",
          "[sim][chart]") {
  if (!gnuplot_installed()) return;
  const auto dir = output_scratch("chart_rewrite");
  CapturedLog log;
  ssdtwin::ChartBatch charts;
  const std::string png = (dir / "phase.png").string();
  const auto first = charts.draw(line_chart(dir, "phase", 10), png);
  const auto other = charts.draw(line_chart(dir, "other", 10), (dir / "other.png").string());
  charts.wait_for_file((dir / "phase.csv").string());
  // Finished: renamed into place, while the later chart may still draw.
  CHECK(whole_png_file(png));
  CHECK(charts.wait(first));
  // The same chart again (e.g. one per phase): the earlier one is done with
  // before its script and PNG are rewritten.
  const auto second = charts.draw(line_chart(dir, "phase", 20, "$1 > 100"), png);
  charts.finish();
  CHECK(charts.wait(other));
  CHECK_FALSE(charts.wait(second));
  // This run's chart failed: no earlier one passes for it.
  CHECK_FALSE(std::filesystem::exists(png));
  CHECK(temporaries_in(dir).empty());
  CHECK(no_children());
}

// ---------------------------------------------------------------------------
// FlatMap (sim/flat_map.h): open addressing, linear probing, backward-shift
// deletion.
#include <map>

#include "sim/flat_map.h"

namespace {

// The first `n` keys at or above `from` whose home bucket is `bucket`.
std::vector<std::uint32_t> keys_homed_at(const ssdtwin::FlatMap<std::uint32_t>& m,
                                         std::size_t bucket, std::size_t n,
                                         std::uint32_t from = 0) {
  std::vector<std::uint32_t> keys;
  for (std::uint32_t k = from; keys.size() < n && k - from < 1000000; ++k)
    if (m.home(k) == bucket) keys.push_back(k);
  REQUIRE(keys.size() == n);  // `bucket` is some key's home
  return keys;
}

}  // namespace

TEST_CASE("FlatMap inserts, finds and erases keys") {
  ssdtwin::FlatMap<std::uint32_t> m(4);
  CHECK(m.buckets() == 16);  // two blocks at the least
  CHECK(m.empty());
  CHECK(m.find(7) == nullptr);
  m.insert(7, 70);
  m.insert(0, 1);
  m.insert(123456789, 5);
  CHECK(m.size() == 3);
  REQUIRE(m.find(7) != nullptr);
  CHECK(*m.find(7) == 70);
  CHECK(*m.find(0) == 1);
  CHECK(*m.find(123456789) == 5);
  *m.find(7) = 71;
  CHECK(*m.find(7) == 71);
  CHECK(m.erase(7));
  CHECK_FALSE(m.erase(7));
  CHECK(m.find(7) == nullptr);
  CHECK(m.size() == 2);
  CHECK_THROWS_AS(m.insert(ssdtwin::FlatMap<std::uint32_t>::kEmpty, 0), std::logic_error);
  m.clear();
  CHECK(m.empty());
  CHECK(m.find(0) == nullptr);
}

TEST_CASE("FlatMap sized for n entries holds n without growing") {
  ssdtwin::FlatMap<std::uint32_t> m(1000);
  const std::size_t buckets = m.buckets();
  CHECK(buckets == 2048);
  // Half full and a 64th more: the limit.
  for (std::uint32_t k = 0; k < 1056; ++k) m.insert(k * 4, k);
  CHECK(m.buckets() == buckets);
  for (std::uint32_t k = 0; k < 1056; ++k) CHECK(*m.find(k * 4) == k);
  // One more and it doubles, keeping every entry.
  m.insert(1, 9);
  CHECK(m.buckets() == 2 * buckets);
  for (std::uint32_t k = 0; k < 1056; ++k) CHECK(*m.find(k * 4) == k);
  CHECK(*m.find(1) == 9);
  // A power of two of entries and a few more (a map cache's slots and its
  // pending erasures) fit in twice the power, not four times.
  CHECK(ssdtwin::FlatMap<std::uint32_t>((1u << 19) + 16).buckets() == (std::size_t{1} << 20));
}

TEST_CASE("FlatMap probe runs wrap around the end of the table") {
  ssdtwin::FlatMap<std::uint32_t> m(16);  // 32 buckets
  std::size_t last_home = 0;
  for (std::uint32_t k = 0; k < 4096; ++k) last_home = std::max(last_home, m.home(k));
  // Keys homed at the last home bucket fill the table to its end; three
  // more wrap to buckets 0, 1 and 2.
  const std::size_t to_end = m.buckets() - last_home;
  const auto k = keys_homed_at(m, last_home, to_end + 3);
  for (std::uint32_t i = 0; i < k.size(); ++i) m.insert(k[i], i);
  for (std::uint32_t i = 0; i < k.size(); ++i) CHECK(*m.find(k[i]) == i);
  std::vector<std::uint32_t> order;
  m.for_each([&](std::uint32_t key, std::uint32_t) { order.push_back(key); });
  REQUIRE(order.size() == k.size());
  CHECK(order.front() == k[to_end]);  // bucket 0
  // Erasing the first shifts the run back across the end.
  CHECK(m.erase(k[0]));
  CHECK(m.find(k[0]) == nullptr);
  for (std::uint32_t i = 1; i < k.size(); ++i) CHECK(*m.find(k[i]) == i);
  order.clear();
  m.for_each([&](std::uint32_t key, std::uint32_t) { order.push_back(key); });
  // Each moved one bucket back: k[to_end] from bucket 0 to the last one.
  std::vector<std::uint32_t> expected(k.begin() + to_end + 1, k.end());
  expected.insert(expected.end(), k.begin() + 1, k.begin() + to_end + 1);
  CHECK(order == expected);
}

TEST_CASE("FlatMap backward shift moves only entries the hole would strand") {
  ssdtwin::FlatMap<std::uint32_t> m(4);   // 16 buckets
  const auto a = keys_homed_at(m, 2, 2);  // -> buckets 2 and 3
  const auto c = keys_homed_at(m, 4, 1);  // home 4 -> bucket 4: stays when 2 empties
  const auto d = keys_homed_at(m, 3, 1);  // home 3 -> bucket 5 (3 and 4 taken): moves
  m.insert(a[0], 0);
  m.insert(a[1], 1);
  m.insert(c[0], 2);
  m.insert(d[0], 3);
  CHECK(m.erase(a[0]));
  // a[1] moves into bucket 2, d into bucket 3; c stays in its home.
  std::vector<std::uint32_t> order;
  m.for_each([&](std::uint32_t key, std::uint32_t) { order.push_back(key); });
  CHECK(order == std::vector<std::uint32_t>{a[1], d[0], c[0]});
  CHECK(*m.find(a[1]) == 1);
  CHECK(*m.find(c[0]) == 2);
  CHECK(*m.find(d[0]) == 3);
  // Erasing an entry whose successor is at home leaves the successor alone.
  CHECK(m.erase(d[0]));
  CHECK(*m.find(c[0]) == 2);
  CHECK(*m.find(a[1]) == 1);
  CHECK(m.size() == 2);
}

TEST_CASE("FlatMap inserts a missed key where the miss ended, unless the table changed since") {
  ssdtwin::FlatMap<std::uint32_t> m(4);   // 16 buckets
  const auto a = keys_homed_at(m, 2, 4);  // a[0..2] -> buckets 2, 3, 4; a[3] probes on
  const auto c = keys_homed_at(m, 5, 1);
  auto order = [&] {
    std::vector<std::uint32_t> o;
    m.for_each([&](std::uint32_t key, std::uint32_t) { o.push_back(key); });
    return o;
  };
  for (std::uint32_t i = 0; i < 3; ++i) m.insert(a[i], i);
  // The miss ends on bucket 5; the insert that follows goes there.
  CHECK(m.find(a[3]) == nullptr);
  m.insert(a[3], 3);
  CHECK(order() == std::vector<std::uint32_t>{a[0], a[1], a[2], a[3]});
  CHECK(m.erase(a[3]));
  // An erase since the miss opens a hole earlier in the run (bucket 4):
  // the insert must land there, or finds would stop at the hole.
  CHECK(m.find(a[3]) == nullptr);
  CHECK(m.erase(a[0]));
  m.insert(a[3], 3);
  CHECK(order() == std::vector<std::uint32_t>{a[1], a[2], a[3]});
  CHECK(*m.find(a[3]) == 3);
  // Another key inserted since the miss takes the bucket it ended on.
  CHECK(m.erase(a[3]));
  CHECK(m.find(a[3]) == nullptr);  // ends on bucket 4
  const auto b = keys_homed_at(m, 4, 1);
  m.insert(b[0], 7);
  m.insert(a[3], 3);
  CHECK(*m.find(b[0]) == 7);
  CHECK(*m.find(a[3]) == 3);
  m.insert(c[0], 9);
  CHECK(*m.find(c[0]) == 9);
  CHECK(m.size() == 5);
}

TEST_CASE("FlatMap agrees with std::map over random inserts and erases in a crowded table") {
  ssdtwin::Rng rng(42);
  ssdtwin::FlatMap<std::uint32_t> m(32);  // 64 buckets, kept at most half full
  std::map<std::uint32_t, std::uint32_t> ref;
  for (int step = 0; step < 200000; ++step) {
    // Few distinct keys, so runs form, wrap and get erased from inside.
    const std::uint32_t key = static_cast<std::uint32_t>(rng.below(96)) * 0x10001u;
    const auto it = ref.find(key);
    if (it == ref.end()) {
      if (ref.size() < 32) {
        if (step % 3 != 0) REQUIRE(m.find(key) == nullptr);  // a miss, then its insert
        m.insert(key, static_cast<std::uint32_t>(step));
        ref.emplace(key, static_cast<std::uint32_t>(step));
      }
    } else {
      REQUIRE(m.erase(key));
      ref.erase(it);
    }
    if (step % 97 == 0) {
      REQUIRE(m.size() == ref.size());
      for (std::uint32_t k = 0; k < 96; ++k) {
        const std::uint32_t key2 = k * 0x10001u;
        const auto r = ref.find(key2);
        const std::uint32_t* v = m.find(key2);
        REQUIRE((v != nullptr) == (r != ref.end()));
        if (v) REQUIRE(*v == r->second);
      }
    }
  }
  CHECK(m.buckets() == 64);
}

// CacheAllocator (sim/cache_allocator.h): where its blocks start, and that a
// huge-page-sized table (a 512 K-entry map cache's hash) works as any other.
#include "sim/cache_allocator.h"
#include "sim/zero_array.h"

TEST_CASE("CacheAllocator puts blocks on cache lines, and large ones on 2 MiB boundaries") {
  std::vector<std::uint64_t, ssdtwin::CacheAllocator<std::uint64_t>> small(3, 7);
  CHECK(reinterpret_cast<std::uintptr_t>(small.data()) % 64 == 0);
  std::vector<std::uint64_t, ssdtwin::CacheAllocator<std::uint64_t>> large(std::size_t{1} << 19, 7);
  CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % (std::size_t{2} << 20) == 0);
  CHECK(large.back() == 7);
  large.back() = 9;
  small = decltype(small)(large.begin(), large.end());  // freed and allocated across the threshold
  CHECK(small.size() == large.size());
  CHECK(small.back() == 9);
}

TEST_CASE(
    "ZeroArray filled from the front starts on a 2 MiB boundary, reads zero, and moves whole") {
  using ssdtwin::ZeroArray;
  struct Pair {
    std::uint32_t a, b;
  };
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t n = kHuge / sizeof(Pair) + 1000;  // a huge page and a tail of base pages
  ZeroArray<Pair> front(n, ZeroArray<Pair>::Fill::kFromFront);
  CHECK(reinterpret_cast<std::uintptr_t>(front.data()) % kHuge == 0);
  CHECK(front.size() == n);
  CHECK(front[0].a == 0);
  CHECK(front[n - 1].b == 0);  // the last entry is inside the mapping
  front[0] = Pair{1, 2};
  front[n - 1] = Pair{3, 4};
  ZeroArray<Pair> moved(std::move(front));
  CHECK(front.size() == 0);
  CHECK(moved[0].b == 2);
  CHECK(moved[n - 1].a == 3);
  moved.clear();
  CHECK(moved[n - 1].a == 0);
  // A small one: no alignment.
  ZeroArray<Pair> small(10, ZeroArray<Pair>::Fill::kFromFront);
  small[9].a = 5;
  CHECK(small[9].a == 5);
}

TEST_CASE("ZeroArray written in runs maps a stretch at its first announced write") {
  using ssdtwin::ZeroArray;
  using Entries = ZeroArray<std::uint32_t>;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  constexpr std::size_t kStretch = std::size_t{64} << 10;
  // Pages of [p, p + bytes) the process has mapped (mincore).
  auto resident = [&](const void* p, std::size_t bytes) {
    const auto a = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    const std::size_t len = reinterpret_cast<std::uintptr_t>(p) + bytes - a;
    std::vector<unsigned char> v((len + page - 1) / page);
    REQUIRE(::mincore(reinterpret_cast<void*>(a), len, v.data()) == 0);
    return static_cast<std::size_t>(
        std::count_if(v.begin(), v.end(), [](unsigned char c) { return c & 1; }));
  };
  const std::size_t per = kStretch / sizeof(std::uint32_t);
  const std::size_t n = 40 * per + 123;  // past 2 MiB (aligned), and a partial last stretch
  for (const std::size_t skew : {std::size_t{0}, std::size_t{256}}) {
    Entries runs(n, Entries::Fill::kInRuns, skew);
    const std::size_t third = 3 * per;
    REQUIRE(resident(&runs[third], kStretch - skew) == 0);
    runs.will_write(third + 5);
    // The stretch (from a 64 KiB boundary of the mapping, skew before the
    // elements) is mapped: on a kernel without MADV_POPULATE_WRITE, none is.
    const std::size_t mapped = resident(&runs[third], kStretch - skew);
    CHECK((mapped == 0 || mapped == kStretch / page));
    CHECK(resident(&runs[7 * per], 4) == 0);  // another stretch is not
    for (std::size_t i = third; i < third + per; ++i) REQUIRE(runs[i] == 0);
    runs[third + 5] = 9;
    runs.will_write(third + 6);  // again: nothing changes
    CHECK(runs[third + 5] == 9);
    runs.will_write(n - 1);  // the last, partial stretch
    runs[n - 1] = 4;
    CHECK(runs[n - 1] == 4);
    Entries moved(std::move(runs));
    CHECK(moved[third + 5] == 9);
    moved.clear();  // back to zero, and its stretches mapped again when announced
    CHECK(moved[third + 5] == 0);
    moved.will_write(third);
    moved[third] = 2;
    CHECK(moved[third] == 2);
  }
  {
    // A range announced at once maps each stretch it touches, no others.
    Entries range(n, Entries::Fill::kInRuns);
    range.will_write(2 * per - 3, per + 6);  // the last 3 of stretch 1, all of 2, 3 of 3
    for (const std::size_t s : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
      const std::size_t mapped = resident(&range[s * per], kStretch);
      CHECK((mapped == 0 || mapped == kStretch / page));
    }
    CHECK(resident(&range[0], kStretch) == 0);
    CHECK(resident(&range[4 * per], kStretch) == 0);
    range.will_write(5 * per, 0);  // nothing
    CHECK(resident(&range[5 * per], kStretch) == 0);
    for (std::size_t i = 2 * per - 3; i < 3 * per + 3; ++i) range[i] = 1;
    CHECK(range[3 * per + 2] == 1);
  }
  Entries tiny(3, Entries::Fill::kInRuns);  // smaller than a page
  tiny.will_write(2);
  tiny[2] = 1;
  CHECK(tiny[2] == 1);
}

TEST_CASE("ZeroArray written at random keeps every value, skewed or not") {
  using ssdtwin::ZeroArray;
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  using Entries = ZeroArray<std::uint32_t>;
  constexpr std::size_t kPerHugePage = kHuge / sizeof(std::uint32_t);
  const std::size_t n = 2 * kPerHugePage + 100;  // two huge pages and a tail
  Entries plain(n);
  CHECK(reinterpret_cast<std::uintptr_t>(plain.data()) % kHuge == 0);  // whatever the fill
  const std::size_t second = kPerHugePage;
  for (std::size_t i = second; i < 2 * second; i += 4096) plain[i] = static_cast<std::uint32_t>(i);
  plain[n - 1] = 11;
  for (std::size_t i = second; i < 2 * second; ++i)
    if (plain[i] != (i % 4096 == 0 ? i : 0)) FAIL_CHECK("entry " << i << " is " << plain[i]);
  CHECK(plain[0] == 0);
  CHECK(plain[n - 1] == 11);
  // Skewed half a page into its mapping: every element still inside it,
  // and a clear still keeps to the array.
  Entries skewed(n, Entries::Fill::kRandom, 2048);
  CHECK(reinterpret_cast<std::uintptr_t>(skewed.data()) % 4096 == 2048);
  skewed[0] = 1;
  skewed[second] = 2;
  skewed[n - 1] = 3;
  skewed[second + 1] = 4;
  CHECK(skewed[0] == 1);
  CHECK(skewed[second] == 2);
  CHECK(skewed[second + 1] == 4);
  CHECK(skewed[n - 1] == 3);
  skewed.clear();
  CHECK(skewed[0] == 0);
  CHECK(skewed[n - 1] == 0);
  CHECK_THROWS_AS(Entries(n, Entries::Fill::kRandom, 4096), std::invalid_argument);
}

TEST_CASE("FlatMap on huge-page buckets: a sequential run's keys erased in order") {
  // A per-entry map cache's pattern: whole groups inserted, then erased
  // oldest first, so every erase walks to the end of a full group.
  ssdtwin::FlatMap<std::uint32_t> m(std::size_t{1} << 19);
  REQUIRE(m.buckets() * 8 >= (std::size_t{2} << 20));  // the allocator's huge-page size
  const std::uint32_t n = 1u << 19;
  for (std::uint32_t k = 0; k < n; ++k) m.insert(k, k ^ 0x5a5a5a5au);
  for (std::uint32_t k = 0; k < n; ++k) {
    if (k % 4096 == 0) m.prefetch_erase(k);
    REQUIRE(m.erase(k));
    if (k + 1 < n && k % 1021 == 0) {
      const std::uint32_t* v = m.find(k + 1);
      REQUIRE(v != nullptr);
      CHECK(*v == ((k + 1) ^ 0x5a5a5a5au));
      CHECK(m.find(k) == nullptr);
    }
  }
  CHECK(m.empty());
}

TEST_CASE("a figure rounded to N places is the double nearest that decimal, and prints as it") {
  // The text of k / 10^places with its trailing zeros dropped, from integers alone.
  auto decimal = [](std::uint64_t k, int places) {
    std::string digits = std::to_string(k);
    if (digits.size() <= static_cast<std::size_t>(places))
      digits.insert(0, static_cast<std::size_t>(places) + 1 - digits.size(), '0');
    std::string text =
        digits.substr(0, digits.size() - places) + "." + digits.substr(digits.size() - places);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
  };
  for (const int places : {2, 3, 6}) {
    double scale = 1;
    for (int i = 0; i < places; ++i) scale *= 10;
    for (std::uint64_t k = 1'700'000; k < 1'702'000; ++k) {
      // A little above and below the decimal, as a measured figure would be.
      for (const double off : {0.2, -0.2}) {
        const double v = (static_cast<double>(k) + off) / scale;
        INFO(places << " places, " << v);
        REQUIRE(csv_number(round_decimals(v, places)) == decimal(k, places));
      }
    }
  }
  CHECK(csv_number(round_decimals(17008.1712, 2)) == "17008.17");
  CHECK(csv_number(0.1) == "0.1");
  CHECK(csv_number(1e-7) == "1e-07");
  CHECK(csv_number(3.0) == "3");
}

TEST_CASE("printf_number writes what printf's %.Nf and %.Ng write") {
  // timeseries.csv kept its text when it left printf: byte totals, rates,
  // levels, halves (printf rounds them to even), signs, the tiny and the huge.
  std::vector<double> values = {0.0,        -0.0,    0.5,   1.5,         2.5,       -2.5,
                                1e-7,       0.1,     0.125, 12345.678,   1e10,      6.0e12 + 0.5,
                                9.87654e15, 1.0e300, -3.25, 123456789.5, 0.00012345};
  std::uint64_t x = 42;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double mant = static_cast<double>(x >> 11) / 9007199254740992.0;  // [0, 1)
    const int exp = static_cast<int>((x >> 3) % 40) - 12;
    values.push_back((x & 1 ? -1 : 1) * mant * std::pow(10.0, exp));
  }
  char got[512], want[512];
  for (const double v : values)
    for (const bool fixed : {true, false})
      for (const int precision : {0, 1, 4, 6}) {
        std::snprintf(want, sizeof want, fixed ? "%.*f" : "%.*g", precision, v);
        INFO(v << (fixed ? " f" : " g") << precision);
        REQUIRE(std::string(ssdtwin::printf_number(v, fixed, precision, got, sizeof got)) ==
                std::string(want));
      }
  // Past the buffer: cut as snprintf cuts.
  char small[8];
  CHECK(std::string(ssdtwin::printf_number(1e20, true, 0, small, sizeof small)) == "1000000");
}

TEST_CASE("PrintfLine writes what one snprintf writes, cut where it cuts") {
  // latency_hist.csv's row: "%s,%s,%.3f,%llu,%.7f,%.7f\n", into buffers from
  // roomy down to one byte, so that every field gets cut somewhere.
  std::uint64_t x = 7;
  const std::string names[] = {"r1", "a phase with a long name", std::string(300, 'p')};
  for (int i = 0; i < 300; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double us = static_cast<double>(x >> 20) / 1024.0;
    const double share = static_cast<double>(x >> 11) / 9007199254740992.0;
    const unsigned long long n = x >> (x & 63);
    const std::string& name = names[i % 3];
    for (const std::size_t size : {std::size_t{512}, std::size_t{256}, std::size_t{40},
                                   std::size_t{17}, std::size_t{3}, std::size_t{1}}) {
      std::vector<char> want(size), buf(size);
      const int w = std::snprintf(want.data(), size, "%s,%s,%.3f,%llu,%.7f,%.7f\n", name.c_str(),
                                  "read", us, n, share, 1.0 - share);
      ssdtwin::PrintfLine line(buf.data(), size);
      line.text(name).text(",").text("read").text(",").fixed(us, 3).text(",");
      line.whole(n).text(",").fixed(share, 7).text(",").fixed(1.0 - share, 7).text("\n");
      INFO(name.size() << " " << us << " " << n << " " << share << " in " << size);
      REQUIRE(w > 0);
      REQUIRE(std::string(line.view()) ==
              std::string(want.data(), std::min(static_cast<std::size_t>(w), size - 1)));
    }
  }
  // %g, and a number that fills the buffer to its last byte
  char buf[6];
  ssdtwin::PrintfLine g(buf, sizeof buf);
  CHECK(std::string(g.general(0.000123456, 3).view()) == "0.000");
  ssdtwin::PrintfLine f(buf, sizeof buf);
  CHECK(std::string(f.fixed(123456.0, 0).view()) == "12345");
  CHECK_THROWS_AS(ssdtwin::PrintfLine(buf, 0), std::invalid_argument);
}
