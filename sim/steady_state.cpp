#include "sim/steady_state.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ssdtwin {

namespace {

void check_args(std::size_t window, double excursion_tol, double slope_tol) {
  if (window < 2) throw std::invalid_argument("steady-state window must hold at least 2 rounds");
  if (!(excursion_tol >= 0) || !(slope_tol >= 0))
    throw std::invalid_argument("steady-state tolerances must be non-negative");
}

// The SNIA PTS test on rounds [first, first + window) of `y`.
SteadyStateResult evaluate(const std::vector<double>& y, std::size_t first, std::size_t window,
                           double excursion_tol, double slope_tol) {
  SteadyStateResult r;
  r.first_round = first;
  const auto w = static_cast<double>(window);

  double sum = 0;
  for (std::size_t i = 0; i < window; ++i) sum += y[first + i];
  r.mean = sum / w;

  // Least-squares slope with x = 0..window-1: sum((x - xbar)(y - ybar)) / sum((x - xbar)^2),
  // where sum((x - xbar)^2) = window (window^2 - 1) / 12.
  const double xbar = (w - 1) / 2;
  double sxy = 0;
  for (std::size_t i = 0; i < window; ++i) {
    const double dy = y[first + i] - r.mean;
    sxy += (static_cast<double>(i) - xbar) * dy;
    r.max_excursion = std::max(r.max_excursion, std::fabs(dy));
  }
  r.slope = sxy / (w * (w * w - 1) / 12);
  r.line_change = r.slope * (w - 1);

  // Both bounds are relative to the mean, so a mean that is not positive
  // (zero IOPS, or bad data) cannot be steady. Written as !(a <= b) so that
  // a NaN anywhere makes the window not steady.
  if (!(r.mean > 0) || !std::isfinite(r.mean)) return r;
  if (!(r.max_excursion <= excursion_tol * r.mean)) return r;       // data excursion
  if (!(std::fabs(r.line_change) <= slope_tol * r.mean)) return r;  // slope excursion
  r.steady = true;
  return r;
}

}  // namespace

SteadyStateResult snia_steady_state(const std::vector<double>& rounds, std::size_t window,
                                    double excursion_tol, double slope_tol) {
  check_args(window, excursion_tol, slope_tol);
  // The PTS needs a full window of rounds before steady state can be claimed.
  if (rounds.size() < window) return SteadyStateResult{};
  return evaluate(rounds, rounds.size() - window, window, excursion_tol, slope_tol);
}

std::size_t first_steady_round(const std::vector<double>& rounds, std::size_t window,
                               double excursion_tol, double slope_tol) {
  check_args(window, excursion_tol, slope_tol);
  for (std::size_t end = window; end <= rounds.size(); ++end)
    if (evaluate(rounds, end - window, window, excursion_tol, slope_tol).steady) return end - 1;
  return kNoSteadyRound;
}

SteadyStateMonitor::SteadyStateMonitor(Tick start, Tick round, std::size_t window, double tolerance,
                                       double slope_tolerance, SteadyEarned earned)
    : round_(round),
      window_(window),
      tolerance_(tolerance),
      slope_tolerance_(slope_tolerance),
      earned_(earned),
      round_end_(start + round),
      start_(start) {
  if (round == 0) throw std::invalid_argument("steady-state rounds must last longer than 0");
  if (earned.need_work && earned.work == nullptr)
    throw std::invalid_argument("steady state with work in every round needs a work counter");
  check_args(window, tolerance, slope_tolerance);
  if (earned_.work) work_at_ = earned_.work->value();
}

bool SteadyStateMonitor::window_steady() const {
  if (round_end_ - round_ - start_ < earned_.after) return false;
  if (earned_.need_work && std::any_of(round_work_.end() - static_cast<std::ptrdiff_t>(std::min(
                                                               window_, round_work_.size())),
                                       round_work_.end(), [](double w) { return w <= 0; }))
    return false;
  return snia_steady_state(rounds_, window_, tolerance_, slope_tolerance_).steady;
}

bool SteadyStateMonitor::add(Tick t) {
  if (steady()) return true;
  // A completion past the round's end closes it, and any empty rounds between.
  while (t >= round_end_) {
    rounds_.push_back(static_cast<double>(count_) / to_seconds(round_));
    count_ = 0;
    if (earned_.work) {
      // Work done by the time of the completion that closes the round: the
      // counter is not sampled at the round's exact end.
      const double w = earned_.work->value();
      round_work_.push_back(w - work_at_);
      work_at_ = w;
    }
    round_end_ += round_;
    if (window_steady()) {
      steady_round_ = rounds_.size() - 1;
      return true;
    }
  }
  ++count_;
  return false;
}

}  // namespace ssdtwin
