// Simulated time: one 64-bit count of nanoseconds for every component.
//
// NAND operations last tens of microseconds to milliseconds and link
// transfers tens of nanoseconds, so 1 ns resolution in 64 bits covers both
// (584 years of simulated time) without floating-point drift.
#pragma once

#include <cstdint>

namespace ssdtwin {

using Tick = std::uint64_t;  // nanoseconds since the start of the simulation

constexpr Tick kNs = 1;
constexpr Tick kUs = 1000;
constexpr Tick kMs = 1000 * kUs;
constexpr Tick kSec = 1000 * kMs;

constexpr Tick operator""_ns(unsigned long long v) { return v; }
constexpr Tick operator""_us(unsigned long long v) { return v * kUs; }
constexpr Tick operator""_ms(unsigned long long v) { return v * kMs; }
constexpr Tick operator""_s(unsigned long long v) { return v * kSec; }

inline double to_seconds(Tick t) { return static_cast<double>(t) / 1e9; }
inline double to_us(Tick t) { return static_cast<double>(t) / 1e3; }

// Time to move `bytes` at `bytes_per_second`, rounded up to whole ns so that
// back-to-back transfers never overlap.
inline Tick transfer_time(std::uint64_t bytes, double bytes_per_second) {
  const double ns = static_cast<double>(bytes) * 1e9 / bytes_per_second;
  const auto whole = static_cast<Tick>(ns);
  return (static_cast<double>(whole) < ns) ? whole + 1 : whole;
}

// transfer_time at one rate, remembering the last size asked: a bus moves
// the same few sizes over and over (a sector, a program unit, a host
// command's data), and each time is a double division whose result the
// next step waits on (3% of the 16 GiB GC row). Returns exactly what
// transfer_time returns.
class TransferClock {
 public:
  explicit TransferClock(double bytes_per_second) : rate_(bytes_per_second) {}
  Tick operator()(std::uint64_t bytes) {
    if (bytes != bytes_) {
      bytes_ = bytes;
      ticks_ = transfer_time(bytes, rate_);
    }
    return ticks_;
  }

 private:
  double rate_;
  std::uint64_t bytes_ = 0;
  Tick ticks_ = 0;  // transfer_time(0, rate_)
};

}  // namespace ssdtwin
