#include "sim/timeseries.h"

#include <stdexcept>
#include <string>

namespace ssdtwin {

void check_interval_index(std::size_t i, Tick interval) {
  if (i < kMaxIntervals) return;
  throw std::length_error("simulated time reached interval " + std::to_string(i) +
                          " of the phase's time series (" + std::to_string(interval) +
                          " ns each), past the limit of " + std::to_string(kMaxIntervals) +
                          " rows: a far-future trace timestamp (see the trace's time_scale) or a "
                          "workload.timeseries.interval too small for the phase");
}

void IntervalLatencySeries::record(Tick t, Tick latency) {
  const auto i = static_cast<std::size_t>((t - start_) / interval_);
  if (i > open_) check_interval_index(i, interval_);
  // Intervals with no completion get a row of zeros, so row k is interval k.
  while (open_ < i) {
    fold();
    ++open_;
  }
  hist_.record(latency);
}

void IntervalLatencySeries::close() {
  if (hist_.count() == 0) return;
  fold();
  ++open_;
}

void IntervalLatencySeries::fold() {
  Row r;
  r.count = hist_.count();
  if (r.count > 0) {
    r.p50 = hist_.percentile(0.50);
    r.p99 = hist_.percentile(0.99);
    r.max = hist_.max();
  }
  rows_.push_back(r);
  hist_.clear();
}

}  // namespace ssdtwin
