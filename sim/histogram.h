// Latency histogram with log-linear buckets (as HdrHistogram does): exact
// below 64 ns, then 32 buckets per power of two (at most 3.1% wide, so a
// bucket midpoint is within 1.6% of any value in it) up to ~18 minutes, in a
// fixed 9 KiB: recording is O(1) and never allocates, and percentiles need
// no sorted list of every IO.
#pragma once

#include <array>
#include <cstdint>

#include "sim/time.h"

namespace ssdtwin {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr int kMaxExp = 40;  // values >= 2^40 ns land in the last bucket
  static constexpr std::size_t kBuckets =
      (std::size_t{1} << kSubBits) + (kMaxExp - kSubBits) * (std::size_t{1} << (kSubBits - 1));

  void record(Tick value) {
    ++counts_[bucket_of(value)];
    ++count_;
    sum_ += static_cast<double>(value);
    if (value > max_) max_ = value;
    if (count_ == 1 || value < min_) min_ = value;
  }
  void merge(const LatencyHistogram& other);
  void clear() { *this = LatencyHistogram(); }

  std::uint64_t count() const { return count_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  Tick max() const { return max_; }
  Tick min() const { return count_ ? min_ : 0; }
  // Value at quantile q in [0,1]: the midpoint of the bucket holding it,
  // clamped to [min, max].
  Tick percentile(double q) const;

  // Share of the values below `t` (within a bucket, values are taken as
  // spread evenly, so the error is at most one bucket's count).
  double share_below(Tick t) const;
  std::uint64_t bucket_count(std::size_t b) const { return counts_[b]; }

  static std::size_t bucket_of(Tick v);
  static Tick bucket_low(std::size_t b);
  static Tick bucket_high(std::size_t b);  // exclusive

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  Tick max_ = 0;
  Tick min_ = 0;
};

}  // namespace ssdtwin
