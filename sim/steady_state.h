// Steady-state detection over measurement rounds, after the SNIA Solid State
// Storage Performance Test Specification (PTS): a drive is in steady state
// when, over a window of the most recent rounds, (1) no round strays far from
// the window's mean and (2) the least-squares line through the rounds hardly
// moves across the window.
//
// This project's methodology: take rounds of equal length (e.g. 5 rounds of
// 20 s); average IOPS per round; steady state holds when every round is
// within +/-10% of the mean of the rounds, and the slope of the
// least-squares line through the rounds, across the window, is within 10% of
// that mean. (The PTS words the first condition as a range: max - min of the
// window within 20% of its average. Bounding each round at +/-10% of the mean
// is at least as strict, since it implies that range. The second condition
// is the PTS slope-excursion rule: the least-squares line's change across
// the window within 10% of the average.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/time.h"
#include "sim/timeseries.h"

namespace ssdtwin {

// "No round" (npos) for first_steady_round and SteadyStateResult::first_round.
constexpr std::size_t kNoSteadyRound = std::numeric_limits<std::size_t>::max();

struct SteadyStateResult {
  bool steady = false;
  double mean = 0;           // mean of the rounds in the window
  double slope = 0;          // least-squares slope, per round (x = 0, 1, ..., window-1)
  double max_excursion = 0;  // max |y_i - mean| over the window
  double line_change = 0;    // slope * (window - 1): the fitted line's change across the window
  std::size_t first_round = kNoSteadyRound;  // index of the window's first round
};

// Evaluates the last `window` rounds of `rounds` (per-round averages, e.g.
// IOPS). Steady when max_excursion <= excursion_tol * mean and
// |line_change| <= slope_tol * mean. Fewer rounds than `window`, a mean that
// is not positive, or a non-finite value: not steady (with fewer rounds the
// statistics stay zero and first_round is kNoSteadyRound).
// Throws std::invalid_argument when window < 2 (a line needs two points) or
// a tolerance is negative.
SteadyStateResult snia_steady_state(const std::vector<double>& rounds, std::size_t window = 5,
                                    double excursion_tol = 0.10, double slope_tol = 0.10);

// Scans the rounds in order and returns the index r of the first round such
// that rounds [r - window + 1, r] are steady (by the rule above), or
// kNoSteadyRound when no window is. Same preconditions as snia_steady_state.
std::size_t first_steady_round(const std::vector<double>& rounds, std::size_t window = 5,
                               double excursion_tol = 0.10, double slope_tol = 0.10);

// Online use of the rule, as a stop condition: operations are counted in
// rounds of `round` from `start`; each time a round closes its IOPS is
// appended and the last `window` rounds are tested with one tolerance for
// both conditions. Once steady, the monitor stops counting, so rounds() ends
// with the window that was steady. Memory: two numbers per round.
//
// Steady state must be earned: no window ending before `after` is tested,
// and when `work` is given (a running count of the background work the
// drive does, e.g. GC moves) its growth per round is kept beside the IOPS;
// with `need_work` a window counts only if every one of its rounds did
// some, so that a plateau reached before the drive starts collecting (the
// fresh drive's) is not taken for steady state.
struct SteadyEarned {
  Tick after = 0;
  const Gauge* work = nullptr;
  bool need_work = false;
};

class SteadyStateMonitor {
 public:
  // Throws std::invalid_argument for round == 0, need_work without work,
  // or as snia_steady_state.
  SteadyStateMonitor(Tick start, Tick round, std::size_t window, double tolerance,
                     SteadyEarned earned = {})
      : SteadyStateMonitor(start, round, window, tolerance, tolerance, earned) {}
  // A tolerance each for the excursion and the slope conditions (fio's
  // steadystate tests one of them: the other's is infinite).
  SteadyStateMonitor(Tick start, Tick round, std::size_t window, double tolerance,
                     double slope_tolerance, SteadyEarned earned);
  // One operation completed at `t` (>= start, in time order). Returns
  // steady(): true once the rounds that closed before `t` were steady.
  bool add(Tick t);
  bool steady() const { return steady_round_ != kNoSteadyRound; }
  // Index (from 0) of the round that completed the first steady window, or
  // kNoSteadyRound.
  std::size_t steady_round() const { return steady_round_; }
  const std::vector<double>& rounds() const { return rounds_; }  // IOPS per closed round
  // The work counter's growth per closed round (empty without a counter).
  const std::vector<double>& round_work() const { return round_work_; }
  Tick round() const { return round_; }
  std::size_t window() const { return window_; }
  double tolerance() const { return tolerance_; }
  double slope_tolerance() const { return slope_tolerance_; }
  const SteadyEarned& earned() const { return earned_; }

 private:
  // The rounds closed so far end a window that counts as steady.
  bool window_steady() const;

  Tick round_;
  std::size_t window_;
  double tolerance_, slope_tolerance_;
  SteadyEarned earned_;
  Tick round_end_;
  Tick start_;
  std::uint64_t count_ = 0;  // operations in the open round
  double work_at_ = 0;       // the work counter when the open round began
  std::vector<double> rounds_;
  std::vector<double> round_work_;
  std::size_t steady_round_ = kNoSteadyRound;
};

}  // namespace ssdtwin
