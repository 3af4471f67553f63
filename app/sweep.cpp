#include "app/sweep.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "app/compare.h"
#include "app/phase_metrics.h"
#include "app/run_inputs.h"
#include "app/sweep_keys.h"
#include "host/workload/axes.h"
#include "sim/chart.h"
#include "sim/config.h"
#include "sim/csv.h"
#include "sim/output_file.h"
#include "sim/params.h"

namespace ssdtwin {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr int kExitBadInput = 2;

// A list read only when given: `absent` says in words what its absence
// means (param::values declares no default).
Param optional_values(const char* key, const char* absent, const char* doc) {
  Param p = param::values(key, doc);
  p.def = absent;
  return p;
}

const ParamSection kSweepSection{
    "sweep",
    "A parameter study: one whole run of a drive and a workload per point, the axes' values "
    "given as --set overrides (docs/SWEEPS.md).",
    {
        param::text("name", "(the sweep file's name without its extension)",
                    "the study's name, on its charts"),
        param::text("drive", "(none: a drive axis gives the drives)",
                    "the drive file, relative to the sweep file's folder"),
        param::text("workload", "(none: a workload axis gives the workloads)",
                    "the workload file, relative to the sweep file's folder"),
        optional_values("set", "none",
                        "fixed overrides for every point, as --set takes them "
                        "(drive.a.b=value, workload.a.b=value)"),
        param::maps("axes", "the axes, each a key and its values"),
        param::choice("combine", "grid", "grid|zip",
                      "grid: every combination of the axes' values (the last axis fastest); "
                      "zip: the i-th values of every axis together"),
        optional_values("phases", "every phase", "the phases whose rows results.csv keeps"),
        optional_values("metrics", "every metric but the wall times",
                        "the metrics in results.csv, names from 'ssdtwin metrics'"),
        param::maps("charts",
                    "charts of one metric against an axis, one line per value of another"),
        param::flag("share_preconditioning", "true",
                    "points whose drive and preconditioning agree run the preconditioning once "
                    "and start from its saved state"),
        param::choice("point_charts", "script", "png|script|none",
                      "each point's own charts (run --charts): gnuplot scripts, PNGs, or none"),
        param::map("slurm", "sbatch options for --backend slurm"),
    }};

const ParamSection kAxisSection{
    "sweep.axes[]",
    "One axis of the study: a key and its values, given as a list or as a numeric range.",
    {
        param::text("key", nullptr,
                    "drive or workload (files as values), or a key path as --set takes it "
                    "(drive.ftl.gc.policy, workload.phases.2.iodepth)"),
        optional_values("values", "none (give range)",
                        "the axis's values, as --set takes them; exactly one of values and range"),
        param::map("range", "the values as a numeric range, instead of values"),
        param::text("name", "", "a short label for the axis on charts (empty: its key)"),
        param::maps("with",
                    "other keys set with this one, one value per value of the axis (one study "
                    "variable several keys express)"),
    }};

const ParamSection kRangeSection{
    "sweep.axes[].range",
    "An axis's values as a numeric range: from, from + step, from + 2 step, ... or from, from x "
    "mul, from x mul^2, ... up to to (at most 10000 values).",
    {
        param::real("from", nullptr, -1e18, 1e18, "", "the first value"),
        param::real("to", nullptr, -1e18, 1e18, "", "the values go up to this, at least from"),
        param::real("step", "0", 0, 1e18, "",
                    "added to each value to make the next; exactly one of step and mul"),
        param::real("mul", "0", 0, 1e18, "",
                    "each value times this makes the next, above 1 (from above 0)"),
        param::text("unit", "", "appended to every value (KiB: 4 becomes 4KiB)"),
    }};

const ParamSection kWithSection{
    "sweep.axes[].with[]",
    "A key set together with its axis.",
    {
        param::text("key", nullptr,
                    "a key path as --set takes it, starting with drive. or workload."),
        param::values("values",
                      "its values, as many as the axis has, the i-th with the axis's i-th"),
    }};

const ParamSection kChartSection{
    "sweep.charts[]",
    "One chart of the study's results: a metric (or several of one unit) against an axis.",
    {
        param::text("metric", nullptr, "the metric drawn (required unless metrics is given)"),
        optional_values("metrics", "none (give metric)",
                        "several metrics of one unit on one chart, a line per metric and value"),
        param::text("x", nullptr, "the key of the axis on the x axis"),
        param::text("lines", "",
                    "the key of another axis, one line per value (empty: one line; axes on "
                    "neither make a line per combination)"),
        param::text("phase", "",
                    "the phase whose rows it draws (empty: the last phase of the first point)"),
        param::text("title", "", "the chart's title (empty: the sweep's name, metrics and phase)"),
        param::text("file", "",
                    "the PNG's name in the sweep's folder, ending in .png (empty: chart_K.png)"),
    }};

const ParamSection kSlurmSection{
    "sweep.slurm",
    "sbatch options for --backend slurm, each an #SBATCH line of sweep.sbatch.",
    {
        param::text("partition", "", "the partition (empty: the cluster's default)"),
        param::text("time", "", "the time limit per point, as sbatch takes it (\"01:00:00\")"),
        param::text("account", "", "the account to charge"),
        optional_values("extra", "none", "further sbatch options (\"--mem=4G\")"),
    }};

std::string point_dir(const std::string& dir, std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "%04zu", i);
  return (fs::path(dir) / "points" / name).string();
}

std::string state_file(const std::string& dir, int group) {
  return (fs::path(dir) / "states" / ("g" + std::to_string(group) + ".state")).string();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A path in the sweep file, relative to the sweep file's folder, made
// absolute so that points run from any folder (a Slurm node's included).
std::string resolve_path(const std::string& base_dir, const std::string& p) {
  const fs::path path(p);
  return fs::absolute(path.is_absolute() ? path : fs::path(base_dir) / path)
      .lexically_normal()
      .string();
}

// The preconditioning phases are the workload's leading `precondition: true`
// phases (with the point's overrides); 0 when there are none, or when the
// workload has faults (a snapshot does not carry them).
std::size_t precondition_phases(const Params& workload) {
  if (workload.has("faults")) return 0;
  std::size_t n = 0;
  for (const Params& p : workload.children("phases", WorkloadSpec::phase_params())) {
    if (!p.flag("precondition")) break;
    ++n;
  }
  return n;
}

bool under_measured_phase(const std::string& set, std::size_t preconditioning) {
  static const std::string kPrefix = "workload.phases.";
  if (set.rfind(kPrefix, 0) != 0) return false;
  const std::size_t end = set.find_first_of(".=", kPrefix.size());
  const std::string index = set.substr(kPrefix.size(), end - kPrefix.size());
  if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return false;
  return std::stoul(index) >= preconditioning;
}

// Points that share their drive and the overrides that reach the
// preconditioning phases share one saved state; a group of one gains nothing.
void plan_groups(SweepPlan& plan) {
  std::map<std::string, std::vector<std::size_t>> by_key;
  std::map<std::string, SweepGroup> groups;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const SweepPoint& p = plan.points[i];
    auto doc = ConfigDoc::load(p.workload, "workload", p.sets);
    const Params workload(doc->root(), WorkloadSpec::root_params());
    const std::size_t pre = precondition_phases(workload);
    const std::size_t phases = workload.children("phases", WorkloadSpec::phase_params()).size();
    if (pre == 0 || pre == phases) continue;
    SweepGroup g{p.drive, p.workload, {}};
    for (const std::string& s : p.sets)
      if (!under_measured_phase(s, pre)) g.sets.push_back(s);
    std::string key = g.drive + "\n" + g.workload;
    for (const std::string& s : g.sets) key += "\n" + s;
    by_key[key].push_back(i);
    groups.emplace(key, g);
  }
  for (const auto& [key, members] : by_key) {
    if (members.size() < 2) continue;
    for (const std::size_t i : members) plan.points[i].group = static_cast<int>(plan.groups.size());
    plan.groups.push_back(groups.at(key));
  }
}

// Every point's resolved drive and workload, checked as `ssdtwin check`
// checks them, before the first point runs: a bad axis value (an unknown
// policy, a misspelled key, a number that is not one) is refused at once,
// naming the point, rather than found in its error.txt once the others
// have run. Returns the names of the phases the points run.
std::set<std::string> check_points(const SweepPlan& plan, const std::string& sweep_file) {
  std::set<std::string> phases;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const SweepPoint& p = plan.points[i];
    std::string where = sweep_file + ": point " + std::to_string(i) + " (";
    for (std::size_t a = 0; a < plan.axes.size(); ++a)
      where += (a ? ", " : "") + plan.axes[a].key + "=" + p.values[a];
    where += "): ";
    try {
      RunInputs in = read_drive(p.drive, p.sets, false);
      read_workload(in, p.workload, p.sets);
      check_run_inputs(in, p.sets, false);
      for (const PhaseSpec& ph : in.workload.phases) phases.insert(ph.name);
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    } catch (const std::exception& e) {
      throw std::runtime_error(where + e.what());
    }
  }
  return phases;
}

}  // namespace

std::vector<const ParamSection*> sweep_param_sections() {
  return {&kSweepSection, &kAxisSection,  &kRangeSection,
          &kWithSection,  &kChartSection, &kSlurmSection};
}

SweepPlan plan_sweep(const std::string& sweep_file, std::size_t max_points) {
  auto doc = ConfigDoc::load(sweep_file, "sweep", {});
  const Params root(doc->root(), kSweepSection);
  SweepPlan plan;
  plan.file = fs::absolute(sweep_file).lexically_normal().string();
  const std::string base = fs::path(plan.file).parent_path().string();
  plan.name = root.text("name", fs::path(sweep_file).stem().string());
  const std::string base_drive =
      root.has("drive") ? resolve_path(base, root.text("drive", "")) : "";
  const std::string base_workload =
      root.has("workload") ? resolve_path(base, root.text("workload", "")) : "";
  std::vector<std::string> fixed;
  if (root.has("set"))
    for (const std::string& s : root.values("set")) {
      if (s.find('=') == std::string::npos ||
          (s.rfind("drive.", 0) != 0 && s.rfind("workload.", 0) != 0))
        root.fail("set", "expected overrides such as drive.a.b=value or workload.a.b=value, got '" +
                             s + "'");
      fixed.push_back(s);
    }

  const auto axis_nodes = root.children("axes", kAxisSection);
  if (axis_nodes.empty()) root.fail("axes", "expected at least one axis");
  std::set<std::string> keys;
  for (const Params& n : axis_nodes) {
    SweepAxis a;
    a.key = n.text("key");
    const bool file_axis = a.key == "drive" || a.key == "workload";
    if (!file_axis && ((a.key.rfind("drive.", 0) != 0 && a.key.rfind("workload.", 0) != 0) ||
                       a.key.find('=') != std::string::npos))
      n.fail("key", "expected drive, workload, or a key path starting with drive. or workload.");
    if (!keys.insert(a.key).second) n.fail("key", "expected each key on one axis only");
    if (n.has("values") == n.has("range")) n.fail("values", "expected either values or range");
    if (n.has("values")) {
      a.values = n.values("values");
    } else {
      const Params r = n.child("range", kRangeSection);
      const double from = r.real("from"), to = r.real("to");
      const double step = r.real("step"), mul = r.real("mul");
      try {
        a.values = range_values(from, to, step, mul, r.text("unit"));
      } catch (const std::invalid_argument& e) {
        n.fail("range", e.what());
      }
    }
    if (file_axis)
      for (std::string& v : a.values) v = resolve_path(base, v);
    a.name = n.text("name");
    if (n.has("with")) {
      if (file_axis)
        n.fail("with", "expected a key path axis (a drive or workload axis sets no other key)");
      for (const Params& w : n.children("with", kWithSection)) {
        const std::string k = w.text("key");
        if ((k.rfind("drive.", 0) != 0 && k.rfind("workload.", 0) != 0) ||
            k.find('=') != std::string::npos)
          w.fail("key", "expected a key path starting with drive. or workload.");
        if (!keys.insert(k).second) w.fail("key", "expected each key on one axis only");
        std::vector<std::string> vs = w.values("values");
        if (vs.size() != a.values.size())
          w.fail("values",
                 "expected as many values as the axis (" + std::to_string(a.values.size()) + ")");
        a.with.emplace_back(k, std::move(vs));
      }
    }
    plan.axes.push_back(std::move(a));
  }
  if (!keys.count("drive") && base_drive.empty())
    root.fail("drive", "expected a drive file or a drive axis");
  if (!keys.count("workload") && base_workload.empty())
    root.fail("workload", "expected a workload file or a workload axis");

  std::vector<std::size_t> sizes;
  for (const SweepAxis& a : plan.axes) sizes.push_back(a.values.size());
  const std::string how = root.choice("combine");
  if (how == "zip" && zip_mismatch(sizes) < sizes.size())
    axis_nodes[zip_mismatch(sizes)].fail("values", "expected as many values as the first axis (" +
                                                       std::to_string(sizes[0]) + ") to zip them");
  std::size_t points = how == "zip" ? sizes[0] : 1;
  for (std::size_t a = 0; how == "grid" && a < sizes.size() && points <= max_points; ++a)
    points *= sizes[a];
  if (points > max_points)
    root.fail("axes",
              "expected at most " + std::to_string(max_points) + " points, the axes make more");
  for (const auto& idx :
       combine_axes(sizes, how == "zip" ? AxisCombine::kZip : AxisCombine::kGrid)) {
    SweepPoint p;
    p.drive = base_drive;
    p.workload = base_workload;
    p.sets = fixed;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) {
      const std::string& v = plan.axes[a].values[idx[a]];
      p.values.push_back(v);
      if (plan.axes[a].key == "drive")
        p.drive = v;
      else if (plan.axes[a].key == "workload")
        p.workload = v;
      else
        p.sets.push_back(plan.axes[a].key + "=" + v);
      for (const auto& [key, values] : plan.axes[a].with)
        p.sets.push_back(key + "=" + values[idx[a]]);
    }
    plan.points.push_back(std::move(p));
  }

  if (root.has("metrics")) {
    for (const std::string& m : root.values("metrics")) {
      const PhaseMetric* def = find_phase_metric(m);
      if (!def || !in_metrics_csv(*def))
        root.fail("metrics", "expected metric names from 'ssdtwin metrics', got '" + m + "'");
      plan.metrics.push_back(m);
    }
  } else {
    // Every figure of the drive; the simulator's own wall time is left out
    // so that a rerun of a point gives the same row.
    for (const PhaseMetric& m : phase_metrics())
      if (in_metrics_csv(m) && !m.wall) plan.metrics.push_back(m.name);
  }
  if (root.has("phases")) plan.phases = root.values("phases");
  plan.point_charts = root.choice("point_charts");
  std::vector<Params> chart_nodes;
  if (root.has("charts")) {
    chart_nodes = root.children("charts", kChartSection);
    for (const Params& c : chart_nodes) {
      SweepChart ch;
      if (c.has("metrics")) {
        if (c.has("metric")) c.fail("metric", "expected `metric:` or `metrics:`, not both");
        ch.metrics = c.values("metrics");
      } else {
        ch.metrics = {c.text("metric")};
      }
      const std::string key = c.has("metrics") ? "metrics" : "metric";
      for (const std::string& m : ch.metrics) {
        const PhaseMetric* def = find_phase_metric(m);
        if (!def) c.fail(key, "expected metric names from 'ssdtwin metrics', got '" + m + "'");
        // One y axis: every metric of a chart in the first one's unit.
        if (std::string(def->unit) != find_phase_metric(ch.metrics.front())->unit)
          c.fail(key, "expected metrics of one unit on one chart, got '" + m + "' in " + def->unit +
                          " beside " + find_phase_metric(ch.metrics.front())->unit);
      }
      ch.x = c.text("x");
      const auto is_axis = [&](const std::string& k) {
        return std::any_of(plan.axes.begin(), plan.axes.end(),
                           [&](const SweepAxis& a) { return a.key == k; });
      };
      if (!is_axis(ch.x)) c.fail("x", "expected the key of one of the axes");
      ch.lines = c.text("lines");
      if (!ch.lines.empty() && (!is_axis(ch.lines) || ch.lines == ch.x))
        c.fail("lines", "expected the key of another axis");
      ch.phase = c.text("phase");
      ch.title = c.text("title");
      ch.file = c.text("file");
      if (!ch.file.empty() &&
          (ch.file.find('/') != std::string::npos || fs::path(ch.file).extension() != ".png"))
        c.fail("file",
               "expected a file name ending in .png (written in the sweep's folder), got '" +
                   ch.file + "'");
      plan.charts.push_back(std::move(ch));
    }
  }
  const Params slurm = root.child("slurm", kSlurmSection);
  plan.slurm.partition = slurm.text("partition");
  plan.slurm.time = slurm.text("time");
  plan.slurm.account = slurm.text("account");
  if (slurm.has("extra")) plan.slurm.extra = slurm.values("extra");
  const bool share = root.flag("share_preconditioning");
  doc->check_unused();
  for (const SweepPoint& p : plan.points)
    for (const std::string& f : {p.drive, p.workload})
      if (!fs::is_regular_file(f)) throw ConfigError(sweep_file + ": " + f + ": no such file");
  const std::set<std::string> phase_names = check_points(plan, sweep_file);
  auto check_phase = [&](const Params& node, const std::string& key, const std::string& name) {
    if (phase_names.count(name)) return;
    std::string known;
    for (const std::string& n : phase_names) known += (known.empty() ? "" : ", ") + n;
    node.fail(key, "expected a phase of the points' workloads (" + known + "), got '" + name + "'");
  };
  for (const std::string& name : plan.phases) check_phase(root, "phases", name);
  for (std::size_t k = 0; k < plan.charts.size(); ++k)
    if (!plan.charts[k].phase.empty()) check_phase(chart_nodes[k], "phase", plan.charts[k].phase);
  if (share) plan_groups(plan);
  return plan;
}

void write_plan(const SweepPlan& plan, const std::string& dir) {
  const Json j = sweep_plan_json(plan);
  fs::create_directories(dir);
  write_output_file((fs::path(dir) / "sweep.json").string(), j.dump(1) + "\n");
}

SweepPlan read_plan(const std::string& dir) {
  const std::string path = (fs::path(dir) / "sweep.json").string();
  if (!fs::is_regular_file(path))
    throw ConfigError(path + ": no sweep plan here (expected a folder written by ssdtwin sweep)");
  try {
    return sweep_plan_from_json(Json::parse(read_file(path)));
  } catch (const Json::exception& e) {
    throw ConfigError(path + ": not a sweep plan written by ssdtwin sweep (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    throw ConfigError(path + ": not a sweep plan written by ssdtwin sweep (" + e.what() + ")");
  }
}

namespace {

// Runs `args` with stdout and stderr into `log`; the exit status, or -1 if
// it could not start.
int run_logged(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "ssdtwin sweep: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The last `lines` lines of a log (where a failed run says why).
std::string tail_of(const std::string& path, std::size_t lines) {
  std::string text = read_file(path);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t from = text.size();
  for (std::size_t n = 0; n < lines && from > 0; ++n) {
    const std::size_t nl = text.rfind('\n', from - 1);
    from = nl == std::string::npos ? 0 : nl;
  }
  return text.substr(from == 0 ? 0 : from + 1);
}

std::vector<std::string> run_args(const std::string& exe, const SweepPoint& p,
                                  const std::vector<std::string>& sets, const std::string& out,
                                  const std::string& charts) {
  std::vector<std::string> args = {exe,        "run",   "-q", "--drive",  p.drive, "--workload",
                                   p.workload, "--out", out,  "--charts", charts};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

// Builds the group's saved state once: the first point to get here runs
// the preconditioning (under a lock, which also holds on a cluster's shared
// file system) and the others wait for it. False when it failed: the point
// then runs its preconditioning itself.
bool ensure_state(const std::string& dir, const SweepPlan& plan, int g, const std::string& exe) {
  const std::string state = state_file(dir, g);
  fs::create_directories(fs::path(state).parent_path());
  const std::string failed = state + ".failed";
  const int lock = ::open((state + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return false;
  while (::flock(lock, LOCK_EX) < 0 && errno == EINTR) {
  }
  bool ok = fs::exists(state);
  if (!ok && !fs::exists(failed)) {
    const SweepGroup& grp = plan.groups[static_cast<std::size_t>(g)];
    const std::string out = state.substr(0, state.size() - 6);  // states/gK/
    SweepPoint p;
    p.drive = grp.drive;
    p.workload = grp.workload;
    std::vector<std::string> args = run_args(exe, p, grp.sets, out, "none");
    args.insert(args.end(), {"--save-state", state, "--precondition-only"});
    fs::create_directories(out);
    const int rc = run_logged(args, out + "/run.log");
    ok = rc == 0 && fs::exists(state);
    if (!ok)
      write_output_file(failed,
                        "exit " + std::to_string(rc) + "\n" + tail_of(out + "/run.log", 20) + "\n");
  }
  ::flock(lock, LOCK_UN);
  ::close(lock);
  return ok;
}

// point.json as a point's folder holds it: what the point ran.
std::string point_text(const SweepPlan& plan, std::size_t i) {
  return sweep_point_json(plan, i).dump(1) + "\n";
}

// Finished: the run's summary.json is there, for the same point.
bool point_finished(const std::string& dir, const SweepPlan& plan, std::size_t i) {
  const fs::path pdir = point_dir(dir, i);
  return fs::exists(pdir / "summary.json") &&
         read_file((pdir / "point.json").string()) == point_text(plan, i);
}

}  // namespace

int run_point(const std::string& dir, std::size_t index, const std::string& exe) {
  const SweepPlan plan = read_plan(dir);
  if (index >= plan.points.size())
    throw ConfigError(dir + ": point " + std::to_string(index) + " is not in the plan (it has " +
                      std::to_string(plan.points.size()) + ")");
  const SweepPoint& p = plan.points[index];
  const std::string pdir = point_dir(dir, index);
  if (point_finished(dir, plan, index)) return 0;
  fs::create_directories(pdir);
  remove_output_file((fs::path(pdir) / "error.txt").string());
  remove_output_file((fs::path(pdir) / "summary.json").string());
  write_output_file((fs::path(pdir) / "point.json").string(), point_text(plan, index));
  std::vector<std::string> args = run_args(exe, p, p.sets, pdir, plan.point_charts);
  if (p.group >= 0 && ensure_state(dir, plan, p.group, exe)) {
    args.push_back("--load-state");
    args.push_back(state_file(dir, p.group));
  }
  const std::string log = (fs::path(pdir) / "run.log").string();
  const int rc = run_logged(args, log);
  if (rc == 0 && fs::exists(fs::path(pdir) / "summary.json")) return 0;
  write_output_file((fs::path(pdir) / "error.txt").string(),
                    "exit " + std::to_string(rc) + "\n" + tail_of(log, 20) + "\n");
  return 1;
}

namespace {

// A chart's x values as numbers: plain numbers as they are, sizes in GB,
// times in seconds; anything else (policy names) by position.
struct XAxis {
  std::vector<double> at;
  std::string label;
};
XAxis x_axis(const SweepAxis& a) {
  XAxis x{{}, a.label()};
  bool numbers = true, bytes = true, times = true, percents = true;
  for (const std::string& v : a.values) {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    numbers &= !v.empty() && *end == '\0';
    percents &= !v.empty() && end != v.c_str() && end[0] == '%' && end[1] == '\0';
    bytes &= parse_bytes(v).has_value();
    times &= parse_time(v).has_value();
  }
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const std::string& v = a.values[i];
    if (numbers || percents)
      x.at.push_back(std::strtod(v.c_str(), nullptr));
    else if (bytes)
      x.at.push_back(static_cast<double>(*parse_bytes(v)) / 1e9);
    else if (times)
      x.at.push_back(to_seconds(*parse_time(v)));
    else
      x.at.push_back(static_cast<double>(i));
  }
  if (percents)
    x.label += " (%)";
  else if (!numbers && bytes)
    x.label += " (GB)";
  else if (!numbers && times)
    x.label += " (s)";
  else if (!numbers) {
    x.label += " (";
    for (std::size_t i = 0; i < a.values.size(); ++i)
      x.label +=
          (i ? ", " : "") + std::to_string(i) + ": " + fs::path(a.values[i]).filename().string();
    x.label += ")";
  }
  return x;
}

// A value as a line's label: a file by its name, anything else as written.
std::string line_value(const SweepAxis& a, const std::string& v) {
  return a.key == "drive" || a.key == "workload" ? fs::path(v).filename().string() : v;
}

std::size_t axis_index(const SweepPlan& plan, const std::string& key) {
  for (std::size_t a = 0; a < plan.axes.size(); ++a)
    if (plan.axes[a].key == key) return a;
  return plan.axes.size();
}

struct Row {
  std::size_t point;
  std::string phase;
  std::vector<std::string> cells;  // plan.metrics, in order
};

void draw_sweep_chart(const std::string& dir, const SweepPlan& plan, const SweepChart& c,
                      std::size_t k, const std::vector<Row>& rows, ChartBatch& charts) {
  const bool several = c.metrics.size() > 1;
  const std::size_t xa = axis_index(plan, c.x), la = axis_index(plan, c.lines);
  const XAxis x = x_axis(plan.axes[xa]);
  // The chart's phase: the one named, else the last phase of the first row's point.
  std::string phase = c.phase;
  if (phase.empty() && !rows.empty())
    for (const Row& r : rows)
      if (r.point == rows.front().point) phase = r.phase;
  // Wide: one row per x value, one column per line, so that each line is
  // one unbroken series.
  // Each line's column name and its title in the key.
  std::vector<std::string> lines, titles;
  std::map<double, std::map<std::string, std::string>> table;
  for (const Row& r : rows) {
    if (r.phase != phase) continue;
    const SweepPoint& p = plan.points[r.point];
    const auto& xs = plan.axes[xa].values;
    const std::size_t xi = std::find(xs.begin(), xs.end(), p.values[xa]) - xs.begin();
    // Axes neither on x nor the lines' own: each of their combinations is a
    // line of its own, named by them, rather than points drawn over another.
    std::string others;
    for (std::size_t a = 0; a < plan.axes.size(); ++a)
      if (a != xa && a != la && plan.axes[a].values.size() > 1)
        others += ", " + plan.axes[a].label() + " = " + line_value(plan.axes[a], p.values[a]);
    for (const std::string& metric : c.metrics) {
      const std::size_t col =
          std::find(plan.metrics.begin(), plan.metrics.end(), metric) - plan.metrics.begin();
      if (col >= r.cells.size() || r.cells[col].empty()) continue;
      const std::string prefix = several ? metric + ", " : "";
      std::string line, title;
      if (la < plan.axes.size()) {
        const std::string v = line_value(plan.axes[la], p.values[la]);
        line = prefix + v + others;
        title = prefix + plan.axes[la].label() + " = " + v + others;
      } else {
        line = title = metric + others;
      }
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) {
        lines.push_back(line);
        titles.push_back(title);
      }
      table[x.at[xi]][line] = r.cells[col];
    }
  }
  const std::string csv = (fs::path(dir) / ("chart_" + std::to_string(k) + ".csv")).string();
  std::string text = "x";
  for (const std::string& line : lines) text += "," + csv_field(line);
  text += "\n";
  for (const auto& [xv, cells] : table) {
    text += csv_number(xv);
    for (const std::string& line : lines)
      text += "," + (cells.count(line) ? cells.at(line) : std::string());
    text += "\n";
  }
  write_output_file(csv, text);
  std::string names;
  for (const std::string& m : c.metrics) names += (names.empty() ? "" : ", ") + m;
  const std::string unit = find_phase_metric(c.metrics.front())->unit;
  Chart chart{c.title.empty() ? plan.name + ": " + names + " (" + phase + ")" : c.title,
              x.label,
              several ? unit : names + " (" + unit + ")",
              {},
              false};
  for (std::size_t l = 0; l < lines.size(); ++l)
    chart.series.push_back({csv, 1, static_cast<int>(l) + 2, titles[l], "", false, true});
  chart.points = false;
  charts.draw(
      chart,
      (fs::path(dir) / (c.file.empty() ? "chart_" + std::to_string(k) + ".png" : c.file)).string());
}

}  // namespace

CollectCounts collect_sweep(const std::string& dir) {
  const SweepPlan plan = read_plan(dir);
  CollectCounts n;
  n.points = plan.points.size();
  std::vector<Row> rows;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const fs::path pdir = point_dir(dir, i);
    if (!point_finished(dir, plan, i)) {
      const fs::path err = pdir / "error.txt";
      std::string why = fs::exists(err) ? read_file(err.string()) : "not run yet";
      std::replace(why.begin(), why.end(), '\n', ' ');
      n.failures.push_back("point " + std::to_string(i) + ": " + why);
      continue;
    }
    ++n.finished;
    // The same reader as the regression gate's: cells kept as the run wrote them.
    const RunMetrics m = load_run_metrics(pdir.string());
    for (const std::string& phase : m.phases) {
      if (!plan.phases.empty() &&
          std::find(plan.phases.begin(), plan.phases.end(), phase) == plan.phases.end())
        continue;
      Row r{i, phase, {}};
      for (const std::string& metric : plan.metrics) {
        const auto cell = m.cells.find({phase, metric});
        r.cells.push_back(cell == m.cells.end() ? std::string() : cell->second);
      }
      rows.push_back(std::move(r));
    }
  }
  std::string units = "# unit,-", header = "point";
  for (const SweepAxis& a : plan.axes) {
    units += ",-";
    header += "," + csv_field(a.key);
  }
  units += ",-";
  header += ",phase";
  for (const std::string& m : plan.metrics) {
    units += std::string(",") + find_phase_metric(m)->unit;
    header += "," + m;
  }
  std::string text = units + "\n" + header + "\n";
  for (const Row& r : rows) {
    text += std::to_string(r.point);
    for (const std::string& v : plan.points[r.point].values) text += "," + csv_field(v);
    text += "," + csv_field(r.phase);
    for (const std::string& c : r.cells) text += "," + c;
    text += "\n";
  }
  write_output_file((fs::path(dir) / "results.csv").string(), text);
  n.rows = rows.size();
  ChartBatch charts;  // each chart draws while the next one's CSV is written
  for (std::size_t k = 0; k < plan.charts.size(); ++k) {
    // A chart draws from the collected columns only.
    const auto missing = std::find_if(
        plan.charts[k].metrics.begin(), plan.charts[k].metrics.end(), [&](const std::string& m) {
          return std::find(plan.metrics.begin(), plan.metrics.end(), m) == plan.metrics.end();
        });
    if (missing != plan.charts[k].metrics.end()) {
      charts.finish();  // the earlier charts' warnings first, as requested
      std::fprintf(stderr,
                   "ssdtwin sweep: chart %zu: %s is not among the sweep's metrics; skipped\n", k,
                   missing->c_str());
      continue;
    }
    draw_sweep_chart(dir, plan, plan.charts[k], k, rows, charts);
  }
  charts.finish();
  return n;
}

namespace {

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find the ssdtwin binary (/proc/self/exe): " + ec.message());
  return p.string();
}

std::string human_seconds(double s) {
  char buf[32];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  return buf;
}

// The local backend: up to `workers` points at once, each as its own
// process (`ssdtwin sweep --run-point DIR N`, as a Slurm array task runs it).
int run_local(const SweepPlan& plan, const std::string& dir, std::size_t workers,
              const std::string& exe, bool quiet) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    if (!point_finished(dir, plan, i)) todo.push_back(i);
  const std::size_t skipped = plan.points.size() - todo.size();
  if (!quiet && skipped > 0)
    std::fprintf(stderr, "sweep: %zu of %zu points already finished; skipped\n", skipped,
                 plan.points.size());
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0, failed = 0;
  while (next < todo.size() || !running.empty()) {
    while (running.size() < workers && next < todo.size()) {
      const std::size_t i = todo[next++];
      const std::string idx = std::to_string(i);
      const pid_t pid = ::fork();
      if (pid < 0)
        throw std::runtime_error(std::string("cannot start a worker: ") + std::strerror(errno));
      if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) ::dup2(null, 1);
        ::execl(exe.c_str(), exe.c_str(), "sweep", "--run-point", dir.c_str(), idx.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
      }
      running[pid] = i;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waiting for a worker: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ++done;
    failed += !ok;
    if (!ok && !fs::exists(fs::path(point_dir(dir, i)) / "error.txt"))
      write_output_file((fs::path(point_dir(dir, i)) / "error.txt").string(),
                        "the point's worker ended with status " + std::to_string(status) + "\n");
    if (!quiet) {
      const double el =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::size_t left = todo.size() - done;
      // Points left over the rate points have finished at so far.
      const double eta = el / static_cast<double>(done) * static_cast<double>(left);
      std::fprintf(stderr, "sweep: %zu/%zu done, %zu failed, %zu running, %s elapsed, ETA %s%s\n",
                   done + skipped, plan.points.size(), failed, running.size(),
                   human_seconds(el).c_str(), human_seconds(eta).c_str(),
                   ok ? "" : ("  (point " + std::to_string(i) + " failed)").c_str());
    }
  }
  return failed > 0 ? 1 : 0;
}

// collect_sweep, and what it found: each point not finished, then the tally.
CollectCounts collect_and_report(const std::string& dir) {
  const CollectCounts n = collect_sweep(dir);
  for (const std::string& f : n.failures) std::fprintf(stderr, "sweep: %s\n", f.c_str());
  std::printf("sweep: %zu of %zu points finished; %zu rows in %s\n", n.finished, n.points, n.rows,
              (fs::path(dir) / "results.csv").c_str());
  return n;
}

// The Slurm backend: a job array of the points not finished yet, each
// task `ssdtwin sweep --run-point DIR $SLURM_ARRAY_TASK_ID`.
int submit_slurm(const SweepPlan& plan, const std::string& dir, const std::string& exe,
                 bool submit) {
  std::string array;
  std::size_t n = 0;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    if (point_finished(dir, plan, i)) continue;
    array += (n++ ? "," : "") + std::to_string(i);
  }
  if (n == 0) {
    std::printf("sweep: every point is finished; nothing to submit (ssdtwin sweep --collect %s)\n",
                dir.c_str());
    return 0;
  }
  const std::string abs_dir = fs::absolute(dir).lexically_normal().string();
  fs::create_directories(fs::path(abs_dir) / "slurm");
  std::string s =
      "#!/bin/bash\n# Written by ssdtwin sweep: one array task per point not finished yet.\n";
  // A job name is one word: anything but letters, digits, '-' and '_' becomes '_'.
  std::string job = "ssdtwin-" + plan.name;
  for (char& c : job)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  s += "#SBATCH --job-name=" + job.substr(0, 64) + "\n";
  s += "#SBATCH --array=" + array + "\n";
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --output=" + abs_dir + "/slurm/%A_%a.out\n";
  if (!plan.slurm.partition.empty()) s += "#SBATCH --partition=" + plan.slurm.partition + "\n";
  if (!plan.slurm.time.empty()) s += "#SBATCH --time=" + plan.slurm.time + "\n";
  if (!plan.slurm.account.empty()) s += "#SBATCH --account=" + plan.slurm.account + "\n";
  for (const std::string& e : plan.slurm.extra) s += "#SBATCH " + e + "\n";
  s += "exec '" + exe + "' sweep --run-point '" + abs_dir + "' \"$SLURM_ARRAY_TASK_ID\"\n";
  const std::string script = (fs::path(abs_dir) / "sweep.sbatch").string();
  write_output_file(script, s);
  if (!submit) {
    std::printf("sweep: wrote %s (%zu points); submit it with sbatch\n", script.c_str(), n);
    return 0;
  }
  const std::string cmd = "sbatch --parsable '" + script + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run sbatch: " + std::string(std::strerror(errno)));
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (rc != 0) {
    std::fprintf(stderr, "ssdtwin sweep: sbatch failed: %s\n", out.c_str());
    return 1;
  }
  const std::string id = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  std::printf("submitted job %s\n", id.substr(0, id.find(';')).c_str());
  std::printf(
      "sweep: %zu points as array tasks; when the job is done: ssdtwin sweep --collect %s\n", n,
      abs_dir.c_str());
  return 0;
}

}  // namespace

int sweep_main(int argc, char** argv) {
  namespace po = boost::program_options;
  std::string file, out, backend = "local", collect;
  std::vector<std::string> run_point_args;
  // Signed: an unsigned option would read -1 as 4294967295 workers.
  long long jobs = std::max(1u, std::thread::hardware_concurrency());
  bool quiet = false, no_submit = false;
  po::options_description opts("ssdtwin sweep SWEEP.yaml --out DIR [options]");
  opts.add_options()("help,h", "show this help")("out,o", po::value(&out), "the sweep's folder")(
      "jobs,j", po::value(&jobs), "local backend: points run at once (default: the cores)")(
      "backend", po::value(&backend),
      "local (default) or slurm (a job array, submitted with sbatch)")(
      "no-submit", po::bool_switch(&no_submit),
      "slurm: write DIR/sweep.sbatch but do not submit it")(
      "collect", po::value(&collect),
      "rebuild DIR/results.csv and the charts from the folders of DIR")(
      "quiet,q", po::bool_switch(&quiet), "no progress lines")(
      "run-point", po::value(&run_point_args)->multitoken(),
      "DIR N: run point N of the sweep in DIR (a worker's or array task's job)");
  po::options_description hidden;
  hidden.add_options()("file", po::value(&file));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("file", 1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << opts << "\n";
      return 0;
    }
    if (!run_point_args.empty()) {
      if (run_point_args.size() != 2 ||
          run_point_args[1].find_first_not_of("0123456789") != std::string::npos ||
          run_point_args[1].empty())
        throw po::error("--run-point expects DIR and a point number");
      return run_point(run_point_args[0], std::stoul(run_point_args[1]), self_exe());
    }
    if (!collect.empty()) return collect_and_report(collect).failures.empty() ? 0 : 1;
    if (file.empty() || out.empty()) throw po::error("sweep needs a sweep file and --out DIR");
    if (backend != "local" && backend != "slurm")
      throw po::error("--backend expects local or slurm");
    if (jobs < 1) throw po::error("--jobs expects at least 1, got " + std::to_string(jobs));
    const SweepPlan plan = plan_sweep(file);
    write_plan(plan, out);
    const std::string exe = self_exe();
    if (!quiet)
      std::fprintf(stderr, "sweep '%s': %zu points (%zu shared preconditionings), %s backend%s\n",
                   plan.name.c_str(), plan.points.size(), plan.groups.size(), backend.c_str(),
                   backend == "local" ? (", " + std::to_string(jobs) + " workers").c_str() : "");
    if (backend == "slurm") return submit_slurm(plan, out, exe, !no_submit);
    const int rc = run_local(plan, out, static_cast<std::size_t>(jobs), exe, quiet);
    collect_and_report(out);
    return rc;
  } catch (const po::error& e) {
    std::fprintf(stderr, "ssdtwin sweep: %s (see ssdtwin sweep --help)\n", e.what());
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const CompareInputError& e) {  // a point's metrics.csv that cannot be read
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ssdtwin sweep: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace ssdtwin
