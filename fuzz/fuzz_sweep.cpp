// A sweep file, planned as `ssdtwin sweep FILE` plans it: axes, ranges,
// combination, metrics, phases and charts, every point's drive, workload
// and overrides. Beyond "no crash": the points are the axes' grid (or zip),
// each carrying one value per axis, and the plan survives its round trip
// through sweep.json (what workers and `collect` read back).
//
// The input is written as tests/sweeps/fuzz_input.yaml in a private copy of
// the tree's layout (fuzz/fuzz_files.h), so the seeds' drive and workload
// paths resolve as in the tree. Plans of more than kMaxPoints points are
// refused here (the CLI's limit is kMaxSweepPoints).
#include <string>

#include "app/sweep.h"
#include "fuzz/fuzz_files.h"
#include "fuzz/fuzz_support.h"
#include "sim/config.h"

using namespace ssdtwin;

namespace {

// Each point's drive is built to check it: a few points reach every path.
constexpr std::size_t kMaxPoints = 16;

void check_points(const SweepPlan& plan) {
  if (plan.points.empty()) fuzz::finding("sweep planned with no points");
  for (const SweepPoint& p : plan.points) {
    if (p.values.size() != plan.axes.size()) fuzz::finding("a point without one value per axis");
    if (p.drive.empty() || p.workload.empty())
      fuzz::finding("a point without a drive or a workload");
    if (p.group >= static_cast<int>(plan.groups.size()))
      fuzz::finding("a point in a group that does not exist");
  }
}

bool same_points(const SweepPlan& a, const SweepPlan& b) {
  if (a.points.size() != b.points.size() || a.metrics != b.metrics || a.phases != b.phases)
    return false;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    const SweepPoint &p = a.points[i], &q = b.points[i];
    if (p.values != q.values || p.drive != q.drive || p.workload != q.workload ||
        p.sets != q.sets || p.group != q.group)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fuzz::MirrorDir dir("tests/sweeps", "fuzz_input.yaml");
  const std::string& path = dir.write(fuzz::text_of(data, size));
  SweepPlan plan;
  try {
    plan = plan_sweep(path, kMaxPoints);
  } catch (const ConfigError& e) {
    fuzz::expected(e);
    return 0;
  }
  check_points(plan);
  const std::string out = (dir.root() / "plan").string();
  write_plan(plan, out);
  if (!same_points(plan, read_plan(out)))
    fuzz::finding("sweep.json does not read back as the plan");
  return 0;
}
