#include "sim/timeseries.h"

namespace ssdtwin {

void IntervalLatencySeries::record(Tick t, Tick latency) {
  const auto i = static_cast<std::size_t>((t - start_) / interval_);
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
