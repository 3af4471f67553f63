// Review procedures D, E and F as workloads: latency over time, queue-depth
// sweeps, bandwidth over time, the steady-state stop condition, and degrade
// and recover. Expected figures come from the inputs or from properties of
// the model, never from a previous run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/histogram.h"
#include "sim/steady_state.h"
#include "sim/timeseries.h"
#include "test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;
using Catch::Matchers::Contains;

namespace {

const char* kTlc = "configs/drives/test_tlc_1gb.yaml";
const char* kSata = "configs/drives/test_mlc_sata.yaml";
constexpr std::uint64_t kUser = std::uint64_t{1} << 30;

WorkloadSpec parse(const std::string& phases, const std::string& header = "") {
  return make_workload("workload:\n" + header + "  phases:\n" + phases, kUser);
}

std::string parse_error(const std::string& phases) {
  try {
    parse(phases);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

using CsvRow = std::vector<std::string>;

// Rows of a CSV after its header; `header` receives the header line.
std::vector<CsvRow> read_csv(const std::string& path, std::string* header = nullptr) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::string line;
  std::getline(f, line);
  if (header) *header = line;
  std::vector<CsvRow> rows;
  while (std::getline(f, line)) {
    CsvRow row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(cell);
    if (!line.empty() && line.back() == ',') row.push_back("");
    rows.push_back(row);
  }
  return rows;
}

double num(const std::string& cell) { return std::stod(cell); }

nlohmann::json read_summary(const std::string& dir) {
  std::ifstream f(dir + "/summary.json");
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}

const PhaseReport& phase_named(const RunReport& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.spec->name == name) return p;
  FAIL("no phase " << name);
  return r.phases.front();
}

const nlohmann::json& phase_json(const nlohmann::json& summary, const std::string& name) {
  for (const auto& p : summary["phases"])
    if (p["name"] == name) return p;
  FAIL("no phase " << name << " in summary.json");
  return summary["phases"][0];
}

double phase_iops(const PhaseReport& p) {
  std::uint64_t ios = 0;
  for (int op = 0; op < PhaseResult::kOps; ++op) ios += p.result.ios[op];
  return static_cast<double>(ios) / seconds_of(p);
}

bool charts_drawn() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// A workload run on a fresh drive, its results in procedures_<name> (a
// folder per test: ctest runs tests in parallel processes).
struct ProcedureRun {
  TestDrive drive;
  std::string dir;
  FolderRun run;
  const RunReport& report() const { return run.report; }
};

ProcedureRun run_procedure(const char* drive, const std::string& name, const std::string& yaml) {
  ProcedureRun r;
  r.drive = make_drive(drive);
  r.dir = "procedures_" + name;
  std::filesystem::remove_all(r.dir);
  r.run = run_into_folder(r.drive, yaml, r.dir);
  return r;
}

}  // namespace

// ---- Workload keys: iodepth lists, until_steady, role ----

TEST_CASE("an iodepth list expands into one phase per depth named after it", "[procedures]") {
  const WorkloadSpec w = parse(
      "    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}\n"
      "    - {name: rr, rw: randread, bs: 4KiB, iodepth: [1, 4, 32], ramp_time: 1s, runtime: 5s,"
      " report: qd_sweep}\n"
      "    - {name: after, rw: read, runtime: 1s}\n");
  REQUIRE(w.phases.size() == 5);
  const std::vector<std::uint32_t> depths = {1, 4, 32};
  for (std::size_t i = 0; i < depths.size(); ++i) {
    const PhaseSpec& p = w.phases[1 + i];
    CHECK(p.name == "rr_qd" + std::to_string(depths[i]));
    CHECK(p.base_name == "rr");
    CHECK(p.iodepth == depths[i]);
    CHECK(p.source_index == 1u);
    // Every other key is the entry's.
    CHECK(p.rw == RwKind::kRandRead);
    CHECK(p.runtime == 5_s);
    CHECK(p.ramp_time == 1_s);
    CHECK(p.report == PhaseReportKind::kQdSweep);
  }
  CHECK(w.phases[0].name == "fill");
  CHECK(w.phases[0].iodepth == 32u);
  CHECK(w.phases[4].name == "after");
  CHECK(w.phases[4].source_index == 2u);

  SECTION("a one-element list is a plain phase") {
    const WorkloadSpec one = parse("    - {name: x, rw: read, iodepth: [8], runtime: 1s}\n");
    REQUIRE(one.phases.size() == 1);
    CHECK(one.phases[0].name == "x");
    CHECK(one.phases[0].iodepth == 8u);
  }
}

TEST_CASE("a bad iodepth list element is reported at its index", "[procedures]") {
  CHECK_THAT(parse_error("    - {rw: read, iodepth: [1, 0, 4], runtime: 1s}\n"),
             Contains("workload.phases.0.iodepth.1: expected an integer in [1, 65536]"));
  CHECK_THAT(parse_error("    - {rw: read, iodepth: [], runtime: 1s}\n"),
             Contains("workload.phases.0.iodepth: expected an integer or a non-empty list"));
  // Two depths of the same value would give two phases of the same name.
  CHECK_THAT(parse_error("    - {name: r, rw: read, iodepth: [4, 4], runtime: 1s}\n"),
             Contains("'r_qd4' is used twice"));
}

TEST_CASE("a bs list expands into one phase per transfer size named after it", "[procedures]") {
  const WorkloadSpec w = parse(
      "    - {name: w, rw: write, bs: [16KiB, 1MiB, 8MiB], iodepth: 4, io_size: 64MiB,"
      " report: size_sweep}\n");
  REQUIRE(w.phases.size() == 3);
  const std::vector<std::pair<std::uint32_t, const char*>> sizes = {
      {16u << 10, "w_16KiB"}, {1u << 20, "w_1MiB"}, {8u << 20, "w_8MiB"}};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    CHECK(w.phases[i].bs == sizes[i].first);
    CHECK(w.phases[i].name == sizes[i].second);
    CHECK(w.phases[i].base_name == "w");
    CHECK(w.phases[i].iodepth == 4u);
    CHECK(w.phases[i].report == PhaseReportKind::kSizeSweep);
  }
  CHECK_THAT(parse_error("    - {rw: read, bs: [4KiB, 6KiB], runtime: 1s}\n"),
             Contains("workload.phases.0.bs: expected a multiple of 4KiB"));
  CHECK_THAT(parse_error("    - {rw: read, bs: [4KiB, 8KiB], iodepth: [1, 2], runtime: 1s}\n"),
             Contains("sweep bs or iodepth, not both"));
  CHECK_THAT(parse_error("    - {name: r, rw: read, bs: [8KiB, 8KiB], runtime: 1s}\n"),
             Contains("workload.phases.0.bs") && Contains("'r_8KiB' is used twice"));
  CHECK_THAT(parse_error("    - {rw: read, bs: [4KiB, 1MiB], size: 512KiB, runtime: 1s}\n"),
             Contains("workload.phases.0.size: expected a range of at least one block"));
}

TEST_CASE("until_steady reads its round and window and a percentage tolerance", "[procedures]") {
  const WorkloadSpec w = parse(
      "    - {rw: randwrite, runtime: 3600s, until_steady: {round: 20s, rounds: 6, tolerance: "
      "15%}}\n"
      "    - {rw: randwrite, runtime: 600s, until_steady: {round: 10s}}\n");
  CHECK(w.phases[0].until_steady.round == 20_s);
  CHECK(w.phases[0].until_steady.rounds == 6u);
  CHECK(w.phases[0].until_steady.tolerance == Approx(0.15));
  // The SNIA PTS defaults: a window of 5 rounds, 10%.
  CHECK(w.phases[1].until_steady.rounds == 5u);
  CHECK(w.phases[1].until_steady.tolerance == Approx(0.10));
  // Earned: tested from any time, GC or not, unless the workload says.
  CHECK(w.phases[1].until_steady.after == 0);
  CHECK_FALSE(w.phases[1].until_steady.while_gc);
  const WorkloadSpec e = parse(
      "    - {rw: randwrite, runtime: 3600s, until_steady: {round: 20s, after: 3600s, while_gc: "
      "true}}\n");
  CHECK(e.phases[0].until_steady.after == 3600_s);
  CHECK(e.phases[0].until_steady.while_gc);
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {round: 1s, after: "
                         "61s}}\n"),
             Contains("workload.phases.0.until_steady.after: expected a time within the phase's "
                      "runtime"));
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {round: 1s, while_gc: "
                         "sometimes}}\n"),
             Contains("workload.phases.0.until_steady.while_gc"));
}

TEST_CASE("until_steady errors name the key and what would fix it", "[procedures]") {
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {rounds: 5}}\n"),
             Contains("workload.phases.0.until_steady.round: required key is missing"));
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {round: 0}}\n"),
             Contains("workload.phases.0.until_steady.round: expected a time above 0"));
  CHECK_THAT(
      parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {round: 1s, rounds: 1}}\n"),
      Contains("workload.phases.0.until_steady.rounds: expected an integer in [2,"));
  CHECK_THAT(parse_error(
                 "    - {rw: randwrite, runtime: 60s, until_steady: {round: 1s, tolerance: 10}}\n"),
             Contains("workload.phases.0.until_steady.tolerance: expected a percentage"));
  CHECK_THAT(
      parse_error(
          "    - {rw: randwrite, runtime: 60s, until_steady: {round: 1s, tolerance: 100%}}\n"),
      Contains("workload.phases.0.until_steady.tolerance: expected a percentage"));
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: {round: 20s}}\n"),
             Contains("workload.phases.0.until_steady.rounds: expected round x rounds within"));
  CHECK_THAT(parse_error("    - {rw: randwrite, runtime: 60s, until_steady: 20s}\n"),
             Contains("workload.phases.0.until_steady: expected a map"));
  CHECK_THAT(parse_error("    - {rw: randwrite, io_size: 100%, fast: true, until_steady: {round: "
                         "1s}}\n"),
             Contains("workload.phases.0.until_steady: a fast phase"));
}

TEST_CASE("recovery roles compare steady and recovered phases with FOB at the same depth",
          "[procedures]") {
  const WorkloadSpec w = parse(
      "    - {name: fob, role: fob, rw: randwrite, iodepth: [1, 32], runtime: 1s}\n"
      "    - {name: deg, role: degrade, rw: randwrite, iodepth: 32, runtime: 1s}\n"
      "    - {name: st, role: steady, rw: randwrite, iodepth: 32, runtime: 1s}\n"
      "    - {name: rec, role: recovered, rw: randwrite, iodepth: 1, runtime: 1s}\n");
  REQUIRE(w.phases.size() == 5);
  CHECK(w.phases[0].role == RecoveryRole::kFob);
  CHECK(w.phases[1].role == RecoveryRole::kFob);
  CHECK(w.phases[2].role == RecoveryRole::kDegrade);
  CHECK(w.phases[3].role == RecoveryRole::kSteady);
  CHECK(w.phases[4].role == RecoveryRole::kRecovered);

  CHECK_THAT(parse_error("    - {role: fob, rw: randwrite, iodepth: 1, runtime: 1s}\n"
                         "    - {role: recovered, rw: randwrite, iodepth: 32, runtime: 1s}\n"),
             Contains("workload.phases.1.role: role: recovered at iodepth 32 needs a role: fob "
                      "phase of the same iodepth"));
  CHECK_THAT(parse_error("    - {role: fob, rw: randwrite, iodepth: 1, runtime: 1s}\n"
                         "    - {role: steady, rw: randwrite, iodepth: 1, runtime: 1s}\n"
                         "    - {role: steady, rw: randwrite, iodepth: 1, runtime: 1s}\n"),
             Contains("workload.phases.2.role: role: steady is already on phase 'phase1'"));
  CHECK_THAT(parse_error("    - {role: fob, rw: randwrite, iodepth: 4, runtime: 1s}\n"
                         "    - {role: fob, rw: randwrite, iodepth: 4, runtime: 1s}\n"),
             Contains("workload.phases.1.role: role: fob is already on phase 'phase0'"));
  CHECK_THAT(parse_error("    - {role: best, rw: randwrite, runtime: 1s}\n"),
             Contains("workload.phases.0.role: expected one of fob, degrade, steady, recovered"));
  CHECK_THAT(parse_error("    - {role: fob, rw: randwrite, io_size: 1MiB, fast: true}\n"),
             Contains("workload.phases.0.role: a fast phase"));
}

TEST_CASE("reports that write one file each take one phase and phase names are unique",
          "[procedures]") {
  CHECK_THAT(parse_error("    - {name: a, rw: randwrite, runtime: 1s, report: latency}\n"
                         "    - {name: b, rw: randwrite, runtime: 1s, report: latency}\n"),
             Contains("workload.phases.1.report: report: latency is already on phase 'a'"));
  CHECK_THAT(parse_error("    - {name: a, rw: write, iodepth: [1, 2], runtime: 1s, report: "
                         "bandwidth}\n"),
             Contains("report: bandwidth is already on phase 'a_qd1'"));
  CHECK_THAT(parse_error("    - {name: a, rw: write, runtime: 1s}\n"
                         "    - {name: a, rw: read, runtime: 1s}\n"),
             Contains("workload.phases.1.name: phase name 'a' is used twice"));
  // A sweep may take many phases.
  CHECK(parse("    - {rw: read, iodepth: [1, 2], runtime: 1s, report: qd_sweep}\n"
              "    - {rw: write, iodepth: [1, 2], runtime: 1s, report: qd_sweep}\n")
            .phases.size() == 4);
}

TEST_CASE("the shipped procedure workloads parse and use every key", "[procedures]") {
  // The reference drives' capacities: degrade_recover's 1 GB FOB range needs more.
  for (const std::uint64_t user : {250'000'000'000ull, 1'000'000'000'000ull}) {
    for (const char* name : {"consistency_fill100", "consistency_fill75", "qd_sweep_fob",
                             "qd_sweep_steady", "seq_write_2x", "degrade_recover", "atto"}) {
      INFO(name);
      auto doc = ConfigDoc::load(source_path(std::string("configs/workloads/") + name + ".yaml"),
                                 "workload", {});
      const WorkloadSpec w = WorkloadSpec::from_config(doc->root(), user);
      CHECK_NOTHROW(doc->check_unused());
      CHECK(!w.phases.empty());
    }
  }
}

// ---- Latency percentiles per interval ----

TEST_CASE("per-interval latency rows hold the nearest-rank percentiles of their own commands",
          "[procedures]") {
  const Tick start = 5_ms, interval = 1_ms;
  IntervalLatencySeries s(start, interval);
  // Interval 0: 1..50 ns (below 64 ns the histogram is exact).
  for (Tick v = 1; v <= 50; ++v) s.record(start + v * 10_us, v);
  // Interval 1: no command completes. Interval 2: four values out of order.
  for (Tick v : {40, 10, 30, 20}) s.record(start + 2 * interval + v * 1_us, v);
  // Interval 3: 1..1000 us.
  for (Tick k = 1; k <= 1000; ++k) s.record(start + 3 * interval + k * 100, k * 1_us);
  s.close();

  const auto& rows = s.rows();
  REQUIRE(rows.size() == 4);
  // Nearest rank: p50 of 50 values is the 25th, p99 the 50th.
  CHECK(rows[0].count == 50u);
  CHECK(rows[0].p50 == 25u);
  CHECK(rows[0].p99 == 50u);
  CHECK(rows[0].max == 50u);
  CHECK(rows[1].count == 0u);
  // p50 of 4 values is the 2nd, p99 the 4th.
  CHECK(rows[2].count == 4u);
  CHECK(rows[2].p50 == 20u);
  CHECK(rows[2].p99 == 40u);
  CHECK(rows[2].max == 40u);
  // Microseconds: the bucket of the 500th and 990th value, within the
  // histogram's 1.6%; the max is exact.
  CHECK(rows[3].count == 1000u);
  CHECK(LatencyHistogram::bucket_of(rows[3].p50) == LatencyHistogram::bucket_of(500_us));
  CHECK(static_cast<double>(rows[3].p50) == Approx(500e3).epsilon(0.016));
  CHECK(LatencyHistogram::bucket_of(rows[3].p99) == LatencyHistogram::bucket_of(990_us));
  CHECK(static_cast<double>(rows[3].p99) == Approx(990e3).epsilon(0.016));
  CHECK(rows[3].max == 1000_us);
}

TEST_CASE("closing a latency series with nothing open adds no row", "[procedures]") {
  IntervalLatencySeries s(0, 1_s);
  s.close();
  CHECK(s.rows().empty());
  s = IntervalLatencySeries(0, 1_s);
  s.record(1_s + 1, 7);
  s.close();
  s.close();
  REQUIRE(s.rows().size() == 2);  // interval 0 empty, interval 1 with one command
  CHECK(s.rows()[0].count == 0u);
  CHECK(s.rows()[1].p99 == 7u);
}

// ---- The steady-state stop condition ----

namespace {

// Feeds `per_round[k]` completions spread over round k, then one completion
// in the next round to close the last; returns the index of the first
// completion for which add() said steady, or -1.
long feed(SteadyStateMonitor& m, Tick start, Tick round,
          const std::vector<std::uint64_t>& per_round) {
  long n = 0;
  for (std::size_t k = 0; k <= per_round.size(); ++k) {
    const std::uint64_t count = k < per_round.size() ? per_round[k] : 1;
    for (std::uint64_t j = 0; j < count; ++j, ++n)
      if (m.add(start + round * k + round * j / count)) return n;
  }
  return -1;
}

}  // namespace

TEST_CASE("until_steady stops at the first round that completes a steady window", "[procedures]") {
  // Counts per 200 ms round. Windows of 5 ending at rounds 4, 5, 6 stray
  // beyond 10% of their mean (e.g. 600 vs a mean of 520); rounds 3..7 are
  // all 500, so round 7 is the first steady one.
  const std::vector<std::uint64_t> counts = {1000, 800, 600, 500, 500, 500, 500, 500, 500, 500};
  const Tick start = 3_s, round = 200_ms;
  SteadyStateMonitor m(start, round, 5, 0.10);
  const long stop = feed(m, start, round, counts);
  REQUIRE(m.steady());
  CHECK(m.steady_round() == 7u);
  // It says so at the first completion after round 7 ends, not before.
  long first_of_round8 = 0;
  for (std::size_t k = 0; k < 8; ++k) first_of_round8 += static_cast<long>(counts[k]);
  CHECK(stop == first_of_round8);
  // The rounds it kept are IOPS (count / 0.2 s), up to the steady one.
  REQUIRE(m.rounds().size() == 8);
  for (std::size_t k = 0; k < 8; ++k) CHECK(m.rounds()[k] == Approx(counts[k] / 0.2));
  // The same answer as the offline rule on the same rounds.
  CHECK(first_steady_round(m.rounds(), 5, 0.10, 0.10) == m.steady_round());
}

TEST_CASE("until_steady never stops a series that keeps falling", "[procedures]") {
  // 5% less each round: the fitted line falls about 20% across 5 rounds.
  std::vector<std::uint64_t> counts;
  double c = 10000;
  for (int k = 0; k < 30; ++k, c *= 0.95) counts.push_back(static_cast<std::uint64_t>(c));
  SteadyStateMonitor m(0, 1_s, 5, 0.10);
  CHECK(feed(m, 0, 1_s, counts) == -1);
  CHECK_FALSE(m.steady());
  CHECK(m.rounds().size() == counts.size());
  SECTION("a round with no completion counts as 0 IOPS") {
    SteadyStateMonitor g(0, 1_s, 2, 0.10);
    g.add(100);
    g.add(2_s + 100);  // closes round 0 (one op) and round 1 (none)
    REQUIRE(g.rounds().size() == 2);
    CHECK(g.rounds()[1] == 0.0);
  }
}

namespace {

// A work counter the test sets by hand, as the runner's counts GC moves.
class Counter final : public Gauge {
 public:
  double value() const override { return v; }
  double v = 0;
};

}  // namespace

TEST_CASE("until_steady tests no window that ends before `after`", "[procedures]") {
  // Flat from the first round: without `after` round 4 completes the first
  // steady window; with 10 rounds prescribed, round 9 is the first tested.
  const std::vector<std::uint64_t> flat(15, 500);
  SteadyStateMonitor early(0, 1_s, 5, 0.10);
  feed(early, 0, 1_s, flat);
  CHECK(early.steady_round() == 4u);
  SteadyStateMonitor late(0, 1_s, 5, 0.10, SteadyEarned{10_s, nullptr, false});
  feed(late, 0, 1_s, flat);
  CHECK(late.steady_round() == 9u);
  // A start other than 0: `after` counts from the measured start.
  SteadyStateMonitor shifted(7_s, 1_s, 5, 0.10, SteadyEarned{10_s, nullptr, false});
  feed(shifted, 7_s, 1_s, flat);
  CHECK(shifted.steady_round() == 9u);
}

TEST_CASE("until_steady with while_gc counts only windows in which GC moved data in every round",
          "[procedures]") {
  // IOPS flat throughout; GC starts moving in round 6 (the spare runs out).
  // The fresh drive's plateau (rounds 0-5) is not steady state; the first
  // window with GC in all five rounds ends at round 10.
  Counter gc;
  SteadyStateMonitor m(0, 1_s, 5, 0.10, SteadyEarned{0, &gc, true});
  long n = 0;
  bool steady = false;
  for (int k = 0; k <= 20 && !steady; ++k)
    for (int j = 0; j < 100 && !steady; ++j, ++n) {
      if (k >= 6 && j == 50) gc.v += 3;  // three moves in the middle of each round from 6 on
      steady = m.add(1_s * static_cast<Tick>(k) + 10_ms * static_cast<Tick>(j));
    }
  REQUIRE(m.steady());
  CHECK(m.steady_round() == 10u);
  // Work per round, measured at the completion that closes the round.
  REQUIRE(m.round_work().size() == m.rounds().size());
  CHECK(m.round_work()[5] == 0);
  CHECK(m.round_work()[6] == 3);
  CHECK(m.round_work()[10] == 3);
  // Without the requirement the plateau counts from round 4.
  Counter none;
  SteadyStateMonitor plain(0, 1_s, 5, 0.10, SteadyEarned{0, &none, false});
  feed(plain, 0, 1_s, std::vector<std::uint64_t>(12, 100));
  CHECK(plain.steady_round() == 4u);
  CHECK_THROWS_AS(SteadyStateMonitor(0, 1_s, 5, 0.10, SteadyEarned{0, nullptr, true}),
                  std::invalid_argument);
}

// ---- Whole runs of each report kind on the small drives ----

TEST_CASE("report latency writes per-interval IOPS and p50 at most p99 at most max",
          "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "latency", R"(
workload:
  timeseries: {interval: 250ms}
  phases:
    - {name: fill, precondition: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: rw, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 3s, report: latency}
)");
  const PhaseReport& p = phase_named(r.report(), "rw");
  std::string header;
  const auto rows = read_csv(r.dir + "/latency.csv", &header);
  CHECK(header == "second,iops,p50_us,p99_us,max_us");
  // Full intervals only: 3 s of 250 ms.
  REQUIRE(rows.size() == 12);
  const double phase_max_us = to_us(p.result.latency[static_cast<int>(IoOp::kWrite)].max());
  double iops_sum = 0, max_us = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    REQUIRE(rows[i].size() == 5);
    CHECK(num(rows[i][0]) == Approx(0.25 * static_cast<double>(i + 1)));
    CHECK(num(rows[i][1]) > 0);
    CHECK(num(rows[i][2]) <= num(rows[i][3]));
    CHECK(num(rows[i][3]) <= num(rows[i][4]));
    CHECK(num(rows[i][4]) <= phase_max_us + 1e-3);
    iops_sum += num(rows[i][1]);
    max_us = std::max(max_us, num(rows[i][4]));
  }
  // The rows count every measured command that completed in full intervals.
  CHECK(iops_sum * 0.25 <= static_cast<double>(p.result.ios[static_cast<int>(IoOp::kWrite)]));
  const auto summary = read_summary(r.dir);
  const auto& block = phase_json(summary, "rw")["latency_over_time"];
  CHECK(block["intervals"] == 12);
  CHECK(block["average_iops"].get<double>() == Approx(iops_sum / 12).margin(0.1));
  CHECK(block["max_us"].get<double>() == Approx(max_us).margin(1e-3));
  CHECK(block["median_interval_p50_us"].get<double>() <=
        block["median_interval_p99_us"].get<double>());
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/latency.png"));
}

TEST_CASE("a QD sweep on SATA holds at most 32 commands in the device and reads scale at low QD",
          "[procedures][e2e]") {
  // Reads of written LBAs, so that every one reads the flash.
  const auto r = run_procedure(kSata, "qd_sweep_sata", R"(
workload:
  phases:
    - {name: fill, precondition: true, rw: write, bs: 128KiB, iodepth: 32, size: 128MiB, io_size: 100%, idle_after: 20ms}
    - {name: rr, rw: randread, bs: 4KiB, size: 128MiB, iodepth: [1, 2, 4, 8, 64], ramp_time: 20ms, runtime: 200ms, report: qd_sweep}
)");
  REQUIRE(r.drive.drive->hif_cfg.device_slots == 32);
  std::string header;
  const auto rows = read_csv(r.dir + "/qd_sweep.csv", &header);
  CHECK(header == "sweep,phase,rw,iodepth,device_qd,iops,mb_per_s,mean_latency_us,p99_latency_us");
  REQUIRE(rows.size() == 5);
  std::vector<double> iops;
  for (const auto& row : rows) {
    INFO(row[1]);
    CHECK(row[0] == "rr");
    CHECK(row[2] == "randread");
    const double qd = num(row[3]);
    CHECK(num(row[4]) == std::min(qd, 32.0));
    CHECK(num(row[6]) == Approx(num(row[5]) * 4096 / 1e6).epsilon(0.001));
    iops.push_back(num(row[5]));
  }
  // More commands in flight keep more of the 4 dies busy: no loss from QD1
  // to QD8, and at QD8 well above QD1.
  for (std::size_t i = 1; i < 4; ++i) CHECK(iops[i] >= iops[i - 1] * 0.98);
  CHECK(iops[3] > 1.5 * iops[0]);
  // Beyond the 32 tags, commands wait on the host: latency grows with the queue.
  CHECK(num(rows[4][7]) > num(rows[3][7]));
  const auto summary = read_summary(r.dir);
  REQUIRE(summary["qd_sweep"].size() == 5);
  CHECK(summary["qd_sweep"][4]["device_qd"] == 32);
  CHECK(phase_json(summary, "rr_qd64")["device_qd_peak"] == 32);
  CHECK(phase_named(r.report(), "rr_qd64").result.peak_device_qd == 32u);
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/qd_sweep.png"));
}

TEST_CASE("a transfer-size sweep writes MB/s per size and large writes stream through the buffer",
          "[procedures][e2e]") {
  // Up to 4 MiB per command through the small drive's 1 MiB write buffer.
  const auto r = run_procedure(kSata, "size_sweep_sata", R"(
workload:
  phases:
    - {name: w, rw: write, bs: [16KiB, 128KiB, 4MiB], iodepth: 4, size: 64MiB, io_size: 64MiB, report: size_sweep}
    - {name: r, rw: read, bs: [16KiB, 128KiB, 4MiB], iodepth: 4, size: 64MiB, io_size: 64MiB, report: size_sweep}
)");
  std::string header;
  const auto rows = read_csv(r.dir + "/size_sweep.csv", &header);
  CHECK(header == "sweep,phase,rw,bs_kib,iodepth,mb_per_s,iops,mean_latency_us,p99_latency_us");
  REQUIRE(rows.size() == 6);
  for (const auto& row : rows) {
    INFO(row[1]);
    // IOPS are written to 0.1: a few per second at 4 MiB.
    CHECK(num(row[5]) == Approx(num(row[6]) * num(row[3]) * 1024 / 1e6).epsilon(0.005));
  }
  // Per-command costs weigh less on larger transfers: reads gain from 16 KiB
  // to 128 KiB; writes are bound by the program rate and do not fall.
  CHECK(num(rows[4][5]) > num(rows[3][5]));
  CHECK(num(rows[2][5]) > 0.9 * num(rows[1][5]));
  const auto summary = read_summary(r.dir);
  REQUIRE(summary["size_sweep"].size() == 6);
  CHECK(summary["size_sweep"][2]["bs_bytes"] == 4 << 20);
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/size_sweep.png"));
}

TEST_CASE("an NVMe drive holds the whole iodepth of a sweep point", "[procedures][e2e]") {
  auto t = make_drive(kTlc);
  REQUIRE(t.drive->hif_cfg.device_slots >= 256);
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: w, rw: randwrite, bs: 4KiB, size: 64MiB, iodepth: [64, 256], number_ios: 2000, report: qd_sweep}
)",
                               t.drive->user_bytes());
  const auto r = run_quiet(*t.drive, w);
  CHECK(phase_named(r, "w_qd64").result.peak_device_qd == 64u);
  CHECK(phase_named(r, "w_qd256").result.peak_device_qd == 256u);
}

TEST_CASE("report bandwidth writes MB/s per interval and per pass over the range",
          "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "bandwidth", R"(
workload:
  timeseries: {interval: 200ms}
  phases:
    - {name: seq, rw: write, bs: 128KiB, iodepth: 32, io_size: 200%, report: bandwidth}
)");
  const PhaseReport& p = phase_named(r.report(), "seq");
  std::string header;
  const auto rows = read_csv(r.dir + "/bandwidth.csv", &header);
  CHECK(header == "second,mb_per_s");
  REQUIRE(rows.size() >= 5);
  const double link_mb_per_s = r.drive.drive->hif_cfg.link.payload_bytes_per_s() / 1e6;
  double sum = 0;
  for (const auto& row : rows) {
    CHECK(num(row[1]) > 0);
    CHECK(num(row[1]) <= link_mb_per_s * 1.001);
    sum += num(row[1]);
  }
  const auto summary = read_summary(r.dir);
  const auto& block = phase_json(summary, "seq")["bandwidth"];
  CHECK(block["intervals"] == rows.size());
  CHECK(block["average_mb_per_s"].get<double>() ==
        Approx(sum / static_cast<double>(rows.size())).margin(1e-3));
  // Two whole passes, which together take the phase's whole time.
  const auto& passes = block["pass_mb_per_s"];
  REQUIRE(passes.size() == 2);
  const double span = static_cast<double>(p.spec->span);
  const double pass_seconds =
      span / 1e6 / passes[0].get<double>() + span / 1e6 / passes[1].get<double>();
  CHECK(pass_seconds == Approx(seconds_of(p)).epsilon(1e-6));
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/bandwidth.png"));
}

TEST_CASE("timeseries.csv carries GC activity per interval that sums to the phase's counters",
          "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "activity", R"(
workload:
  timeseries: {interval: 100ms}
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: rw, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 2s}
)");
  std::string header;
  const auto rows = read_csv(r.dir + "/timeseries.csv", &header);
  CHECK(header ==
        "phase,time_s,read_mb_per_s,write_mb_per_s,read_iops,write_iops,trim_iops,slc_cache_gb,"
        "gc_moved_pages,fold_moved_pages,blocks_erased,host_pages_to_slc,free_blocks_per_die");
  const Drive& d = *r.drive.drive;
  for (const char* name : {"fill", "rw"}) {
    INFO(name);
    const PhaseReport& p = phase_named(r.report(), name);
    double moved = 0, erased = 0, min_free = 1e9, max_free = 0;
    std::size_t n = 0;
    for (const auto& row : rows) {
      if (row[0] != name) continue;
      REQUIRE(row.size() == 13);
      ++n;
      moved += num(row[8]);
      erased += num(row[10]);
      min_free = std::min(min_free, num(row[12]));
      max_free = std::max(max_free, num(row[12]));
    }
    REQUIRE(n > 0);
    CHECK(moved == static_cast<double>(p.ftl_after.gc_moved_slots - p.ftl_before.gc_moved_slots));
    CHECK(erased == static_cast<double>(p.ftl_after.gc_erases - p.ftl_before.gc_erases));
    CHECK(min_free >= 0);
    CHECK(max_free <= d.geo.blocks_per_plane);
  }
  // The random writes run GC: pages move, and the free pool ends near the
  // GC trigger.
  double rw_moved = 0, last_free = 0;
  for (const auto& row : rows)
    if (row[0] == "rw") {
      rw_moved += num(row[8]);
      last_free = num(row[12]);
    }
  CHECK(rw_moved > 0);
  CHECK(last_free <= d.ftl_cfg.gc_trigger_free_blocks + 1);
}

TEST_CASE(
    "latency_hist.csv holds each phase's whole distribution and summary.json the share "
    "under each threshold",
    "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "latency_hist", R"(
workload:
  latency_thresholds: [50us, 200us, 1ms]
  phases:
    - {name: mix, rw: randrw, rwmixread: 50, bs: 4KiB, iodepth: 8, size: 64MiB, number_ios: 20000}
)");
  const PhaseReport& p = phase_named(r.report(), "mix");
  std::string header;
  const auto rows = read_csv(r.dir + "/latency_hist.csv", &header);
  CHECK(header == "phase,op,bucket_upper_us,count,cumulative_share,share_above");
  const auto summary = read_summary(r.dir);
  for (const char* op : {"read", "write"}) {
    INFO(op);
    const LatencyHistogram& h = p.result.latency[op[0] == 'r' ? 0 : 1];
    REQUIRE(h.count() > 0);
    double count = 0, last_share = 0, last_bound = 0;
    for (const auto& row : rows) {
      if (row[1] != op) continue;
      CHECK(row[0] == "mix");
      CHECK(num(row[2]) > last_bound);  // rising bucket bounds
      CHECK(num(row[4]) >= last_share);
      count += num(row[3]);
      last_bound = num(row[2]);
      last_share = num(row[4]);
      CHECK(num(row[4]) == Approx(count / static_cast<double>(h.count())).margin(1e-6));
      CHECK(num(row[5]) == Approx(1.0 - num(row[4])).margin(1e-6));
    }
    CHECK(count == static_cast<double>(h.count()));
    CHECK(last_share == Approx(1.0));
    // The last bucket holds the maximum.
    CHECK(last_bound >= to_us(h.max()));
    const auto& under = phase_json(summary, "mix")[op]["share_under"];
    REQUIRE(under.size() == 3);
    double prev = 0;
    for (const char* t : {"50us", "200us", "1ms"}) {
      const double share = under[t].get<double>();
      CHECK(share >= prev);
      CHECK(share <= 1.0);
      prev = share;
    }
    CHECK(under["50us"].get<double>() == Approx(h.share_below(50 * kUs)).margin(1e-6));
  }
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/latency_hist.png"));
}

TEST_CASE("a run whose IOs all took one latency bucket has no tail chart, and its CSV row",
          "[procedures][e2e]") {
  // Buffered 4 KiB writes at QD1 on an idle drive all take the same time:
  // one bucket, whose share above is 0, nothing a log axis can draw.
  const auto r = run_procedure(kTlc, "latency_one_bucket", R"(
workload:
  phases:
    - {name: w, rw: randwrite, bs: 4KiB, iodepth: 1, size: 16MiB, number_ios: 200}
)");
  const auto rows = read_csv(r.dir + "/latency_hist.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][3] == "200");
  CHECK(num(rows[0][5]) == 0.0);
  CHECK_FALSE(std::filesystem::exists(r.dir + "/latency_hist.png"));
  CHECK_FALSE(std::filesystem::exists(r.dir + "/latency_hist.gp"));
}

TEST_CASE("latency thresholds must be rising times above zero", "[procedures]") {
  const std::string phase = "    - {rw: write, io_size: 1MiB}\n";
  CHECK_THROWS_WITH(parse(phase, "  latency_thresholds: [1ms, 50us]\n"),
                    Catch::Contains("workload.latency_thresholds") && Catch::Contains("rising"));
  CHECK_THROWS_WITH(parse(phase, "  latency_thresholds: [0us, 50us]\n"),
                    Catch::Contains("above 0"));
  CHECK_THROWS_WITH(parse(phase, "  latency_thresholds: [fast]\n"),
                    Catch::Contains("workload.latency_thresholds"));
  CHECK(parse(phase, "  latency_thresholds: 20us\n").latency_thresholds ==
        std::vector<Tick>{20 * kUs});
}

TEST_CASE(
    "a load curve follows the offered rate until the device saturates, then flattens "
    "while latency rises",
    "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "load_curve", R"(
workload:
  phases:
    - {name: fill, precondition: true, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: rr4k, rw: randread, bs: 4KiB, iodepth: 32, size: 5%, ramp_time: 200ms, runtime: 1s,
       load_curve: {steps: [20, 50, 80, 100, 120, 150], arrival: poisson}}
)");
  std::string header;
  const auto rows = read_csv(r.dir + "/load_curve.csv", &header);
  CHECK(header ==
        "profile,step,offered_iops,iops,mb_per_s,mean_latency_us,p99_latency_us,host_queue_us,"
        "left_on_host");
  REQUIRE(rows.size() == 7);
  CHECK(rows[0][1] == "max");
  const double max_iops = num(rows[0][3]);
  REQUIRE(max_iops > 0);
  double last_latency = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO("step " << rows[i][1]);
    const double pct = num(rows[i][1]);
    const double offered = num(rows[i][2]);
    const double achieved = num(rows[i][3]);
    CHECK(offered == Approx(pct / 100 * max_iops).epsilon(1e-4));
    // Below saturation the device does what is offered (Poisson noise over
    // 1 s: a few per cent); above it, never more than at saturation.
    if (pct <= 80) CHECK(achieved == Approx(offered).epsilon(0.05));
    CHECK(achieved <= max_iops * 1.01);
    // Latency rises with the load.
    CHECK(num(rows[i][5]) >= last_latency * 0.97);
    last_latency = num(rows[i][5]);
  }
  // Past saturation the host queue grows and arrivals are left waiting.
  CHECK(num(rows[6][7]) > num(rows[3][7]));
  CHECK(num(rows[6][8]) > 0);
  CHECK(num(rows[1][8]) == 0);
  const auto summary = read_summary(r.dir);
  const auto& peak = summary["load_curve"]["peaks"]["rr4k"];
  CHECK(peak["iops"].get<double>() <= max_iops * 1.01);
  CHECK(peak["iops"].get<double>() >= 0.9 * max_iops);
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/load_curve.png"));
}

TEST_CASE("open-loop rates are checked when the workload is read", "[procedures]") {
  CHECK_THAT(parse_error("    - {rw: randread, number_ios: 10, rate: {iops: 1000}}\n"),
             Catch::Contains("rate") && Catch::Contains("runtime"));
  CHECK_THAT(parse_error("    - {rw: randread, runtime: 1s, rate: {iops: 0}}\n"),
             Catch::Contains("workload.phases.0.rate.iops"));
  CHECK_THAT(parse_error("    - {rw: randread, runtime: 1s, rate: {iops: 10, arrival: bursty}}\n"),
             Catch::Contains("poisson"));
  CHECK_THAT(parse_error("    - {rw: randread, runtime: 1s, load_curve: {steps: [50, 20]}}\n"),
             Catch::Contains("rising"));
  CHECK_THAT(parse_error("    - {rw: randread, runtime: 1s, iodepth: [1, 4], load_curve: {}}\n"),
             Catch::Contains("single iodepth"));
  const WorkloadSpec w =
      parse("    - {name: p, rw: randread, runtime: 1s, load_curve: {steps: [10, 60]}}\n");
  REQUIRE(w.phases.size() == 3);
  CHECK(w.phases[0].name == "p_max");
  CHECK_FALSE(w.phases[0].rate.open_loop());
  CHECK(w.phases[2].name == "p_60pct");
  CHECK(w.phases[2].rate.fraction == Approx(0.6));
  CHECK(w.phases[2].rate.of_phase == 0);
}

TEST_CASE("until_steady ends a random-write phase at its first steady round", "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "until_steady", R"(
workload:
  phases:
    - {name: fill, precondition: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: rw, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 60s, until_steady: {round: 500ms, rounds: 5, tolerance: 10%}}
)");
  const PhaseReport& p = phase_named(r.report(), "rw");
  REQUIRE(p.result.steady);
  const SteadyStateMonitor& m = *p.result.steady;
  REQUIRE(m.steady());
  // Stopped at the first steady window, so well before the runtime: issuing
  // ends at the round's end and only the commands in flight complete after.
  CHECK(first_steady_round(m.rounds(), 5, 0.10, 0.10) == m.steady_round());
  const double steady_at = 0.5 * static_cast<double>(m.steady_round() + 1);
  CHECK(seconds_of(p) >= steady_at);
  CHECK(seconds_of(p) < steady_at + 1.0);
  CHECK(seconds_of(p) < 60.0);
  const auto summary = read_summary(r.dir);
  const auto& block = phase_json(summary, "rw")["steady_state"];
  CHECK(block["reached"] == true);
  CHECK(block["round"] == m.steady_round() + 1);
  CHECK(block["at_s"].get<double>() == Approx(steady_at));
  CHECK(block["round_iops"].size() == m.rounds().size());
  CHECK(block["round_gc_moved_pages"].size() == m.rounds().size());
}

TEST_CASE("until_steady with while_gc reports steady state only with GC moving data in the window",
          "[procedures][e2e]") {
  // From a purged drive the writes run at the fresh drive's speed until
  // the spare runs out, a plateau the plain rule would take.
  const auto r = run_procedure(kTlc, "until_steady_gc", R"(
workload:
  phases:
    - {name: rw, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 120s, until_steady: {round: 500ms, rounds: 5, tolerance: 10%, while_gc: true}}
)");
  const PhaseReport& p = phase_named(r.report(), "rw");
  REQUIRE(p.result.steady);
  const SteadyStateMonitor& m = *p.result.steady;
  REQUIRE(m.steady());
  const auto& work = m.round_work();
  REQUIRE(work.size() == m.rounds().size());
  double window = 0;
  for (std::size_t k = m.steady_round() - 4; k <= m.steady_round(); ++k) {
    CHECK(work[k] > 0);
    window += work[k];
  }
  // The plain rule would have stopped earlier, on the plateau before GC.
  const std::size_t plain = first_steady_round(m.rounds(), 5, 0.10, 0.10);
  UNSCOPED_INFO("plain rule round " << plain << ", with GC " << m.steady_round());
  CHECK(plain < m.steady_round());
  CHECK(work[plain] == 0);
  const auto summary = read_summary(r.dir);
  const auto& block = phase_json(summary, "rw")["steady_state"];
  CHECK(block["while_gc"] == true);
  CHECK(block["window_gc_moved_pages"].get<double>() == Approx(window));
}

TEST_CASE("degrade and recover scores steady and recovered IOPS against FOB at the same depth",
          "[procedures][e2e]") {
  const auto r = run_procedure(kTlc, "degrade_recover", R"(
workload:
  timeseries: {interval: 250ms}
  phases:
    - {name: fob, role: fob, rw: randwrite, bs: 4KiB, iodepth: [1, 32], size: 256MiB, runtime: 1s}
    - {name: seq2x, precondition: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 200%}
    - {name: degrade, role: degrade, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 20s, until_steady: {round: 500ms, rounds: 5, tolerance: 10%}}
    - {name: steady, role: steady, rw: randwrite, bs: 4KiB, iodepth: 32, size: 256MiB, runtime: 1s}
    - {name: trim, rw: trim, bs: 256MiB, iodepth: 4, io_size: 100%, idle_after: 1s}
    - {name: recovered, role: recovered, rw: randwrite, bs: 4KiB, iodepth: 32, size: 256MiB, runtime: 1s}
)");
  const double fob = phase_iops(phase_named(r.report(), "fob_qd32"));
  const double steady = phase_iops(phase_named(r.report(), "steady"));
  const double recovered = phase_iops(phase_named(r.report(), "recovered"));
  const auto summary = read_summary(r.dir);
  const auto& rec = summary["recovery"];
  CHECK(rec["iodepth"] == 32);
  CHECK(rec["fob_iops"].get<double>() == Approx(fob));
  CHECK(rec["steady_iops"].get<double>() == Approx(steady));
  CHECK(rec["recovered_iops"].get<double>() == Approx(recovered));
  CHECK(rec["recovered_over_fob"].get<double>() == Approx(recovered / fob));
  CHECK(rec["steady_over_fob"].get<double>() == Approx(steady / fob));
  CHECK(rec["phases"].size() == 5);
  // A full drive in steady state pays for garbage collection; after the
  // whole range is trimmed, GC has nothing to move again.
  CHECK(steady < fob);
  CHECK(recovered > steady);
  const PhaseReport& degrade = phase_named(r.report(), "degrade");
  REQUIRE(degrade.result.steady);
  CHECK(rec["degrade_steady_round"] ==
        (degrade.result.steady->steady() ? nlohmann::json(degrade.result.steady->steady_round() + 1)
                                         : nlohmann::json(nullptr)));
  // GC moves beside each figure: none on the fresh drive, some in the
  // degraded one.
  for (const auto& row : rec["phases"]) {
    const PhaseReport& p = phase_named(r.report(), row["phase"].get<std::string>());
    CHECK(row["gc_moved_pages"] == p.ftl_after.gc_moved_slots - p.ftl_before.gc_moved_slots);
  }
  CHECK(rec["phases"][0]["gc_moved_pages"] == 0);
  CHECK(rec["phases"][2]["gc_moved_pages"].get<double>() > 0);
  // The chart's data: every full interval of every role phase, in time order.
  std::string header;
  const auto rows = read_csv(r.dir + "/degrade_recover.csv", &header);
  CHECK(header == "phase,role,time_s,iops");
  std::size_t expected = 0;
  for (const auto& p : r.report().phases)
    if (p.spec->role != RecoveryRole::kNone)
      expected += static_cast<std::size_t>((p.result.end - p.result.start) / 250_ms);
  CHECK(rows.size() == expected);
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(num(rows[i][2]) > num(rows[i - 1][2]));
  if (charts_drawn()) CHECK(std::filesystem::exists(r.dir + "/degrade_recover.png"));
}
