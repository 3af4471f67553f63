// Events per second through EventEngine alone, the way the drive uses it:
// PENDING events pending, each handler scheduling mostly one follow-up
// (sometimes none, sometimes two, keeping the number pending near PENDING)
// at a delay drawn like the MQSim GC rows' (half within 3 us, most of the
// rest within 150 us, a tenth near 800 us). TOUCH_KIB > 0 reads 8 random
// cache lines of a buffer that large per event, standing in for the FTL's
// tables that push the engine's lines out of cache between events.
//
//   build/bench/bench_event_engine [PENDING] [EVENTS_M] [TOUCH_KIB]   default: 70, 20 M, 0
//
// The whole-drive rows (bench/mqsim_rows.sh) are the measure that counts;
// this isolates the engine to compare heap layouts quickly.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/event_engine.h"
#include "sim/rng.h"

namespace {

using namespace ssdtwin;

class HoldModel : public EventTarget {
 public:
  HoldModel(EventEngine& engine, std::size_t pending, std::size_t touch_kib)
      : engine_(engine), pending_(pending), buffer_(touch_kib * 1024 / sizeof(std::uint64_t)) {}

  void on_event(std::uint32_t kind, std::uint64_t arg) override {
    sum_ += kind + arg;
    if (!buffer_.empty()) {
      for (int i = 0; i < 8; ++i) sum_ += buffer_[rng_.below(buffer_.size())];
    }
    const std::uint64_t r = rng_.below(100);
    const int follow_ups = r < 80 ? 1 : engine_.pending() < pending_ ? 2 : 0;
    for (int i = 0; i < follow_ups; ++i) schedule();
  }

  void schedule() {
    const std::uint64_t r = rng_.below(10);
    const Tick delay = r < 5   ? rng_.below(3000)
                       : r < 9 ? 1000 + rng_.below(150000)
                               : 700000 + rng_.below(200000);
    engine_.schedule_in(delay, this, static_cast<std::uint32_t>(r), ++id_);
  }

  std::uint64_t sum() const { return sum_; }

 private:
  EventEngine& engine_;
  std::size_t pending_;
  std::vector<std::uint64_t> buffer_;
  Rng rng_{7};
  std::uint64_t id_ = 0;
  std::uint64_t sum_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t pending = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 70;
  const std::uint64_t events = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20) * 1000000;
  const std::size_t touch_kib = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  double best = 1e30;
  std::uint64_t check = 0;
  for (int run = 0; run < 3; ++run) {
    EventEngine engine;
    HoldModel model(engine, pending, touch_kib);
    for (std::size_t i = 0; i < pending; ++i) model.schedule();
    const auto t0 = std::chrono::steady_clock::now();
    engine.run_until([&] { return engine.events_executed() >= events; });
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    check = model.sum() ^ engine.now();
  }
  std::printf(
      "pending %zu, touch %zu KiB: %.1f M events/s, %.2f ns/event (best of 3; check %016llx)\n",
      pending, touch_kib, events / best / 1e6, best * 1e9 / events,
      static_cast<unsigned long long>(check));
  return 0;
}
