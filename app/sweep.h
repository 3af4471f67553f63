// `ssdtwin sweep`: a parameter study, one full run per point (as gem5, SST
// and Ramulator studies do): a sweep file names the base drive(s) and
// workload(s) and the axes (config key paths with their values); each point
// is an `ssdtwin run` with the axes' values as --set overrides, in its own
// folder. A backend runs the points (a local pool of workers, or a Slurm job
// array); `--collect` turns the folders into results.csv and charts.
//
//   DIR/sweep.json             the plan: every point's drive, workload, overrides
//   DIR/points/NNNN/           one run's results (summary.json last: its marker)
//                  point.json  what the point ran; run.log its output;
//                  error.txt   why it failed
//   DIR/states/gK.state        a shared preconditioning's drive state
//   DIR/results.csv            axes, phase, metrics: one row per point and phase
//   DIR/chart_K.png            the sweep file's charts
//   DIR/sweep.sbatch           the Slurm batch script (--backend slurm)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ssdtwin {

struct ParamSection;

struct SweepAxis {
  std::string key;  // "drive", "workload" (files) or a key path "drive.a.b" / "workload.a.b"
  std::vector<std::string> values;
  // Keys set together with `key`, the i-th value of each with the i-th of
  // `values` (`with:`): one study variable that several keys express, e.g.
  // a region's size and the next region's offset.
  std::vector<std::pair<std::string, std::vector<std::string>>> with;
  std::string name;  // the label on charts (`name:`); empty: `key`
  const std::string& label() const { return name.empty() ? key : name; }
};

struct SweepChart {
  // `metric:` one metric, or `metrics:` several of one unit on one chart (a
  // line per metric and value of `lines`, e.g. latency p50, p99 and p99.9).
  std::vector<std::string> metrics;
  std::string x, lines, phase, title;  // lines, phase, title optional
  std::string file;                    // the PNG's name (`file:`); empty: chart_<k>.png
};

struct SweepPoint {
  std::vector<std::string> values;  // one per axis
  std::string drive, workload;      // absolute paths
  std::vector<std::string> sets;    // --set overrides, "key=value"
  int group = -1;                   // shared preconditioning (SweepPlan::groups), or none
};

// Points whose drive and preconditioning phases are the same: the
// preconditioning runs once, and each point starts from its saved state.
struct SweepGroup {
  std::string drive, workload;
  std::vector<std::string> sets;  // the overrides that shape the preconditioning
};

struct SlurmOptions {
  std::string partition, time, account;
  std::vector<std::string> extra;  // further #SBATCH lines, e.g. "--mem=8G"
};

struct SweepPlan {
  std::string name, file;
  std::vector<SweepAxis> axes;
  std::vector<SweepPoint> points;
  std::vector<SweepGroup> groups;
  std::vector<std::string> metrics;  // the columns of results.csv
  std::vector<std::string> phases;   // rows kept; empty: every phase
  std::vector<SweepChart> charts;
  // What each point's run draws (`ssdtwin run --charts`): by default the
  // scripts alone, so a sweep of many short points does not spend most of
  // its time starting gnuplot for charts nobody opens.
  std::string point_charts = "script";
  SlurmOptions slurm;
};

// Each point is a whole run, and is checked before any runs: a grid of
// long ranges would make more than any study needs (or memory holds).
inline constexpr std::size_t kMaxSweepPoints = 100000;

// Reads and checks a sweep file (throws ConfigError naming file, line, key),
// refusing one of more than `max_points` points (the fuzz target plans
// with far fewer: each point's drive is built to check it).
SweepPlan plan_sweep(const std::string& sweep_file, std::size_t max_points = kMaxSweepPoints);
// The sweep file's keys, declared (sim/params.h).
std::vector<const ParamSection*> sweep_param_sections();

// The plan as DIR/sweep.json, and back.
void write_plan(const SweepPlan& plan, const std::string& dir);
SweepPlan read_plan(const std::string& dir);

// Runs point `index` of the plan in DIR (skipped when already finished),
// building its group's shared state first if no other point has. 0 when
// the point finished; otherwise its error is in the point's error.txt.
int run_point(const std::string& dir, std::size_t index, const std::string& ssdtwin_exe);

struct CollectCounts {
  std::size_t points = 0, finished = 0, rows = 0;
  std::vector<std::string> failures;  // "point 3: <error>" for each point not finished
};
// Writes DIR/results.csv and the charts from the folders alone.
CollectCounts collect_sweep(const std::string& dir);

// `ssdtwin sweep ...` (argv[0] is "sweep").
int sweep_main(int argc, char** argv);

}  // namespace ssdtwin
