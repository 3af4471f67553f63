// `ssdtwin compare`, the regression gate (issue 14): baselines and
// metrics.csv files written here by hand, and one gate over real runs whose
// GC was changed on purpose.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/block_metrics.h"
#include "app/compare.h"
#include "app/config_params.h"
#include "app/report_procedures.h"
#include "app/run_metrics.h"
#include "app/sweep_keys.h"
#include "app/timeseries_columns.h"

using namespace ssdtwin;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case: ctest runs cases in parallel processes.
fs::path scratch_dir() {
  static int cases = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("ssdtwin_app_" + std::to_string(getpid()) + "_" + std::to_string(++cases));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A metrics.csv as `ssdtwin run` writes it: units, header, a row per phase.
const char* kMetrics =
    "# unit,-,s,IOPS,ratio,share\n"
    "phase,sim_seconds,write.iops,write_amplification,map_cache.hit_rate\n"
    "fill,12.5,1000,1,\n"
    "randwrite,60,20000,2.5,0.9\n";

const char* kHeader = "run,phase,metric,expected,tolerance,direction\n";

struct Result {
  int status;
  std::string out, err;
};

struct Gate {
  fs::path dir = scratch_dir();
  std::string baseline_path = (dir / "baseline.csv").string();

  // RUN_DIR `name` holding `metrics`; returns its path.
  std::string run(const std::string& name, const std::string& metrics = kMetrics) {
    spit(dir / "runs" / name / "metrics.csv", metrics);
    return (dir / "runs" / name).string();
  }
  void baseline(const std::string& text) { spit(baseline_path, text); }
  Result compare(const std::vector<std::string>& run_dirs, bool update = false) {
    CompareOptions o;
    o.baseline = baseline_path;
    o.run_dirs = run_dirs;
    o.update = update;
    std::ostringstream out, err;
    const int status = run_compare(o, out, err);
    return {status, out.str(), err.str()};
  }
  // One baseline row against the standard metrics of run `rw`.
  Result check_row(const std::string& row) {
    baseline(std::string(kHeader) + row + "\n");
    return compare({run("rw")});
  }
};

// The error a baseline gets, with the place it names.
std::string baseline_error(const std::string& text) {
  Gate g;
  g.baseline(text);
  const Result r = g.compare({g.run("rw")});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  const std::string prefix = g.baseline_path + ":";
  REQUIRE(r.err.rfind(prefix, 0) == 0);
  return r.err.substr(prefix.size());
}

// Each of `parts` appears in `text` (one check each, so a failure names it).
void check_contains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) CHECK_THAT(text, Catch::Contains(part));
}

}  // namespace

TEST_CASE("compare: every metric within its tolerance holds, exit 0", "[app][compare]") {
  Gate g;
  g.baseline(std::string("# a comment\n") + kHeader +
             "rw, randwrite, write.iops,          20100, 1%,   lower\n"
             "rw, randwrite, write_amplification, 2.45,  0.1,  higher\n"
             "rw, fill,      sim_seconds,         12.5,  0,    both\n");
  const Result r = g.compare({g.run("rw")});
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("all 3 metrics of 1 runs hold"));
}

TEST_CASE("compare: a move beyond a percentage tolerance fails and names the metric, exit 1",
          "[app][compare]") {
  const Result r = Gate().check_row("rw,randwrite,write_amplification,2.3,5%,higher");
  CHECK(r.status == 1);
  // The table: run, phase, metric, expected, measured, change, tolerance, status.
  check_contains(
      r.out, {"randwrite", "write_amplification", "+8.70%", "FAIL: rose", "1 of 1 metrics failed"});
}

TEST_CASE("compare: a percentage is of the expected value, an absolute tolerance is not",
          "[app][compare]") {
  // 20000 measured: 5% of 19100 is 955, a move of 900 holds; 0.04 absolute
  // around 0.95 does not hold for 0.9.
  CHECK(Gate().check_row("rw,randwrite,write.iops,19100,5%,both").status == 0);
  CHECK(Gate().check_row("rw,randwrite,write.iops,19000,5%,both").status == 1);
  CHECK(Gate().check_row("rw,randwrite,map_cache.hit_rate,0.95,0.05,both").status == 0);
  CHECK(Gate().check_row("rw,randwrite,map_cache.hit_rate,0.95,0.04,both").status == 1);
}

TEST_CASE("compare: with a direction only a move that way is a regression", "[app][compare]") {
  // IOPS up 25%: not a regression where only a drop is one, and listed as improved.
  const Result up = Gate().check_row("rw,randwrite,write.iops,16000,2%,lower");
  CHECK(up.status == 0);
  check_contains(up.out, {"improved", "1 improved beyond the tolerance"});
  const Result down = Gate().check_row("rw,randwrite,write.iops,25000,2%,lower");
  CHECK(down.status == 1);
  CHECK_THAT(down.out, Catch::Contains("FAIL: dropped"));
  CHECK(Gate().check_row("rw,randwrite,write_amplification,3,2%,higher").status == 0);
  CHECK(Gate().check_row("rw,randwrite,write_amplification,2,2%,higher").status == 1);
  CHECK(Gate().check_row("rw,randwrite,write_amplification,3,2%,both").status == 1);
}

TEST_CASE("compare: a missing phase, metric, value or run fails naming it", "[app][compare]") {
  Gate g;
  g.baseline(std::string(kHeader) +
             "rw,trim,write.iops,1,1%,both\n"
             "rw,randwrite,read.iops,1,1%,both\n"
             "rw,fill,map_cache.hit_rate,1,1%,both\n"
             "other,fill,write.iops,1000,1%,both\n");
  const Result r = g.compare({g.run("rw")});
  CHECK(r.status == 1);
  check_contains(r.out,
                 {"FAIL: no such phase in metrics.csv", "FAIL: no such metric in metrics.csv",
                  "FAIL: no value", "FAIL: run not given", "read.iops", "4 of 4 metrics failed"});
}

TEST_CASE("compare: the table lists only what moved, each row once", "[app][compare]") {
  Gate g;
  g.baseline(std::string(kHeader) +
             "rw,randwrite,write.iops,20000,1%,lower\n"
             "rw,randwrite,write_amplification,2,1%,higher\n");
  const Result r = g.compare({g.run("rw")});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, !Catch::Contains("write.iops"));
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  CHECK_THAT(header, Catch::StartsWith("run"));
  check_contains(header, {"expected", "measured", "tolerance"});
  CHECK_THAT(header, Catch::EndsWith("status"));
}

TEST_CASE("compare: a bad baseline is an error naming file, line and column, exit 2",
          "[app][compare]") {
  std::string h = kHeader;
  CHECK_THAT(baseline_error(h + "rw,randwrite,write.iops,20000,5 percent,lower\n"),
             Catch::StartsWith("2:31: tolerance: '5 percent' is neither"));
  CHECK_THAT(baseline_error(h + "# c\nrw,randwrite,write.iops,20000,5%,down\n"),
             Catch::StartsWith("3:34: direction: 'down' is not both, lower"));
  CHECK_THAT(baseline_error(h + "rw,randwrite,write.iops,2e4x,5%,lower\n"),
             Catch::StartsWith("2:25: expected: '2e4x' is not a number"));
  CHECK_THAT(baseline_error(h + "rw,randwrite,write.iops,20000,5%\n"),
             Catch::StartsWith("2:33: expected 6 cells as in the header, found 5"));
  CHECK_THAT(baseline_error(h + "rw,randwrite,write.iops,1,5%,lower,x\n"),
             Catch::StartsWith("2:36: expected 6 cells"));
  CHECK_THAT(baseline_error("run,phase,metric,expected,tol,direction\n"),
             Catch::StartsWith("1:27: unknown column 'tol'"));
  CHECK_THAT(baseline_error(h + "rw,fill,write.iops,1,1%,both\nrw,fill,write.iops,2,1%,both\n"),
             Catch::StartsWith("3:9: run 'rw' phase 'fill' metric 'write.iops' already on line 2"));
  CHECK_THAT(baseline_error(h + "rw,\"fill,write.iops,1,1%,both\n"),
             Catch::StartsWith("2:4: unterminated quoted cell"));
  CHECK_THAT(baseline_error(h + "rw,fill,,1,1%,both\n"), Catch::StartsWith("2:9: empty metric"));
  CHECK_THAT(baseline_error("# only a comment\n"), Catch::StartsWith(" no header line"));
}

TEST_CASE("compare: a bad metrics.csv or a RUN_DIR without one is an error, exit 2",
          "[app][compare]") {
  Gate g;
  g.baseline(std::string(kHeader) + "rw,fill,write.iops,1000,1%,both\n");
  const std::string dir = g.run("rw", "# unit,-\nstage,write.iops\nfill,1000\n");
  Result r = g.compare({dir});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith(dir + "/metrics.csv:2:1: expected the header 'phase,"));
  g.run("rw", "phase,write.iops\nfill,1000,7\n");
  r = g.compare({dir});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith(dir + "/metrics.csv:2:11: expected 2 cells"));
  fs::remove(fs::path(dir) / "metrics.csv");
  r = g.compare({dir});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("metrics.csv: not found"));
}

TEST_CASE("compare: a RUN_DIR the baseline does not name, or two of one name, is an error",
          "[app][compare]") {
  Gate g;
  g.baseline(std::string(kHeader) + "rw,fill,write.iops,1000,1%,both\n");
  Result r = g.compare({g.run("rw"), g.run("rw_typo")});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("no rows for run 'rw_typo'"));
  spit(g.dir / "elsewhere" / "rw" / "metrics.csv", kMetrics);
  r = g.compare({g.run("rw") + "/", (g.dir / "elsewhere" / "rw").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("have the same name 'rw'"));
}

TEST_CASE("compare --update rewrites expected values in place and prints the diff",
          "[app][compare]") {
  Gate g;
  const std::string before =
      "# Regression baseline\n"
      "run, phase,     metric,              expected, tolerance, direction\n"
      "rw,  randwrite, write.iops,          18000,    2%,        lower\n"
      "# GC\n"
      "rw,  randwrite, write_amplification, 2.5,      1%,        higher\n"
      "rw,  fill,      sim_seconds,         ,         0.5,       both\n"
      "other, fill,    write.iops,          7,        1%,        both\n";
  g.baseline(before);
  const Result r = g.compare({g.run("rw")}, true);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  // The diff: the changed value (old, new, change) and the one that was not set.
  check_contains(r.out,
                 {"write.iops", "18000", "+11.11%", "sim_seconds", "2 expected values updated"});
  CHECK_THAT(r.out, !Catch::Contains("write_amplification"));
  // Comments, order, padding, tolerances and other runs' rows stay as they were.
  CHECK(slurp(g.baseline_path) ==
        "# Regression baseline\n"
        "run, phase,     metric,              expected, tolerance, direction\n"
        "rw,  randwrite, write.iops,          20000,    2%,        lower\n"
        "# GC\n"
        "rw,  randwrite, write_amplification, 2.5,      1%,        higher\n"
        "rw,  fill,      sim_seconds,         12.5,         0.5,       both\n"
        "other, fill,    write.iops,          7,        1%,        both\n");
  CHECK_FALSE(fs::exists(g.baseline_path + ".tmp"));
  CHECK(g.compare({g.run("rw")}, true).out.find("unchanged") != std::string::npos);
  CompareOptions o;
  o.baseline = g.baseline_path;
  o.run_dirs = {g.run("rw")};
  o.partial = true;
  std::ostringstream out, err;
  CHECK(run_compare(o, out, err) == 0);
}

TEST_CASE("compare --update leaves rows it cannot measure and fails naming them",
          "[app][compare]") {
  Gate g;
  const std::string text = std::string(kHeader) +
                           "rw,randwrite,write.iops,19000,1%,lower\n"
                           "rw,randwrite,nand.erases,5,1%,both\n";
  g.baseline(text);
  const Result r = g.compare({g.run("rw")}, true);
  CHECK(r.status == 1);
  check_contains(r.out, {"not updated", "nand.erases"});
  CHECK(slurp(g.baseline_path) == std::string(kHeader) +
                                      "rw,randwrite,write.iops,20000,1%,lower\n"
                                      "rw,randwrite,nand.erases,5,1%,both\n");
}

namespace {

// The binary's exit status and what it printed (both streams).
Result run_ssdtwin(const std::string& args) {
  const std::string cmd = std::string(SSDTWIN_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out, ""};
}

}  // namespace

TEST_CASE("compare: changing a GC parameter fails the gate with the metric named",
          "[app][compare][e2e]") {
  const fs::path dir = scratch_dir();
  const std::string src = SSDTWIN_SOURCE_DIR;
  const std::string base_args = "run -q --drive " + src + "/configs/drives/test_tlc_1gb.yaml" +
                                " --workload " + src + "/tests/regression/workloads/gc_steady.yaml";
  // The same case name in two folders: the baseline tells runs apart by name.
  const std::string before = (dir / "before" / "gc").string();
  const std::string after = (dir / "after" / "gc").string();
  REQUIRE(run_ssdtwin(base_args + " --out " + before).status == 0);
  // GC starts collecting at 12 free blocks per die instead of 6: less of the
  // spare area holds invalid data to collect, so each victim holds more valid pages.
  REQUIRE(run_ssdtwin(base_args + " --out " + after + " --set drive.ftl.gc.trigger_free_blocks=12")
              .status == 0);

  const std::string baseline = (dir / "baseline.csv").string();
  spit(baseline, std::string(kHeader) +
                     "gc,randwrite,write_amplification,,1%,higher\n"
                     "gc,randwrite,write.iops,,2%,lower\n");
  const Result update = run_ssdtwin("compare --update --baseline " + baseline + " " + before);
  CHECK(update.status == 0);
  CHECK_THAT(update.out, Catch::Contains("2 expected values updated"));

  const Result same = run_ssdtwin("compare --baseline " + baseline + " " + before);
  CHECK(same.status == 0);
  CHECK_THAT(same.out, Catch::Contains("all 2 metrics of 1 runs hold"));

  const Result changed = run_ssdtwin("compare --baseline " + baseline + " " + after);
  INFO(changed.out);
  CHECK(changed.status == 1);
  check_contains(changed.out, {"write_amplification", "FAIL: rose"});
}

TEST_CASE("compare: the command line is checked, exit 2", "[app][compare][e2e]") {
  Result r = run_ssdtwin("compare /nonexistent");
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("--baseline is required"));
  r = run_ssdtwin("compare --baseline /nonexistent/baseline.csv");
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("give at least one RUN_DIR"));
  r = run_ssdtwin("compare --baseline /nonexistent/baseline.csv somewhere");
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("/nonexistent/baseline.csv: cannot read the baseline"));
  CHECK(run_ssdtwin("compare --help").status == 0);
}

// ---- Declared config keys (sim/params.h, app/config_params.h) ----

TEST_CASE("params: every declared key has a description and a default of its kind",
          "[app][params]") {
  CHECK(ssdtwin::check_declarations(ssdtwin::config_sections()) == "");
  for (const ssdtwin::ParamSection* s : ssdtwin::config_sections()) {
    const bool rooted = s->path.rfind("drive", 0) == 0 || s->path.rfind("workload", 0) == 0 ||
                        s->path.rfind("sweep", 0) == 0;
    CHECK(rooted);
  }
}

TEST_CASE(
    "params: docs/CONFIG.md is the generated reference (regenerate: build/ssdtwin params "
    "--markdown > docs/CONFIG.md)",
    "[app][params]") {
  std::ifstream in(std::string(SSDTWIN_SOURCE_DIR) + "/docs/CONFIG.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == ssdtwin::config_markdown());
}

// ---- Declared statistics (app/phase_metrics.h, app/block_metrics.h,
// app/report_procedures.h) ----

TEST_CASE("metrics: each key of a phase's blocks is declared once, with a unit and a description",
          "[app][metrics]") {
  REQUIRE(!ssdtwin::metric_blocks().empty());
  for (const ssdtwin::MetricBlock& b : ssdtwin::metric_blocks()) {
    INFO(b.path);
    const bool array = b.path.size() > 2 && b.path.compare(b.path.size() - 2, 2, "[]") == 0;
    CHECK(array == (b.rows != nullptr));  // a family says how many rows it has
    std::set<std::string> names;
    for (const ssdtwin::RowMetric& m : b.metrics) {
      INFO(m.name);
      CHECK(names.insert(m.name).second);
      CHECK(std::string(m.unit) != "");
      CHECK(std::string(m.description) != "");
    }
  }
}

TEST_CASE("metrics: timeseries.csv's columns are declared once, power last and only with a meter",
          "[app][metrics]") {
  const auto with = ssdtwin::timeseries_columns(true);
  const auto without = ssdtwin::timeseries_columns(false);
  REQUIRE(with.size() == without.size() + 1);
  CHECK(std::string(with.back().name) == "power_w");
  std::set<std::string> names;
  for (const ssdtwin::TimeseriesColumn& c : with) {
    INFO(c.name);
    CHECK(names.insert(c.name).second);
    CHECK(std::string(c.unit) != "");
    CHECK(std::string(c.description) != "");
  }
  // Every sampled activity column is in the file, after the host figures.
  for (const ssdtwin::ActivityColumn& a : ssdtwin::activity_columns()) CHECK(names.count(a.name));
  // Charts name columns as gnuplot counts them, from 1.
  CHECK(ssdtwin::timeseries_column("phase", false) == 1);
  CHECK(ssdtwin::timeseries_column("time_s", false) == 2);
  CHECK(ssdtwin::timeseries_column("power_w", true) == static_cast<int>(with.size()));
  CHECK(ssdtwin::timeseries_column("power_w", false) == 0);
}

TEST_CASE("metrics: `ssdtwin metrics` lists each block, its keys and their units",
          "[app][metrics][e2e]") {
  const Result r = run_ssdtwin("metrics");
  REQUIRE(r.status == 0);
  check_contains(r.out, {"write_amplification",
                         "durability:",
                         "trace:",
                         "jobs[]:",
                         "namespaces[]:",
                         "fdp:",
                         "fdp.handles[]:",
                         "events.media_reallocated",
                         "queue_delay_us.read.p99",
                         "timeseries.csv:",
                         "free_blocks_per_die",
                         "power_w",
                         "Phase header:",
                         "read.share_under.*",
                         "power.time_in_state_s.*",
                         "drive_model:",
                         "drive_model.zoned:",
                         "run:",
                         "verify:",
                         "power_cuts[]:",
                         "config:",
                         "ssdtwin_version",
                         "pages_lost",
                         "errors.zone_is_full",
                         "phases[].steady_state:",
                         "window_line_change_iops",
                         "load_curve.peaks{}:",
                         "recovery.phases[]:",
                         "noisy_neighbor[]:",
                         "read_p99_9_us"});
}

TEST_CASE(
    "metrics: each key of a procedure's blocks is declared once, with a unit and a description",
    "[app][metrics]") {
  for (const auto* blocks : {&procedure_phase_blocks(), &procedure_run_blocks()}) {
    REQUIRE(!blocks->empty());
    for (const ProcedureBlock& b : *blocks) {
      INFO(b.path);
      const char last = b.path.empty() ? ' ' : b.path.back();
      CHECK((last == ']' || last == '}') == (b.rows != nullptr));  // a family has rows
      CHECK((b.applies != nullptr || b.rows != nullptr));
      std::set<std::string> names;
      for (const ProcedureMetric& m : b.metrics) {
        INFO(m.name);
        CHECK(names.insert(m.name).second);
        CHECK(std::string(m.unit) != "");
        CHECK(std::string(m.description) != "");
      }
    }
  }
}

namespace {

// The declared keys of the block at `path` in `blocks`.
std::vector<std::string> declared(const std::vector<ProcedureBlock>& blocks,
                                  const std::string& path) {
  for (const ProcedureBlock& b : blocks)
    if (b.path == path) {
      std::vector<std::string> names;
      for (const ProcedureMetric& m : b.metrics) names.push_back(m.name);
      return names;
    }
  FAIL("no block " << path);
  return {};
}

std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (const auto& item : j.items()) k.push_back(item.key());
  return k;
}

// Whether `sub` is `all` with some keys left out, in the same order.
bool in_order(const std::vector<std::string>& sub, const std::vector<std::string>& all) {
  std::size_t i = 0;
  for (const std::string& k : all)
    if (i < sub.size() && sub[i] == k) ++i;
  return i == sub.size();
}

}  // namespace

TEST_CASE("metrics: a procedure run writes exactly the declared keys, in declared order",
          "[app][metrics][e2e]") {
  const fs::path dir = scratch_dir();
  spit(dir / "w.yaml", R"(workload:
  name: procedures
  seed: 1
  timeseries: {interval: 100ms}
  phases:
    - {name: fob, role: fob, rw: randwrite, bs: 4KiB, iodepth: 8, size: 64MB, runtime: 200ms}
    - {name: fill, precondition: true, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: degrade, role: degrade, rw: randwrite, bs: 4KiB, iodepth: 8, runtime: 2s,
       until_steady: {round: 200ms, rounds: 3, tolerance: 50%}}
    - {name: steady, role: steady, rw: randwrite, bs: 4KiB, iodepth: 8, size: 64MB, runtime: 200ms}
    - {name: recovered, role: recovered, rw: randwrite, bs: 4KiB, iodepth: 8, size: 64MB,
       runtime: 200ms}
    - {name: lat, rw: randread, bs: 4KiB, iodepth: 4, runtime: 300ms, report: latency}
    - {name: seq, rw: write, bs: 128KiB, iodepth: 8, size: 32MB, io_size: 64MB, report: bandwidth}
    - {name: qd, rw: randread, bs: 4KiB, iodepth: [1, 4], runtime: 100ms, report: qd_sweep}
    - {name: sz, rw: read, bs: [16KiB, 64KiB], iodepth: 4, size: 16MB, io_size: 16MB,
       report: size_sweep}
    - {name: lc, rw: randread, bs: 4KiB, iodepth: 16, size: 5%, runtime: 200ms,
       load_curve: {steps: [50, 100]}}
    - name: nn
      report: noisy_neighbor
      jobs:
        - {name: a, rw: randread, bs: 4KiB, iodepth: 2, runtime: 200ms}
        - {name: b, rw: randwrite, bs: 4KiB, iodepth: 8, runtime: 200ms}
)");
  const Result r = run_ssdtwin("run -q --charts none --drive " + std::string(SSDTWIN_SOURCE_DIR) +
                               "/configs/drives/test_tlc_1gb.yaml --workload " +
                               (dir / "w.yaml").string() + " --out " + (dir / "out").string());
  REQUIRE(r.status == 0);
  const auto summary = nlohmann::ordered_json::parse(slurp(dir / "out" / "summary.json"));

  // A phase's blocks: in order, and between them every declared key but
  // slope_tolerance (only an fio job's test differs in slope) appears.
  const std::vector<ProcedureBlock>& phase_blocks = procedure_phase_blocks();
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& p : summary["phases"]) {
    CHECK(p.contains("device_qd_peak"));
    const std::string name = p["name"];
    CHECK(p.contains("role") ==
          (name == "fob" || name == "degrade" || name == "steady" || name == "recovered"));
    for (const ProcedureBlock& b : phase_blocks) {
      if (b.path.empty() || !p.contains(b.path)) continue;
      INFO(name << " " << b.path);
      CHECK(in_order(keys(p[b.path]), declared(phase_blocks, b.path)));
      for (const std::string& k : keys(p[b.path])) seen[b.path].insert(k);
    }
    if (p.contains("role")) seen[""].insert("role");
    seen[""].insert("device_qd_peak");
  }
  for (const ProcedureBlock& b : phase_blocks)
    for (const ProcedureMetric& m : b.metrics)
      if (m.name != "slope_tolerance") CHECK(seen[b.path].count(m.name));

  // The run's blocks: every row holds exactly the declared keys.
  const std::vector<ProcedureBlock>& run_blocks = procedure_run_blocks();
  const auto rows_of = [&](const std::string& path) { return declared(run_blocks, path); };
  for (const char* path : {"qd_sweep", "size_sweep", "noisy_neighbor"}) {
    INFO(path);
    REQUIRE(summary.contains(path));
    CHECK(!summary[path].empty());
    for (const auto& row : summary[path]) CHECK(keys(row) == rows_of(std::string(path) + "[]"));
  }
  for (const auto& row : summary["load_curve"]["steps"])
    CHECK(keys(row) == rows_of("load_curve.steps[]"));
  REQUIRE(summary["load_curve"]["peaks"].contains("lc"));
  CHECK(keys(summary["load_curve"]["peaks"]["lc"]) == rows_of("load_curve.peaks{}"));
  std::vector<std::string> recovery = rows_of("recovery");
  recovery.push_back("phases");
  CHECK(keys(summary["recovery"]) == recovery);
  CHECK(summary["recovery"]["phases"].size() == 4);
  for (const auto& row : summary["recovery"]["phases"])
    CHECK(keys(row) == rows_of("recovery.phases[]"));
}

// ---- The run-level keys (app/run_metrics.h) ----

namespace {

template <class Source>
void check_declared(const std::vector<MetricDef<Source>>& table) {
  std::set<std::string> names;
  for (const MetricDef<Source>& m : table) {
    INFO(m.name);
    CHECK(names.insert(m.name).second);
    CHECK(std::string(m.unit) != "");
    CHECK(std::string(m.description) != "");
  }
}

// The keys of `o`, in order.
std::vector<std::string> keys_of(const nlohmann::ordered_json& o) {
  std::vector<std::string> k;
  for (const auto& item : o.items()) k.push_back(item.key());
  return k;
}

// The declared keys of `table` directly under its block (the first part of
// a dotted name), in order, once each.
template <class Source>
std::vector<std::string> declared_keys(const std::vector<MetricDef<Source>>& table) {
  std::vector<std::string> k;
  for (const MetricDef<Source>& m : table) {
    const std::string first = m.name.substr(0, m.name.find('.'));
    if (k.empty() || k.back() != first) k.push_back(first);
  }
  return k;
}

const RunBlock& run_block(const std::string& path, RunPlace place) {
  for (const RunBlock& b : run_blocks())
    if (b.path == path && b.place == place) return b;
  FAIL("no run block " << path);
  return run_blocks().front();
}

nlohmann::ordered_json run_summary(const std::string& drive, const std::string& workload,
                                   const fs::path& out, const std::string& extra = "") {
  const std::string src = SSDTWIN_SOURCE_DIR;
  const Result r =
      run_ssdtwin("run -q --drive " + src + "/configs/drives/" + drive + " --workload " + src +
                  "/configs/workloads/" + workload + " --out " + out.string() + " " + extra);
  INFO(r.out);
  REQUIRE(r.status == 0);
  return nlohmann::ordered_json::parse(slurp(out / "summary.json"));
}

}  // namespace

TEST_CASE(
    "metrics: each run-level key and phase header key is declared once, with a unit and "
    "a description",
    "[app][metrics]") {
  check_declared(phase_header_metrics());
  for (const PhaseFamily& f : phase_families()) {
    check_declared(f.metrics);
    for (const MetricDef<PhaseRow>& m : f.metrics) {
      INFO(m.name);
      const std::size_t star = m.name.find('*');
      REQUIRE(star != std::string::npos);  // where the row's key goes
      CHECK(m.name.find('*', star + 1) == std::string::npos);
    }
  }
  REQUIRE(!run_blocks().empty());
  std::set<std::string> paths;
  for (const RunBlock& b : run_blocks()) {
    INFO(b.path);
    CHECK(std::string(b.description) != "");
    const bool array = b.path.size() > 2 && b.path.compare(b.path.size() - 2, 2, "[]") == 0;
    CHECK(array == (b.rows != nullptr));
    check_declared(b.metrics);
    // Two blocks at one path would write the same keys twice.
    if (!b.path.empty()) CHECK(paths.insert(b.path).second);
  }
  // The top level's own keys: declared once over all its blocks.
  std::set<std::string> top;
  for (const RunBlock& b : run_blocks())
    for (const std::string& k : declared_keys(b.metrics))
      if (b.path.empty()) CHECK(top.insert(k).second);
}

TEST_CASE("metrics: a run's summary.json has the declared run-level keys, in declared order",
          "[app][metrics][e2e]") {
  const fs::path dir = scratch_dir();
  // Power cuts turn verification on: the verify and power_cuts blocks.
  const auto j = run_summary("test_tlc_1gb.yaml", "power_cuts.yaml", dir / "cuts",
                             "--set workload.phases.4.runtime=200ms");
  std::vector<std::string> expected =
      declared_keys(run_block("", RunPlace::kBeforeProcedures).metrics);
  for (const char* k : {"drive_model", "run", "verify", "phases", "power_cuts", "config"})
    expected.push_back(k);
  CHECK(keys_of(j) == expected);
  CHECK(j.at("overrides") == nlohmann::ordered_json::array({"workload.phases.4.runtime=200ms"}));
  // A page-mapped drive: every drive_model key, no zoned block.
  CHECK(keys_of(j.at("drive_model")) ==
        declared_keys(run_block("drive_model", RunPlace::kBeforeProcedures).metrics));
  std::vector<std::string> run_keys =
      declared_keys(run_block("run", RunPlace::kBeforeProcedures).metrics);
  run_keys.pop_back();  // failure: only a run that stopped early has one
  CHECK(keys_of(j.at("run")) == run_keys);
  CHECK(keys_of(j.at("verify")) ==
        declared_keys(run_block("verify", RunPlace::kBeforeProcedures).metrics));
  CHECK(j.at("verify").at("passed") == true);
  REQUIRE(j.at("power_cuts").size() == 3);  // the workload's three cuts, a row each
  for (const auto& row : j.at("power_cuts"))
    CHECK(keys_of(row) ==
          declared_keys(run_block("power_cuts[]", RunPlace::kBeforeProcedures).metrics));
  CHECK(keys_of(j.at("config")) == declared_keys(run_block("config", RunPlace::kLast).metrics));
  // Each phase opens with its header, in declared order.
  const std::vector<std::string> header = declared_keys(phase_header_metrics());
  for (const auto& phase : j.at("phases")) {
    const std::vector<std::string> k = keys_of(phase);
    REQUIRE(k.size() > header.size());
    CHECK(std::vector<std::string>(k.begin(), k.begin() + static_cast<long>(header.size())) ==
          header);
  }
  // A bound of the workload's latency_thresholds (default 20us..): a key per bound.
  const auto& churn = j.at("phases").at(1);
  CHECK(churn.at("read").at("share_under").contains("20us"));
  CHECK(churn.at("write").at("share_under").contains("1ms"));

  // A zoned drive adds its layout and counters inside drive_model, and no page FTL keys.
  const auto z = run_summary("test_zns_2gb.yaml", "zns_open_zones.yaml", dir / "zns",
                             "--set workload.phases.0.io_size=64MiB");
  const auto& model = z.at("drive_model");
  CHECK(!model.contains("bad_blocks"));
  CHECK(keys_of(model).back() == "zoned");
  CHECK(keys_of(model.at("zoned")) ==
        declared_keys(run_block("drive_model.zoned", RunPlace::kBeforeProcedures).metrics));
  CHECK(model.at("zoned").at("errors").contains("zone_is_full"));
  CHECK(!z.contains("verify"));
  CHECK(!z.contains("power_cuts"));
}

TEST_CASE("metrics: a sweep plan's keys are declared once, and sweep.json has them in order",
          "[app][metrics][sweep]") {
  std::set<std::string> paths;
  for (const SweepTable& t : sweep_tables()) {
    INFO(t.path);
    CHECK(paths.insert(t.path).second);
    CHECK(std::string(t.description) != "");
    check_declared(t.keys);
  }
  const SweepPlan plan =
      plan_sweep(std::string(SSDTWIN_SOURCE_DIR) + "/tests/sweeps/slurm_small.yaml", 100);
  REQUIRE(plan.points.size() == 4);
  const auto table = [](const std::string& path) -> const std::vector<SweepKey>& {
    for (const SweepTable& t : sweep_tables())
      if (t.path == path) return t.keys;
    FAIL("no sweep table " << path);
    return sweep_tables().front().keys;
  };
  const nlohmann::ordered_json j = sweep_plan_json(plan);
  CHECK(keys_of(j) == declared_keys(table("sweep.json")));
  CHECK(keys_of(j.at("slurm")).size() == 4);
  REQUIRE(j.at("axes").size() == 2);
  for (const auto& a : j.at("axes")) CHECK(keys_of(a) == declared_keys(table("axes[]")));
  REQUIRE(j.at("points").size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(keys_of(j.at("points").at(i)) == declared_keys(table("points[]")));
    CHECK(j.at("points").at(i) == sweep_point_json(plan, i));  // point.json holds the same
  }
  // The policies' points share a preconditioning: a group each, every point in one.
  CHECK(j.at("groups").size() == 2);
  CHECK(j.at("points").at(0).at("group").get<int>() >= 0);
  // What the plan writes reads back whole.
  const fs::path dir = scratch_dir();
  write_plan(plan, dir.string());
  CHECK(sweep_plan_json(read_plan(dir.string())) == j);
  // A plan written before charts drew several metrics, and before points could leave
  // their charts out, reads back as it meant: one metric, PNGs drawn.
  nlohmann::ordered_json old = j;
  old.erase("point_charts");
  REQUIRE(old.at("charts").size() == 1);
  old.at("charts").at(0)["metric"] = "write.iops";
  old.at("charts").at(0).erase("metrics");
  const SweepPlan back = sweep_plan_from_json(old);
  CHECK(back.point_charts == "png");
  CHECK(back.charts.at(0).metrics == std::vector<std::string>{"write.iops"});
  CHECK(back.points.at(3).values == plan.points.at(3).values);
  // A missing key names itself and its table.
  old.at("points").at(1).erase("drive");
  CHECK_THROWS_WITH(sweep_plan_from_json(old), Catch::Contains("points[] drive"));
}
