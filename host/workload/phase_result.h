// What a phase measured on the host side: latency per op, counts, and the
// series the results writer draws. Filled by the IO generator (synthetic
// jobs) or the trace replay.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/histogram.h"
#include "sim/steady_state.h"
#include "sim/time.h"
#include "sim/timeseries.h"

namespace ssdtwin {

struct PhaseResult {
  static constexpr int kOps = 3;  // indexed by IoOp
  LatencyHistogram latency[kOps];
  std::uint64_t ios[kOps] = {};
  std::uint64_t bytes[kOps] = {};
  Tick start = 0, end = 0;
  // IOs of every op per second over [start, end] (0 for a phase with no time).
  double iops() const {
    std::uint64_t n = 0;
    for (int op = 0; op < kOps; ++op) n += ios[op];
    const double secs = to_seconds(end - start);
    return secs > 0 ? static_cast<double>(n) / secs : 0.0;
  }
  std::unique_ptr<IntervalSeries> series;
  std::unique_ptr<ByteStepSeries> by_bytes;
  // Phases with report: latency: latency percentiles per series interval.
  std::unique_ptr<IntervalLatencySeries> interval_latency;
  // Phases with report: bandwidth: when each range's worth of writes (a
  // pass over the range) completed.
  std::unique_ptr<ByteStepSeries> passes;
  // Phases with until_steady: IOPS per round and the round that was steady.
  std::unique_ptr<SteadyStateMonitor> steady;
  // Most commands the device held at once (the rest of iodepth waited on the
  // host: SATA NCQ holds 32).
  std::uint32_t peak_device_qd = 0;
  // Open-loop phases: the offered rate, each IO's wait on the host from its
  // arrival to its issue (apart from `latency`, issue to completion), and
  // the arrivals still waiting on the host when the phase ended.
  double offered_iops = 0;
  LatencyHistogram queue_delay[kOps];
  std::uint64_t arrivals = 0;
  std::uint64_t left_on_host = 0;
};

}  // namespace ssdtwin
