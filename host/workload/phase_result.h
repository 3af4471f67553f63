// What a phase measured on the host side: latency per op, counts, and the
// series the results writer draws. Filled by the IO generator (synthetic
// jobs) or the trace replay.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ftl/host_command.h"
#include "sim/histogram.h"
#include "sim/steady_state.h"
#include "sim/time.h"
#include "sim/timeseries.h"

namespace ssdtwin {

// Bytes, IOs and latency summed per fixed interval from a start time, per
// op (fio's bandwidth and IOPS samples, and its averaged logs). A row per
// interval, added as time reaches it: no allocation per IO.
struct IntervalTotals {
  static constexpr int kOps = 3;
  struct Bin {
    std::uint64_t bytes[kOps] = {};
    std::uint64_t ios[kOps] = {};
    double latency_ns[kOps] = {};
  };
  Tick start = 0, interval = 0;  // interval 0: not kept
  std::vector<Bin> bins;
  void add(Tick t, int op, std::uint64_t b, Tick latency) {
    if (interval == 0 || t < start) return;
    Bin& bin = interval_bin(bins, start, interval, t);
    bin.bytes[op] += b;
    ++bin.ios[op];
    bin.latency_ns[op] += static_cast<double>(latency);
  }
};

// What one stream of a phase (an fio job) measured, for fio's per-job output.
struct StreamResult {
  static constexpr int kOps = 3;
  LatencyHistogram latency[kOps];
  std::uint64_t ios[kOps] = {};
  std::uint64_t bytes[kOps] = {};
  Tick start = 0,
       end = 0;  // the measured window: after startdelay and ramp, to the last completion
  std::uint64_t syncs = 0;  // fsync/fdatasync (and end_fsync): Flush commands completed
  LatencyHistogram sync_latency;
  // Commands outstanding when each IO was issued, by fio's iodepth_level
  // buckets: 1, 2, 4, 8, 16, 32, >=64.
  std::uint64_t depth_levels[7] = {};
  IntervalTotals samples;  // fio's bw/iops samples (bwavgtime)
  IntervalTotals log;      // write_*_log rows (log_avg_msec)
};

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
  // Flush commands (flush_every, end_flush) and FUA writes measured, with
  // their latency from issue to completion (FUA writes are in
  // latency[kWrite] too).
  std::uint64_t flushes = 0, fua_writes = 0;
  LatencyHistogram flush_latency, fua_latency;
  // Commands the drive held when power failed (issued again after it came back).
  std::uint64_t lost_to_power_cuts = 0;
  // Time with at least one of the phase's commands issued and not yet
  // complete (what a host's disk statistics call busy: fio's disk_util).
  Tick busy = 0;
  // Phases with stream_results: one per stream (PhaseSpec::stream(k)).
  std::vector<StreamResult> streams;
  // Zoned namespaces. Commands the drive failed, by status (not in `ios`,
  // `bytes` or `latency`); Zone Management Send commands and their latency
  // (a reset's is its erases); each Zone Append's LBA as its completion
  // returned it, in completion order (the first kAppendLog of the phase);
  // and, on a zone_log phase, the bytes the host's log wrote for the user
  // and those its garbage collection copied.
  std::uint64_t errors[kCmdStatuses] = {};
  std::uint64_t zone_mgmt = 0;
  LatencyHistogram zone_mgmt_latency;
  static constexpr std::size_t kAppendLog = 1 << 20;
  std::vector<std::uint64_t> append_lbas;
  std::uint64_t log_user_bytes = 0, log_gc_bytes = 0, log_zone_resets = 0;
};

}  // namespace ssdtwin
