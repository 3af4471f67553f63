// The SLC write cache of TLC and QLC drives: its policies, folding, reclaim and read times.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ftl/slc/slc_cache.h"
#include "ftl/slc/slc_policy.h"
#include "ftl_test_support.h"
#include "sim/fill_curve.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

const char* kSlcDrive = "configs/drives/test_tlc_slc.yaml";
const char* kQlcDrive = "configs/drives/test_qlc_2gb.yaml";

// Watches every program and erase the FTL submits and counts the ones the
// NAND's program order forbids: a block's pages are programmed in order from
// its erase, with no page skipped or repeated, and a one-shot mode's
// programs take whole wordlines.
class ProgramOrder final : public NandObserver {
 public:
  explicit ProgramOrder(const Drive& d) : d_(d) {}
  void on_submit(const FlashTxn& t) override {
    const std::uint64_t key = std::uint64_t{t.die} << 32 | t.block;
    if (t.op == TxnOp::kErase) next_[key] = 0;
    if (t.op != TxnOp::kProgram) return;
    ++programs[bits_per_cell(t.mode)];
    const std::uint32_t ppp = d_.timing.pages_per_program(t.mode);
    std::uint32_t& next = next_[key];
    if (t.page != next || t.pages != ppp || t.page % ppp != 0) ++violations;
    next = t.page + t.pages;
  }
  std::uint64_t violations = 0;
  std::uint64_t programs[5] = {};

 private:
  const Drive& d_;
  std::map<std::uint64_t, std::uint32_t> next_;
};

std::uint64_t delta(const std::uint64_t (&a)[5], const std::uint64_t (&b)[5], CellMode m) {
  return a[bits_per_cell(m)] - b[bits_per_cell(m)];
}

double write_mb_per_s(const PhaseReport& p) {
  return static_cast<double>(p.result.bytes[static_cast<int>(IoOp::kWrite)]) / seconds_of(p) / 1e6;
}

std::vector<double> curve(const PhaseReport& p) {
  std::vector<double> r;
  for (std::size_t k = 0; k < p.result.by_bytes->segments(); ++k)
    r.push_back(p.result.by_bytes->rate(k) / 1e6);
  return r;
}

}  // namespace

TEST_CASE("writes into the SLC cache run at the SLC program rate", "[ftl][slc]") {
  auto t = make_drive(kSlcDrive);
  Drive& d = *t.drive;
  const auto w = make_workload(R"(
workload:
  phases: [{name: w, rw: write, bs: 128KiB, iodepth: 32, io_size: 24MiB, idle_after: 5ms}]
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  const PhaseReport& p = r.phases[0];
  CHECK(delta(p.nand_after.page_programs, p.nand_before.page_programs, CellMode::kTlc) == 0);
  CHECK(delta(p.nand_after.page_programs, p.nand_before.page_programs, CellMode::kSlc) > 0);
  CHECK(p.ftl_after.host_slc_slots == 24u * 1024 * 1024 / kSectorBytes);
  // The host finishes as the last data enters the write buffer, so it sees
  // the program rate sped up by the buffer's share of the data.
  const double bound = program_bound(d, CellMode::kSlc, 1);
  const double io = 24.0 * 1024 * 1024;
  const double buffered = d.ftl_cfg.write_buffer_slots * double{kSectorBytes};
  CHECK(write_mb_per_s(p) <= bound * io / (io - buffered) * 1.01);
  CHECK(write_mb_per_s(p) >= bound * 0.85);
}

TEST_CASE("once the cache is full, writes run at the native program rate", "[ftl][slc][qlc]") {
  // TLC with a static region; QLC with a static and a dynamic one (whose
  // budget is its configured maximum while a quarter of the free space
  // exceeds it).
  for (const auto& [drive, segment_mb, io_mb] :
       {std::tuple{kSlcDrive, 8, 160}, std::tuple{kQlcDrive, 4, 400}}) {
    INFO(drive);
    auto t = make_drive(drive);
    Drive& d = *t.drive;
    CHECK((d.geo.native_mode == CellMode::kQlc) == (d.ftl->slc().dynamic_budget_blocks() > 0));
    const auto w = make_workload(R"(
workload:
  timeseries: {per_bytes: )" + std::to_string(segment_mb) +
                                     R"(MB}
  phases: [{name: w, rw: write, bs: 128KiB, iodepth: 32, io_size: )" +
                                     std::to_string(io_mb) + R"(MB}]
)",
                                 d.user_bytes());
    const auto r = run_quiet(d, w);
    const PhaseReport& p = r.phases[0];
    // The first segment runs partly into the empty write buffer, faster
    // than any flash: the curve is read from the second segment on.
    const double segment_gb = segment_mb / 1e3;
    const auto rates = curve(p);
    const auto m =
        analyze_fill_curve(std::vector<double>(rates.begin() + 1, rates.end()), segment_gb);
    REQUIRE(m.drop_found);
    // The configured cache, as the fill curve shows it.
    CHECK(m.cache_gb + segment_gb == Approx(empty_cache_bytes(d) / 1e9).epsilon(0.1));
    CHECK(static_cast<double>(p.ftl_after.host_slc_slots * kSectorBytes) ==
          Approx(empty_cache_bytes(d)).epsilon(0.02));
    CHECK(m.initial_mb_per_s == Approx(program_bound(d, CellMode::kSlc, 1)).epsilon(0.15));
    // Past it the host writes whole native wordlines; nothing folds yet.
    const std::uint32_t ppp = d.timing.pages_per_program(d.geo.native_mode);
    const std::vector<double> tail(rates.end() - 5, rates.end());
    CHECK(analyze_fill_curve(tail, segment_gb).overall_mb_per_s ==
          Approx(program_bound(d, d.geo.native_mode, ppp)).epsilon(0.05));
    CHECK(p.ftl_after.host_native_slots > 0);
    CHECK(p.ftl_after.fold_moved_slots == 0);
  }
}

TEST_CASE(
    "idle time folds the cache into whole native program units, in program order, and the "
    "next burst is fast again",
    "[ftl][slc][qlc]") {
  // TLC and QLC, both one-shot: folding fills 3- and 4-page wordlines.
  for (const auto& [drive, fill_mib] : {std::pair{kSlcDrive, 64}, std::pair{kQlcDrive, 200}}) {
    INFO(drive);
    auto t = make_drive(drive);
    Drive& d = *t.drive;
    ProgramOrder order(d);
    d.nand.add_observer(&order);
    const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill_cache, rw: write, bs: 128KiB, iodepth: 32, io_size: )" +
                                     std::to_string(fill_mib) + R"(MiB, idle_after: 2s}
    - {name: burst, rw: write, bs: 128KiB, iodepth: 32, offset: 50%, io_size: 16MiB, idle_after: 5ms}
)",
                                 d.user_bytes());
    const auto r = run_quiet(d, w);
    const PhaseReport& fill = r.phases[0];
    const PhaseReport& burst = r.phases[1];
    CHECK(fill.ftl_after.host_native_slots > 0);  // the cache overflowed
    CHECK(fill.slc_bytes_at_end == 0);            // and the idle time emptied it
    CHECK(fill.ftl_after.fold_moved_slots == fill.ftl_after.host_slc_slots);
    // Native programs took whole wordlines, the block's next ones each time.
    const std::uint32_t ppp = d.timing.pages_per_program(d.geo.native_mode);
    REQUIRE(ppp == bits_per_cell(d.geo.native_mode));
    CHECK(order.programs[ppp] * ppp * d.geo.slots_per_die_page() >=
          fill.ftl_after.fold_moved_slots + fill.ftl_after.host_native_slots);
    CHECK(order.violations == 0);
    CHECK(burst.ftl_after.host_slc_slots - burst.ftl_before.host_slc_slots ==
          16u * 1024 * 1024 / kSectorBytes);
    CHECK(write_mb_per_s(burst) >= 0.85 * program_bound(d, CellMode::kSlc, 1));
  }
}

TEST_CASE("trimmed data in the cache is freed without folding", "[ftl][slc]") {
  auto t = make_drive(kSlcDrive);
  Drive& d = *t.drive;
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: w, rw: write, bs: 128KiB, iodepth: 32, size: 16MiB, io_size: 16MiB, idle_after: 5ms}
    - {name: t, rw: trim, bs: 1MiB, iodepth: 1, size: 16MiB, io_size: 16MiB, idle_after: 1s}
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  CHECK(r.phases[1].slc_bytes_at_end == 0);
  CHECK(d.ftl->stats().fold_moved_slots == 0);
  CHECK(d.ftl->stats().gc_erases > 0);  // the emptied SLC blocks were erased
}

namespace {

// Two sequential passes over the SLC test drive with no host idle time
// between them (the cache folds only in idle time), then random writes.
const char* kTwoPassesThenRandom = R"(
workload:
  phases:
    - {name: pass1, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: pass2, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: random, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 25%}
)";

std::uint64_t slc_pages(const PhaseReport& p) {
  return p.ftl_after.host_slc_slots - p.ftl_before.host_slc_slots;
}

}  // namespace

TEST_CASE("SLC cache policies are listed and chosen by name", "[ftl][slc]") {
  const auto names = slc_policy_names();
  for (const char* n : {"idle_fold", "reclaim", "greedy_fold"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  auto t = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=greedy_fold"});
  CHECK(t.drive->ftl_cfg.slc.policy == "greedy_fold");
  auto doc = ConfigDoc::load(source_path(kSlcDrive), "drive", {"drive.ftl.slc_cache.policy=lazy"});
  CHECK_THROWS_WITH(Drive(doc->root(), false), Catch::Contains("drive.ftl.slc_cache.policy"));
}

TEST_CASE(
    "without idle time, reclaim reuses SLC blocks a second pass overwrote, idle_fold never "
    "does",
    "[ftl][slc]") {
  auto old_way = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=idle_fold"});
  auto reclaim = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=reclaim"});
  const auto w = make_workload(kTwoPassesThenRandom, old_way.drive->user_bytes());
  const auto before = run_quiet(*old_way.drive, w);
  const auto after = run_quiet(*reclaim.drive, w);
  // The first pass fills the static region either way.
  CHECK(slc_pages(before.phases[0]) > 0);
  CHECK(slc_pages(after.phases[0]) == slc_pages(before.phases[0]));
  // idle_fold: the region holds only overwritten data and takes nothing more.
  CHECK(slc_pages(before.phases[1]) == 0);
  CHECK(before.phases[1].ftl_after.slc_reclaims == 0);
  // reclaim: each emptied block costs one erase, no page moves, and the
  // second pass writes as much into the cache as the first.
  CHECK(after.phases[1].ftl_after.slc_reclaims > 0);
  CHECK(after.phases[1].ftl_after.fold_moved_slots == 0);
  CHECK(slc_pages(after.phases[1]) >= slc_pages(after.phases[0]) * 9 / 10);
}

TEST_CASE("with reclaim, idle time before sustained random writes no longer changes their rate",
          "[ftl][slc]") {
  // Two passes, then random writes of twice the drive, with and without
  // idle time after the passes. idle_fold frees the overwritten static
  // region only in idle time; left full of invalid pages it holds none of
  // the user data, the TLC area holds it all and GC works with less room.
  auto random_iops = [](const std::string& policy, const std::string& idle) {
    auto t = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=" + policy});
    const auto w = make_workload(R"(
workload:
  phases:
    - {name: pass1, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: pass2, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%, idle_after: )" +
                                     idle + R"(}
    - {name: random, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 200%}
)",
                                 t.drive->user_bytes());
    const auto r = run_quiet(*t.drive, w);
    return iops_of(r.phases[2], IoOp::kWrite);
  };
  const double old_busy = random_iops("idle_fold", "0s");
  const double old_idle = random_iops("idle_fold", "100ms");
  const double new_busy = random_iops("reclaim", "0s");
  const double new_idle = random_iops("reclaim", "100ms");
  UNSCOPED_INFO("idle_fold " << old_busy << " / " << old_idle << ", reclaim " << new_busy << " / "
                             << new_idle);
  CHECK(old_idle > 1.05 * old_busy);  // the old behaviour: idle time decides
  CHECK(new_idle == Approx(new_busy).epsilon(0.02));
  CHECK(new_busy == Approx(old_idle).epsilon(0.02));
}

TEST_CASE("with greedy_fold, random writes after two passes with no idle still land in SLC",
          "[ftl][slc]") {
  auto old_way = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=idle_fold"});
  auto greedy = make_drive(kSlcDrive, {"drive.ftl.slc_cache.policy=greedy_fold"});
  const auto w = make_workload(kTwoPassesThenRandom, greedy.drive->user_bytes());
  const auto before = run_quiet(*old_way.drive, w);
  const auto after = run_quiet(*greedy.drive, w);
  const PhaseReport& r0 = before.phases[2];
  const PhaseReport& r1 = after.phases[2];
  const std::uint64_t host = r1.ftl_after.host_write_slots - r1.ftl_before.host_write_slots;
  CHECK(slc_pages(r0) == 0);
  // A good share of the random writes enter SLC: folding keeps making room
  // (the blocks with the fewest valid pages first) in the gaps GC leaves it,
  // and the host writes direct to TLC while a die's fold is under way.
  CHECK(slc_pages(r1) > host / 5);
  CHECK(r1.ftl_after.fold_moved_slots > r1.ftl_before.fold_moved_slots);
}

TEST_CASE("a dynamic cache is a share of the free space and shrinks as the drive fills",
          "[ftl][slc]") {
  const double share = 0.25;
  auto t = make_drive(kSlcDrive, {"drive.ftl.slc_cache.static=0B",
                                  "drive.ftl.slc_cache.dynamic={share_of_free: 0.25}"});
  Drive& d = *t.drive;
  REQUIRE(d.ftl_cfg.slc.static_blocks_per_die == 0);
  const auto w = make_workload(R"(
workload:
  timeseries: {per_bytes: 4MB}
  phases:
    - {name: first_half, rw: write, bs: 128KiB, iodepth: 32, size: 50%, io_size: 100%, idle_after: 3s}
    - {name: second_half, rw: write, bs: 128KiB, iodepth: 32, offset: 50%, size: 50%, io_size: 100%}
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  // Writing x into the cache leaves free - x, so the cache fills where
  // x = share * (free - x): x = share / (1 + share) * free.
  const double user_gb = static_cast<double>(d.user_bytes()) / 1e9;
  const auto first = analyze_fill_curve(curve(r.phases[0]), 0.004);
  const auto second = analyze_fill_curve(curve(r.phases[1]), 0.004);
  REQUIRE(first.drop_found);
  REQUIRE(second.drop_found);
  CHECK(first.cache_gb == Approx(share / (1 + share) * user_gb).epsilon(0.15));
  CHECK(second.cache_gb == Approx(share / (1 + share) * user_gb / 2).epsilon(0.15));
  // A full drive leaves no room for a dynamic cache: it has been folded away.
  CHECK(r.phases[1].slc_bytes_at_end <= 4.0 * d.ftl->slc().block_bytes() * d.geo.dies());
}

TEST_CASE("with fold_first a full cache makes writes wait for folding", "[ftl][slc]") {
  auto t = make_drive(kSlcDrive, {"drive.ftl.slc_cache.when_full=fold_first"});
  Drive& d = *t.drive;
  const auto w = make_workload(R"(
workload:
  phases: [{name: w, rw: write, bs: 128KiB, iodepth: 32, io_size: 96MiB}]
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  // Every host page went through the cache; the excess was folded on the way.
  CHECK(r.phases[0].ftl_after.host_native_slots == 0);
  CHECK(r.phases[0].ftl_after.fold_moved_slots > 0);
}

TEST_CASE("every page reads back its latest write through the cache and folding, in program order",
          "[ftl][slc][qlc][verify]") {
  using Sets = std::vector<std::string>;
  for (const auto& [drive, sets] :
       {std::pair{kSlcDrive, Sets{}},
        std::pair{kSlcDrive, Sets{"drive.ftl.slc_cache.dynamic={share_of_free: 0.3}",
                                  "drive.ftl.slc_cache.when_full=fold_first"}},
        std::pair{kSlcDrive, Sets{"drive.ftl.slc_cache.policy=greedy_fold"}},
        std::pair{kQlcDrive, Sets{}}}) {
    INFO(drive);
    auto t = make_drive(drive, sets, /*verify=*/true);
    Drive& d = *t.drive;
    ProgramOrder order(d);
    d.nand.add_observer(&order);
    auto doc = ConfigDoc::load(source_path("configs/workloads/integrity_mix.yaml"), "workload", {});
    const WorkloadSpec w = WorkloadSpec::from_config(doc->root(), d.user_bytes());
    run_quiet(d, w);
    const FtlStats& s = d.ftl->stats();
    CHECK(s.verify_errors == 0);
    CHECK(s.host_slc_slots > 0);
    CHECK(s.fold_moved_slots > 0);
    CHECK(s.gc_moved_slots > 0);
    CHECK(s.verify_checks >= d.user_bytes() / kSectorBytes);
    CHECK(order.programs[bits_per_cell(d.geo.native_mode)] > 0);
    CHECK(order.violations == 0);
  }
}

TEST_CASE("every page reads back its latest write when SLC blocks are reclaimed",
          "[ftl][slc][verify]") {
  for (const char* policy : {"reclaim", "greedy_fold"}) {
    INFO(policy);
    auto t = make_drive(kSlcDrive, {std::string("drive.ftl.slc_cache.policy=") + policy},
                        /*verify=*/true);
    Drive& d = *t.drive;
    const auto w = make_workload(R"(
workload:
  phases:
    - {name: pass1, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: pass2, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: hot, rw: randwrite, bs: 4KiB, iodepth: 32, size: 16MiB, io_size: 64MiB}
    - {name: trim, rw: trim, bs: 1MiB, iodepth: 4, size: 8MiB, io_size: 100%}
    - {name: readback, rw: read, bs: 128KiB, iodepth: 16, io_size: 100%}
)",
                                 d.user_bytes());
    run_quiet(d, w);
    const FtlStats& s = d.ftl->stats();
    CHECK(s.slc_reclaims > 0);  // the path under test ran
    CHECK(s.verify_errors == 0);
    CHECK(s.verify_checks >= d.user_bytes() / kSectorBytes);
  }
}

TEST_CASE("an SLC cache without SLC timings is a config error", "[ftl][slc]") {
  auto doc = ConfigDoc::load(source_path("configs/drives/test_tlc_1gb.yaml"), "drive",
                             {"drive.ftl.slc_cache.static=16MiB"});
  try {
    Drive d(doc->root(), false);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("drive.ftl.slc_cache.static"));
    CHECK_THAT(e.what(), Catch::Contains("nand.timing.slc"));
  }
}

TEST_CASE("reads take the SLC time in the cache and their page type's time after folding",
          "[ftl][slc][qlc]") {
  // idle_after 0s: no folding, the data stays in SLC.
  for (const auto& [drive, idle] : {std::pair{kSlcDrive, "0s"}, std::pair{kQlcDrive, "0s"},
                                    std::pair{kSlcDrive, "10ms"}, std::pair{kQlcDrive, "10ms"}}) {
    INFO(drive << ", fold.idle_after " << idle);
    auto t = make_drive(drive, {std::string("drive.ftl.slc_cache.fold.idle_after=") + idle});
    Drive& d = *t.drive;
    const auto run = write_then_read_qd1(d, "16MiB", "1s", 2000);
    const RunReport& r = run.report;
    const PhaseReport& rd = r.phases[1];
    const bool folded = std::string(idle) != "0s";
    CHECK(r.phases[0].slc_bytes_at_end == (folded ? 0.0 : 16.0 * 1024 * 1024));
    const CellMode mode = folded ? d.geo.native_mode : CellMode::kSlc;
    CHECK(delta(rd.nand_after.reads, rd.nand_before.reads, mode) == 2000u);
    // Random pages meet the page types alike: the mean read costs the mean
    // of their tR (a read's latency is linear in its tR).
    const ModeTiming& mt = d.timing.of(mode);
    double tr_mean = 0;
    for (Tick tr : mt.tR) tr_mean += static_cast<double>(tr);
    tr_mean /= static_cast<double>(mt.tR.size());
    const double expected = static_cast<double>(qd1_read_latency(d, static_cast<Tick>(tr_mean)));
    CHECK(rd.result.latency[static_cast<int>(IoOp::kRead)].mean() ==
          Approx(expected).epsilon(0.03));
  }
}
