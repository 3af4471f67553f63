#include "host/workload/axes.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ssdtwin {

std::vector<std::vector<std::size_t>> combine_axes(const std::vector<std::size_t>& sizes,
                                                   AxisCombine how) {
  std::vector<std::vector<std::size_t>> points;
  if (sizes.empty()) return {{}};
  if (how == AxisCombine::kZip) {
    for (std::size_t i = 0; i < sizes[0]; ++i) points.emplace_back(sizes.size(), i);
    return points;
  }
  std::vector<std::size_t> idx(sizes.size(), 0);
  for (;;) {
    points.push_back(idx);
    // Odometer order: the last axis turns fastest, as nested loops would.
    std::size_t a = sizes.size();
    while (a > 0 && ++idx[a - 1] == sizes[a - 1]) idx[--a] = 0;
    if (a == 0) return points;
  }
}

std::size_t zip_mismatch(const std::vector<std::size_t>& sizes) {
  for (std::size_t a = 1; a < sizes.size(); ++a)
    if (sizes[a] != sizes[0]) return a;
  return sizes.size();
}

std::vector<std::string> range_values(double from, double to, double step, double mul,
                                      const std::string& unit) {
  constexpr std::size_t kMaxValues = 10000;
  if ((step > 0) == (mul > 0))
    throw std::invalid_argument("expected one of step (> 0) or mul (> 1)");
  if (mul > 0 && (mul <= 1 || from <= 0))
    throw std::invalid_argument("expected mul > 1 and from > 0");
  if (to < from) throw std::invalid_argument("expected to >= from");
  std::vector<std::string> out;
  // Counted from `from` so that rounding errors do not accumulate; a value
  // within a millionth of a step past `to` still counts as `to`.
  for (std::size_t k = 0;; ++k) {
    const double v = step > 0 ? from + static_cast<double>(k) * step
                              : from * std::pow(mul, static_cast<double>(k));
    if (v > to + 1e-6 * (step > 0 ? step : v)) break;
    if (out.size() == kMaxValues) throw std::invalid_argument("expected at most 10000 values");
    // 12 significant digits: 0.7 + 0.1 reads as 0.8, not 0.7999999999999999.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", v);
    out.push_back(buf + unit);
  }
  return out;
}

}  // namespace ssdtwin
