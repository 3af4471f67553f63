// Throughput and latency over simulated time, and throughput over data
// written (review fill curves are drawn per GB written, not per second).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/histogram.h"
#include "sim/time.h"

namespace ssdtwin {

// Per-interval series hold one row per interval from the phase's start. A
// phase longer than this many intervals (a trace record with a far-future
// timestamp, a tiny workload.timeseries.interval) is stopped with an error
// naming the interval, instead of allocating rows for all of it: 10 M rows
// are 116 days at 1 s, or 2.8 hours at 1 ms.
constexpr std::size_t kMaxIntervals = 10'000'000;

// Throws std::length_error for interval index `i` past kMaxIntervals.
void check_interval_index(std::size_t i, Tick interval);

// The bin of fixed-interval `bins` (from `start`) that time `t` falls in,
// the vector grown to it (bins are added as time reaches them).
template <class Bin>
Bin& interval_bin(std::vector<Bin>& bins, Tick start, Tick interval, Tick t) {
  const std::size_t i = static_cast<std::size_t>((t - start) / interval);
  if (i >= bins.size()) {
    check_interval_index(i, interval);
    bins.resize(i + 1);
  }
  return bins[i];
}

// A level sampled alongside a series (e.g. SLC cache occupancy).
class Gauge {
 public:
  virtual ~Gauge() = default;
  virtual double value() const = 0;
};

// Bytes and operations completed per fixed interval, for a few op classes,
// and the last value of a gauge seen in each interval.
class IntervalSeries {
 public:
  static constexpr int kOps = 3;  // read, write, trim
  struct Bin {
    std::uint64_t bytes[kOps] = {};
    std::uint64_t ios[kOps] = {};
    double gauge = 0;
  };

  IntervalSeries(Tick start, Tick interval) : start_(start), interval_(interval) {}
  void add(Tick t, int op, std::uint64_t bytes) {
    Bin& b = interval_bin(bins_, start_, interval_, t);
    b.bytes[op] += bytes;
    ++b.ios[op];
  }
  void set_gauge(Tick t, double v) { interval_bin(bins_, start_, interval_, t).gauge = v; }
  const std::vector<Bin>& bins() const { return bins_; }
  Tick interval() const { return interval_; }
  Tick start() const { return start_; }

 private:
  Tick start_;
  Tick interval_;
  std::vector<Bin> bins_;
};

// Latency percentiles per fixed interval (e.g. p99 per second of a 2000 s
// run). One histogram is reused: when an interval closes, its p50, p99 and
// max are folded into a row and the histogram is cleared. Memory is one row
// per interval, whatever the IO count; recording never allocates (the row
// list grows once per interval).
class IntervalLatencySeries {
 public:
  struct Row {
    std::uint64_t count = 0;  // commands completed in the interval (0: no latencies)
    Tick p50 = 0, p99 = 0, max = 0;
  };

  IntervalLatencySeries(Tick start, Tick interval) : start_(start), interval_(interval) {}
  // A command that completed at `t` (>= start) after `latency`. Times must
  // not go back past a closed interval (completions arrive in time order).
  void record(Tick t, Tick latency);
  // Folds the open interval if it holds any sample; call once the last
  // command has completed (no record() after it).
  void close();
  // One row per interval from the start, up to the last one with a sample.
  const std::vector<Row>& rows() const { return rows_; }
  Tick interval() const { return interval_; }

 private:
  void fold();

  Tick start_;
  Tick interval_;
  std::size_t open_ = 0;  // index of the interval `hist_` holds
  LatencyHistogram hist_;
  std::vector<Row> rows_;
};

// Values of the model sampled at interval boundaries (running totals such
// as pages moved by GC, and levels such as free blocks), for the per-interval
// activity columns of timeseries.csv. Sampling at boundaries, not per IO,
// means a second with no completion (a GC stall) still gets its row. The
// caller polls due() after each event, so the sample is the state at the
// first event at or after the boundary; an idle gap that crosses several
// boundaries repeats that sample.
class BoundarySampler {
 public:
  BoundarySampler(Tick start, Tick interval, std::size_t width)
      : next_(start + interval), interval_(interval), width_(width) {}
  bool due(Tick now) const { return now >= next_; }
  Tick next() const { return next_; }  // the next boundary
  // Appends `values` (width() of them) for every boundary up to `now`.
  void take(Tick now, const double* values) {
    if (now >= next_)
      check_interval_index(rows() + static_cast<std::size_t>((now - next_) / interval_), interval_);
    while (now >= next_) {
      rows_.insert(rows_.end(), values, values + width_);
      next_ += interval_;
    }
  }
  // An extra sample: the one at the start (row 0) and the one at the end
  // of the phase (its last, partial interval).
  void push(const double* values) { rows_.insert(rows_.end(), values, values + width_); }
  std::size_t width() const { return width_; }
  std::size_t rows() const { return width_ ? rows_.size() / width_ : 0; }
  // Sample k: row 0 at the start, row k + 1 at the end of interval k.
  const double* row(std::size_t k) const { return rows_.data() + k * width_; }

 private:
  Tick next_;
  Tick interval_;
  std::size_t width_;
  std::vector<double> rows_;
};

// The time at which each successive `step` bytes of writes completed.
class ByteStepSeries {
 public:
  ByteStepSeries(Tick start, std::uint64_t step) : start_(start), step_(step) {}
  void add(Tick t, std::uint64_t bytes) {
    if (step_ == 0) return;
    total_ += bytes;
    while (total_ >= (ends_.size() + 1) * step_) ends_.push_back(t);
  }
  std::uint64_t step() const { return step_; }
  // Segment k spans bytes [k*step, (k+1)*step); its rate in bytes/s.
  std::size_t segments() const { return ends_.size(); }
  double rate(std::size_t k) const {
    const Tick begin = k == 0 ? start_ : ends_[k - 1];
    const Tick d = ends_[k] - begin;
    return d == 0 ? 0.0 : static_cast<double>(step_) * 1e9 / static_cast<double>(d);
  }

 private:
  Tick start_;
  std::uint64_t step_;
  std::uint64_t total_ = 0;
  std::vector<Tick> ends_;
};

}  // namespace ssdtwin
