#include "sim/progress.h"

#include <cstdio>

namespace ssdtwin {

double Progress::wall_seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void Progress::update(const std::string& phase, Tick sim_now, double fraction) {
  if (!enabled_) return;
  const double wall = wall_seconds();
  if (wall - last_print_ < every_s_) return;
  last_print_ = wall;
  std::fprintf(stderr, "[ssdtwin] phase %-16s sim %10.3f s  %5.1f%%  wall %7.1f s\n", phase.c_str(),
               to_seconds(sim_now), fraction * 100.0, wall);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && printed_) std::fprintf(stderr, "[ssdtwin] done, wall %.1f s\n", wall_seconds());
}

}  // namespace ssdtwin
