// `ssdtwin sweep` end to end on the 1 GB test drive: the physics a sweep must
// show, resuming, failed points, --collect, and bad sweep files.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/sweep.h"
#include "sim/config.h"
#include "sim/csv.h"
#include "test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A folder of this test process (ctest runs cases in parallel processes).
std::string scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ssdtwin_sweep_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

struct Result {
  int rc;
  std::string out, err;
};

Result sweep(const std::string& args) {
  static int n = 0;
  const std::string out = scratch("stdout" + std::to_string(++n)),
                    err = scratch("stderr" + std::to_string(n));
  const int rc = std::system(
      (std::string(SSDTWIN_BINARY) + " sweep " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
}

// A file's lines, without their newlines.
std::vector<std::string> lines_of(const std::string& path) {
  std::istringstream in(slurp(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// results.csv as rows of column -> value.
std::vector<std::map<std::string, std::string>> results(const std::string& dir) {
  std::ifstream f(dir + "/results.csv");
  std::string units, header, line;
  std::getline(f, units);
  std::getline(f, header);
  const auto names = *split_csv_line(header);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(f, line)) {
    const auto cells = *split_csv_line(line);
    REQUIRE(cells.size() == names.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < names.size(); ++i) row[names[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

std::string write_sweep(const std::string& name, const std::string& body) {
  const std::string path = scratch(name);
  std::ofstream(path) << "sweep:\n  drive: " << source_path("configs/drives/test_tlc_1gb.yaml")
                      << "\n  workload: " << source_path("tests/sweeps/op_gc_workload.yaml") << "\n"
                      << body;
  return path;
}

}  // namespace

TEST_CASE("12 points of over-provisioning x GC policy: more spare, lower write amplification",
          "[sweep]") {
  const std::string dir = scratch("op_gc");
  const Result r = sweep(source_path("tests/sweeps/op_gc.yaml") + " --out " + dir + " -j 2 -q");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const auto rows = results(dir);
  REQUIRE(rows.size() == 12);
  // Per policy, WA by user capacity: the spare area is the raw flash less
  // the user capacity, so each step up in capacity must raise WA.
  std::map<std::string, std::map<double, double>> wa;
  for (const auto& row : rows) {
    CHECK(row.at("phase") == "randwrite");
    wa[row.at("drive.ftl.gc.policy")][*parse_bytes(row.at("drive.user_capacity")) / 1e9] =
        std::stod(row.at("write_amplification"));
  }
  REQUIRE(wa.size() == 3);
  for (const auto& [policy, by_capacity] : wa) {
    INFO(policy);
    REQUIRE(by_capacity.size() == 4);
    double last = 0;
    for (const auto& [capacity, w] : by_capacity) {
      CHECK(w > last);
      CHECK(w >= 1.0);
      last = w;
    }
  }
  // Figures rounded to places print as the decimal they were rounded to
  // (17008.17, not 17008.170000000002), in results.csv as in metrics.csv.
  for (const auto& row : rows) {
    const std::string& iops = row.at("write.iops");
    INFO(iops);
    const auto dot = iops.find('.');
    CHECK((dot == std::string::npos || iops.size() - dot - 1 <= 2));
    CHECK(std::stod(iops) > 0);
  }
  CHECK(fs::exists(dir + "/chart_0.png"));
  CHECK(fs::exists(dir + "/points/0011/summary.json"));
  CHECK(fs::exists(dir + "/points/0011/point.json"));
  // A point draws no PNG unless the sweep asks (point_charts): its scripts
  // are there to draw one by hand.
  CHECK(fs::exists(dir + "/points/0011/latency_hist.gp"));
  CHECK_FALSE(fs::exists(dir + "/points/0011/latency_hist.png"));

  SECTION("a second run skips the finished points and reruns one whose folder was removed") {
    fs::remove_all(dir + "/points/0005");
    const std::string before = slurp(dir + "/results.csv");
    const Result again = sweep(source_path("tests/sweeps/op_gc.yaml") + " --out " + dir + " -j 2");
    INFO(again.err);
    REQUIRE(again.rc == 0);
    CHECK_THAT(again.err, Catch::Matchers::Contains("11 of 12 points already finished"));
    CHECK(slurp(dir + "/results.csv") == before);  // the rerun point gives the same row
  }
  SECTION("--collect rebuilds results.csv from the folders alone") {
    const std::string before = slurp(dir + "/results.csv");
    fs::remove(dir + "/results.csv");
    const Result c = sweep("--collect " + dir);
    REQUIRE(c.rc == 0);
    CHECK(slurp(dir + "/results.csv") == before);
  }
}

TEST_CASE("a failed point is reported with its error and the others still run", "[sweep]") {
  // A fault only the run finds (configs are checked before any point runs):
  // a bad line in the trace point 1 replays.
  std::ofstream(scratch("bad_line.csv")) << "0,write,0,4096\n10,write,zero,4096\n";
  const std::string bad = scratch("bad_line.yaml");
  std::ofstream(bad)
      << "workload:\n  phases:\n"
         "    - {name: randwrite, rw: trace, trace: {file: bad_line.csv, format: native}}\n";
  const std::string good = source_path("tests/sweeps/op_gc_workload.yaml");
  const std::string file = write_sweep("bad_point.yaml", R"(
  share_preconditioning: false
  axes:
    - {key: workload, values: [)" + good + ", " + bad + ", " +
                                                             good + R"(]}
  phases: [randwrite]
  metrics: [write_amplification]
)");
  const std::string dir = scratch("bad_point");
  const Result r = sweep(file + " --out " + dir + " -j 2");
  CHECK(r.rc == 1);
  CHECK_THAT(r.err, Catch::Matchers::Contains("point 1: exit 2"));
  CHECK_THAT(r.err, Catch::Matchers::Contains("bad_line.csv:2:"));
  CHECK_THAT(slurp(dir + "/points/0001/error.txt"), Catch::Matchers::Contains("bad_line.csv:2:"));
  const auto rows = results(dir);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("point") == "0");
  CHECK(rows[1].at("point") == "2");
}

TEST_CASE("points that differ only after the preconditioning share one saved state", "[sweep]") {
  // The measured phase's queue depth does not reach the preconditioning
  // phases, so the three points form one group; each starts from its state.
  const std::string file = write_sweep("shared.yaml", R"(
  axes:
    - {key: workload.phases.2.iodepth, values: [1, 4, 32]}
  phases: [randwrite]
  metrics: [write.iops, write_amplification]
)");
  const SweepPlan plan = plan_sweep(file);
  REQUIRE(plan.groups.size() == 1);
  for (const SweepPoint& p : plan.points) CHECK(p.group == 0);
  CHECK(plan.groups[0].sets.empty());
  const std::string dir = scratch("shared");
  const Result r = sweep(file + " --out " + dir + " -j 2 -q");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(dir + "/states/g0.state"));
  const auto rows = results(dir);
  REQUIRE(rows.size() == 3);
  // A deeper queue keeps more dies busy than QD1 does (beyond, GC bounds
  // the steady state whatever the depth).
  CHECK(std::stod(rows[0].at("write.iops")) < std::stod(rows[1].at("write.iops")));
  // A point from the shared state gives the row a run from scratch gives.
  const std::string alone = scratch("alone");
  const Result s = sweep(write_sweep("alone.yaml", R"(
  share_preconditioning: false
  axes:
    - {key: workload.phases.2.iodepth, values: [4]}
  phases: [randwrite]
  metrics: [write.iops, write_amplification]
)") + " --out " + alone + " -q");
  REQUIRE(s.rc == 0);
  const auto one = results(alone);
  REQUIRE(one.size() == 1);
  CHECK(one[0].at("write.iops") == rows[1].at("write.iops"));
  CHECK(one[0].at("write_amplification") == rows[1].at("write_amplification"));
}

TEST_CASE(
    "every point's configs are checked before any runs: a bad axis value exits 2 naming point and "
    "key",
    "[sweep][errors]") {
  struct Case {
    const char* axis;
    const char* message;  // what the point's check says
  };
  const Case c = GENERATE(Case{"{key: drive.ftl.gc.policy, values: [greedy, bogus]}",
                               "point 1 (drive.ftl.gc.policy=bogus): --set drive.ftl.gc.policy: "
                               "drive.ftl.gc.policy: expected one of"},
                          Case{"{key: drive.ftl.gc.polcy, values: [greedy]}",
                               "point 0 (drive.ftl.gc.polcy=greedy): --set drive.ftl.gc.polcy: "
                               "drive.ftl.gc.polcy: unknown key"},
                          Case{"{key: drive.nand.channels, values: [4, abc]}",
                               "point 1 (drive.nand.channels=abc): --set drive.nand.channels: "
                               "drive.nand.channels: expected an "
                               "integer"},
                          Case{"{key: workload.phases.2.bs, values: [4KiB, 0]}",
                               "point 1 (workload.phases.2.bs=0): --set workload.phases.2.bs: "
                               "workload.phases.2.bs: expected a "
                               "multiple of 4KiB"});
  INFO(c.axis);
  const std::string file =
      write_sweep("bad_axis.yaml", std::string("  axes:\n    - ") + c.axis + "\n");
  const std::string dir = scratch("bad_axis");
  fs::remove_all(dir);
  const Result r = sweep(file + " --out " + dir + " -j 2 -q");
  CHECK(r.rc == 2);
  CHECK_THAT(r.err, Catch::Matchers::StartsWith(file + ": " + c.message));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(dir));  // nothing ran, nothing was written
}

TEST_CASE("a sweep's phases and chart phases must be phases its points run, exit 2",
          "[sweep][errors]") {
  const std::string axis = "  axes:\n    - {key: drive.ftl.gc.policy, values: [greedy]}\n";
  const std::string dir = scratch("no_phase");
  fs::remove_all(dir);
  const std::string file =
      write_sweep("no_phase.yaml", axis + "  phases: [randwrite, nosuchphase]\n");
  const Result r = sweep(file + " --out " + dir);
  CHECK(r.rc == 2);
  CHECK_THAT(r.err, Catch::Matchers::StartsWith(
                        file + ":6:3: sweep.phases: expected a phase of the points' "
                               "workloads (churn, fill, randwrite), got 'nosuchphase'"));
  const std::string chart = write_sweep(
      "chart_phase.yaml",
      axis + "  charts:\n    - {metric: write.iops, x: drive.ftl.gc.policy, phase: rw}\n");
  const Result c = sweep(chart + " --out " + dir);
  CHECK(c.rc == 2);
  CHECK_THAT(c.err, Catch::Matchers::Contains("sweep.charts.0.phase: expected a phase") &&
                        Catch::Matchers::Contains("got 'rw'"));
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("a chart of several metrics of one unit draws a line per metric and value", "[sweep]") {
  const std::string axes =
      "  axes:\n    - {key: drive.user_capacity, values: [0.9GB, 1GB]}\n"
      "    - {key: drive.ftl.gc.policy, values: [greedy, fifo]}\n"
      "  set: [workload.phases.2.runtime=300ms]\n"
      "  phases: [randwrite]\n"
      "  metrics: [write.latency_us.p50, write.latency_us.p99, write.iops]\n";
  const std::string dir = scratch("several");
  fs::remove_all(dir);
  const std::string file = write_sweep(
      "several.yaml",
      axes +
          "  charts:\n    - {metrics: [write.latency_us.p50, write.latency_us.p99], "
          "x: drive.user_capacity, lines: drive.ftl.gc.policy, phase: randwrite, file: lat.png}\n");
  const Result r = sweep(file + " --out " + dir + " -j 2 -q");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  // The chart's table: a column per metric and policy, a row per capacity,
  // each cell the point's figure in results.csv.
  const std::vector<std::string> table = lines_of(dir + "/chart_0.csv");
  REQUIRE(table.size() == 3);
  CHECK(table[0] ==
        "x,\"write.latency_us.p50, greedy\",\"write.latency_us.p99, greedy\","
        "\"write.latency_us.p50, fifo\",\"write.latency_us.p99, fifo\"");
  std::map<std::string, std::vector<std::string>> by_capacity;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto cells = *split_csv_line(table[i]);
    REQUIRE(cells.size() == 5);
    by_capacity[cells[0]] = {cells.begin() + 1, cells.end()};
  }
  REQUIRE(by_capacity.size() == 2);
  for (const auto& row : results(dir)) {
    const std::string x = row.at("drive.user_capacity") == "1GB" ? "1" : "0.9";
    const std::size_t first = row.at("drive.ftl.gc.policy") == "greedy" ? 0 : 2;
    CHECK(by_capacity.at(x)[first] == row.at("write.latency_us.p50"));
    CHECK(by_capacity.at(x)[first + 1] == row.at("write.latency_us.p99"));
  }
  CHECK(fs::exists(dir + "/lat.png"));
  CHECK_THAT(slurp(dir + "/lat.gp"),
             Catch::Matchers::Contains("write.latency_us.p99, drive.ftl.gc.policy = fifo"));

  SECTION("--collect reads a plan written when a chart named one metric") {
    auto plan = nlohmann::json::parse(slurp(dir + "/sweep.json"));
    auto& c = plan["charts"][0];
    c["metric"] = "write.latency_us.p99";
    c.erase("metrics");
    std::ofstream(dir + "/sweep.json") << plan.dump(1);
    fs::remove(dir + "/chart_0.csv");
    REQUIRE(sweep("--collect " + dir).rc == 0);
    CHECK(lines_of(dir + "/chart_0.csv").front() == "x,greedy,fifo");
  }
  SECTION("metrics of another unit, or both metric and metrics, are refused") {
    auto refused = [&](const std::string& name, const std::string& chart) {
      const Result r =
          sweep(write_sweep(name + ".yaml", axes + "  charts:\n    - " + chart + "\n") + " --out " +
                scratch(name));
      CHECK(r.rc == 2);
      return r.err;
    };
    CHECK_THAT(
        refused("units", "{metrics: [write.latency_us.p50, write.iops], x: drive.user_capacity}"),
        Catch::Matchers::Contains("sweep.charts.0.metrics: expected metrics of one unit on one "
                                  "chart, got 'write.iops' in IOPS beside us"));
    CHECK_THAT(
        refused("both", "{metric: write.iops, metrics: [write.iops], x: drive.user_capacity}"),
        Catch::Matchers::Contains(
            "sweep.charts.0.metric: expected `metric:` or `metrics:`, not both"));
  }
}

TEST_CASE("point_charts: png draws each point's charts, a bad value names its key, exit 2",
          "[sweep]") {
  const std::string dir = scratch("point_png");
  const std::string file = write_sweep("point_png.yaml", R"(  point_charts: png
  axes:
    - {key: drive.ftl.gc.policy, values: [greedy]}
)");
  const Result r = sweep(file + " --out " + dir + " -q");
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(fs::exists(dir + "/points/0000/latency_hist.gp"));
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
    CHECK(fs::exists(dir + "/points/0000/latency_hist.png"));
  const std::string bad = write_sweep("point_bad.yaml", R"(  point_charts: pdf
  axes:
    - {key: drive.ftl.gc.policy, values: [greedy]}
)");
  const Result b = sweep(bad + " --out " + scratch("point_bad") + " -q");
  CHECK(b.rc == 2);
  CHECK_THAT(b.err, Catch::Matchers::Contains("point_charts"));
}

TEST_CASE("sweep -j below 1 is refused, exit 2", "[sweep][errors]") {
  const std::string file =
      write_sweep("jobs.yaml", "  axes:\n    - {key: drive.ftl.gc.policy, values: [greedy]}\n");
  const std::string dir = scratch("jobs");
  fs::remove_all(dir);
  // -1 once read as an unsigned count: 4294967295 workers.
  for (const std::string j : {"0", "-1", "-4294967295"}) {
    INFO(j);
    const Result r = sweep(file + " --out " + dir + " -j " + j);
    CHECK(r.rc == 2);
    CHECK(r.err ==
          "ssdtwin sweep: --jobs expects at least 1, got " + j + " (see ssdtwin sweep --help)\n");
  }
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("a bad sweep file names its file, line and key, exit 2", "[sweep][errors]") {
  SECTION("an unknown metric") {
    const Result r =
        sweep(write_sweep("m.yaml",
                          "  axes:\n    - {key: drive.ftl.gc.policy, values: [greedy]}\n"
                          "  metrics: [write_amplificaton]\n") +
              " --out " + scratch("m"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("sweep.metrics"));
    CHECK_THAT(r.err, Catch::Matchers::Contains("write_amplificaton"));
  }
  SECTION("an axis key outside drive and workload") {
    const Result r =
        sweep(write_sweep("k.yaml", "  axes:\n    - {key: ftl.gc.policy, values: [greedy]}\n") +
              " --out " + scratch("k"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("k.yaml:5"));
    CHECK_THAT(r.err, Catch::Matchers::Contains("sweep.axes.0.key"));
  }
  SECTION("zipped axes of different lengths") {
    const Result r = sweep(write_sweep("z.yaml",
                                       "  combine: zip\n  axes:\n"
                                       "    - {key: drive.ftl.gc.policy, values: [greedy, fifo]}\n"
                                       "    - {key: workload.seed, values: [1, 2, 3]}\n") +
                           " --out " + scratch("z"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("sweep.axes.1.values"));
  }
  SECTION("an unknown key") {
    const Result r = sweep(
        write_sweep("u.yaml", "  axes:\n    - {key: workload.seed, values: [1]}\n  grid: true\n") +
        " --out " + scratch("u"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("sweep.grid: unknown key"));
  }
  SECTION("a grid of more points than any study runs (7 axes of 30 values: 2.2e10 points)") {
    // Found by fuzz/fuzz_sweep.cpp: the grid was built before anything
    // counted it, until memory ran out.
    std::string values = "[1";
    for (int v = 2; v <= 30; ++v) values += ", " + std::to_string(v);
    values += "]";
    std::string axes = "  axes:\n";
    for (int a = 0; a < 7; ++a)
      axes += "    - {key: workload.phases.0.x" + std::to_string(a) + ", values: " + values + "}\n";
    const Result r = sweep(write_sweep("g.yaml", axes) + " --out " + scratch("g"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("sweep.axes: expected at most 100000 points"));
  }
  SECTION("--collect of a folder that holds no sweep") {
    const Result r = sweep("--collect " + scratch("nothing"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("no sweep plan here"));
  }
}
