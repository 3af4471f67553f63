#include "sim/histogram.h"

#include <algorithm>

namespace ssdtwin {

namespace {
constexpr std::uint64_t kSub = std::uint64_t{1} << LatencyHistogram::kSubBits;
constexpr std::uint64_t kHalf = kSub / 2;
}  // namespace

// Values below 2^kSubBits have one bucket each. Above, each power of two
// [2^e, 2^(e+1)) is split into kSub/2 equal buckets.
std::size_t LatencyHistogram::bucket_of(Tick v) {
  if (v < kSub) return static_cast<std::size_t>(v);
  const int e = 63 - __builtin_clzll(v);  // e >= kSubBits
  if (e >= kMaxExp) return kBuckets - 1;
  const std::uint64_t sub = (v >> (e - (kSubBits - 1))) - kHalf;  // 0..kHalf-1
  return static_cast<std::size_t>(kSub + static_cast<std::uint64_t>(e - kSubBits) * kHalf + sub);
}

Tick LatencyHistogram::bucket_low(std::size_t b) {
  if (b < kSub) return b;
  const std::uint64_t i = b - kSub;
  const int e = static_cast<int>(i / kHalf) + kSubBits;
  const std::uint64_t sub = i % kHalf;
  return (kHalf + sub) << (e - (kSubBits - 1));
}

Tick LatencyHistogram::bucket_high(std::size_t b) {
  if (b < kSub) return b + 1;
  const std::uint64_t i = b - kSub;
  const int e = static_cast<int>(i / kHalf) + kSubBits;
  return bucket_low(b) + (std::uint64_t{1} << (e - (kSubBits - 1)));
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

double LatencyHistogram::share_below(Tick t) const {
  if (count_ == 0) return 0.0;
  if (t > max_) return 1.0;
  if (t <= min()) return 0.0;
  const std::size_t b = bucket_of(t);
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < b; ++i) below += counts_[i];
  // The part of bucket b below t, clipped to [min, max] (the extremes are exact).
  const Tick lo = std::max(bucket_low(b), min_);
  const Tick hi = std::min(bucket_high(b), max_ + 1);
  const double part =
      hi > lo ? static_cast<double>(t - std::min(t, lo)) / static_cast<double>(hi - lo) : 0.0;
  return (static_cast<double>(below) + part * static_cast<double>(counts_[b])) /
         static_cast<double>(count_);
}

Tick LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank of the requested sample, 1-based, nearest-rank definition.
  auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_) + 0.999999999);
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      const Tick mid = (bucket_low(b) + bucket_high(b) - 1) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

}  // namespace ssdtwin
