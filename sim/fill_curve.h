// Reading a whole-drive fill curve the way a reviewer does: the size of the
// fast (SLC-cached) region before the first sustained drop in write speed,
// and averages over the whole fill and over its last 16 GB.
#pragma once

#include <cstdint>
#include <vector>

namespace ssdtwin {

struct FillCurveMetrics {
  bool drop_found = false;
  double cache_gb = 0;           // GB written before the first sustained drop (all, if none)
  double initial_mb_per_s = 0;   // level before the drop
  double after_mb_per_s = 0;     // level just after the drop
  double last16gb_mb_per_s = 0;  // bytes / time over the last 16 GB (all, if shorter)
  double overall_mb_per_s = 0;   // bytes / time over the whole curve
};

// `mb_per_s[k]` is the write speed over segment k of `step_gb` GB each.
// A drop is sustained when the segment falls below `drop_ratio` of the
// initial level and the next `window` segments average below it too. The
// cache size is refined inside the dropping segment: a segment written
// partly at the initial level h and partly at the later level l at average
// rate r holds x = S (1/r - 1/l) / (1/h - 1/l) of fast data.
FillCurveMetrics analyze_fill_curve(const std::vector<double>& mb_per_s, double step_gb,
                                    double drop_ratio = 0.75, std::size_t window = 4);

}  // namespace ssdtwin
