#include "sim/fill_curve.h"

#include <algorithm>

namespace ssdtwin {

namespace {

// Average speed over segments [a, b): bytes over time, not a mean of rates.
double average(const std::vector<double>& r, std::size_t a, std::size_t b, double step) {
  double seconds = 0;
  for (std::size_t k = a; k < b; ++k) seconds += r[k] > 0 ? step / r[k] : 0;
  return seconds > 0 ? step * static_cast<double>(b - a) / seconds : 0;
}

}  // namespace

FillCurveMetrics analyze_fill_curve(const std::vector<double>& r, double step_gb, double drop_ratio,
                                    std::size_t window) {
  FillCurveMetrics m;
  const std::size_t n = r.size();
  if (n == 0) return m;
  const double step = step_gb * 1e3;  // MB per segment
  m.overall_mb_per_s = average(r, 0, n, step);
  const auto last = static_cast<std::size_t>(16.0 / step_gb + 0.5);
  m.last16gb_mb_per_s = average(r, n > last ? n - last : 0, n, step);

  // Initial level: the best of the first two segments (the first may
  // include start-up).
  m.initial_mb_per_s = n > 1 ? std::max(r[0], r[1]) : r[0];
  const double limit = m.initial_mb_per_s * drop_ratio;
  m.cache_gb = step_gb * static_cast<double>(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (r[k] >= limit) continue;
    const std::size_t end = std::min(n, k + 1 + window);
    const double after = k + 1 < n ? average(r, k + 1, end, step) : r[k];
    if (after >= limit) continue;
    m.drop_found = true;
    m.after_mb_per_s = after;
    const double h = m.initial_mb_per_s, l = std::min(after, r[k]);
    double x = 0;
    if (h > l && r[k] > 0) x = step_gb * (1 / r[k] - 1 / l) / (1 / h - 1 / l);
    m.cache_gb = step_gb * static_cast<double>(k) + std::clamp(x, 0.0, step_gb);
    break;
  }
  return m;
}

}  // namespace ssdtwin
