// Fast and steady-state preconditioning against the block state timed runs leave.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

struct ValidShares {
  std::vector<double> valid_share;  // per full native block: valid / capacity
  std::vector<double> die_valid;    // per die: valid pages
  std::uint64_t erases = 0;
};

ValidShares block_state(const Drive& d) {
  ValidShares s;
  const BlockManager& bm = d.ftl->blocks();
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die) {
    double dv = 0;
    for (std::uint32_t b = 0; b < d.geo.blocks_per_plane; ++b) {
      const BlockInfo& info = bm.info(die, b);
      s.erases += info.erase_count;
      dv += info.valid;
      if (bm.gc_candidate(info))
        s.valid_share.push_back(static_cast<double>(info.valid) /
                                static_cast<double>(bm.capacity_slots(info)));
    }
    s.die_valid.push_back(dv);
  }
  std::sort(s.valid_share.begin(), s.valid_share.end());
  return s;
}

// Largest distance between the two empirical distribution functions.
double ks_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d,
                 std::abs(static_cast<double>(i) / a.size() - static_cast<double>(j) / b.size()));
  }
  return d;
}

}  // namespace

TEST_CASE("fast preconditioning leaves the block state a timed run leaves", "[ftl][fast]") {
  const char* workload = R"(
workload:
  seed: 5
  phases:
    - {name: fill, fast: %s, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%%}
    - {name: rand, fast: %s, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 200%%}
)";
  auto run = [&](const char* fast) {
    char yaml[512];
    std::snprintf(yaml, sizeof yaml, workload, fast, fast);
    auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
    const auto r = run_quiet(*t.drive, make_workload(yaml, t.drive->user_bytes()));
    return std::make_pair(block_state(*t.drive), r.phases[1].ftl_after.gc_moved_slots -
                                                     r.phases[1].ftl_before.gc_moved_slots);
  };
  const auto [timed, timed_moved] = run("false");
  const auto [fast, fast_moved] = run("true");
  // Same data per die, the same share of valid pages over the full blocks,
  // and the same GC work to get there (the timed GC also pads, lags and
  // races the host, so allow a few percent).
  for (std::size_t i = 0; i < timed.die_valid.size(); ++i)
    CHECK(fast.die_valid[i] == Approx(timed.die_valid[i]).epsilon(0.01));
  CHECK(ks_distance(timed.valid_share, fast.valid_share) < 0.1);
  CHECK(static_cast<double>(fast_moved) == Approx(static_cast<double>(timed_moved)).epsilon(0.05));
  CHECK(static_cast<double>(fast.erases) ==
        Approx(static_cast<double>(timed.erases)).epsilon(0.05));
  CHECK(timed_moved > 0);
}

TEST_CASE("every page reads back its latest write after fast preconditioning", "[ftl][fast]") {
  // With flat pacing, and with GC urgency levels scaling the credit that
  // both the fast writer and the timed GC hand the host.
  std::vector<std::string> sets;
  SECTION("flat pacing") {}
  SECTION("urgency levels") {
    sets = {
        "drive.ftl.gc.urgency=[{free_below: 6, host_share: 3}, {free_below: 4, host_share: 0.25}]"};
  }
  auto t = make_drive("configs/drives/test_tlc_slc.yaml", sets, true);
  Drive& d = *t.drive;
  const auto r = run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: timed, rw: randwrite, bs: 8KiB, iodepth: 16, io_size: 20%}
    - {name: fill, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: over, fast: true, rw: randwrite, bs: 4KiB, io_size: 150%}
    - {name: trim, fast: true, rw: trim, bs: 1MiB, offset: 30%, size: 10%, io_size: 100%}
    - {name: mixed, rw: randrw, bs: 4KiB, iodepth: 32, io_size: 10%}
    - {name: check, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                                            d.user_bytes()));
  CHECK(r.phases[2].ftl_after.gc_victims > r.phases[2].ftl_before.gc_victims);
  CHECK(r.phases[1].result.end == r.phases[1].result.start);  // no simulated time
  CHECK(d.ftl->stats().verify_checks >= d.ftl->user_pages());
  CHECK(d.ftl->stats().verify_errors == 0);
  CHECK(d.ftl->stats().read_unmapped > 0);  // the trimmed range reads as zeroes
}

TEST_CASE("a fast phase must write and must stop by size", "[ftl][fast]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
  const std::uint64_t user = t.drive->user_bytes();
  CHECK_THROWS_WITH(
      make_workload("workload: {phases: [{rw: randread, fast: true, io_size: 10%}]}", user),
      Catch::Contains("fast") && Catch::Contains("write, randwrite and trim"));
  CHECK_THROWS_WITH(
      make_workload("workload: {phases: [{rw: write, fast: true, runtime: 10s}]}", user),
      Catch::Contains("io_size or number_ios"));
}

TEST_CASE("steady-state preconditioning lays out the state the exact fast path converges to",
          "[ftl][fast]") {
  // Counted writes draw each overwritten page's block in proportion to its
  // valid pages, as a uniformly drawn page of a full drive falls; GC, wear
  // and placement run as in the exact path. With and without RAIN (parity
  // units take slots the layout must skip). The steady state must be no
  // further from the exact path's than the exact path is from itself under
  // another seed (the drives are small: a few hundred blocks).
  std::string drive = "configs/drives/test_tlc_1gb.yaml";
  std::vector<std::string> sets;
  SECTION("no RAIN") {}
  SECTION("RAIN 1:7") {
    drive = "configs/drives/test_mlc_sata.yaml";
    sets = {"drive.ftl.rain.stripe=8"};
  }
  const char* workload = R"(
workload:
  seed: %d
  phases:
    - {name: fill, fast: true, rw: write, bs: 128KiB, io_size: 100%%}
    - {name: rand1, fast: %s, rw: randwrite, bs: 4KiB, io_size: 100%%}
    - {name: rand2, fast: %s, rw: randwrite, bs: 4KiB, io_size: 100%%}
)";
  struct Outcome {
    ValidShares state;
    std::uint64_t moved;
  };
  auto run = [&](const char* mode, int seed) {
    char yaml[512];
    std::snprintf(yaml, sizeof yaml, workload, seed, mode, mode);
    auto t = make_drive(drive, sets);
    Drive& d = *t.drive;
    const auto r = run_quiet(d, make_workload(yaml, d.user_bytes()));
    if (std::string(mode) == "steady") {
      // Every logical page is in one valid slot, which names it, and each
      // block's valid count is the number of its slots that are valid.
      const MappingTable& map = d.ftl->map();
      const std::uint32_t per_block = d.ftl->blocks().layout().slots_per_block();
      std::vector<std::uint32_t> valid_in(d.geo.dies() * std::size_t{d.geo.blocks_per_plane}, 0);
      std::uint64_t mapped = 0;
      for (Lpn lpn = 0; lpn < map.logical_pages(); ++lpn) {
        const std::uint32_t at = map.lookup(lpn);
        if (!is_flash(at) || map.owner(at) != lpn) continue;
        ++mapped;
        ++valid_in[at / per_block];
      }
      CHECK(mapped == map.logical_pages());
      bool counts_match = true;
      for (std::uint32_t die = 0; die < d.geo.dies(); ++die)
        for (std::uint32_t b = 0; b < d.geo.blocks_per_plane; ++b)
          counts_match &= valid_in[die * std::size_t{d.geo.blocks_per_plane} + b] ==
                          d.ftl->blocks().info(die, b).valid;
      CHECK(counts_match);
    }
    return Outcome{block_state(d),
                   r.phases[2].ftl_after.gc_moved_slots - r.phases[1].ftl_before.gc_moved_slots};
  };
  const Outcome exact = run("true", 3), exact_other = run("true", 4), steady = run("steady", 3);
  const double self = ks_distance(exact.state.valid_share, exact_other.state.valid_share);
  CHECK(ks_distance(exact.state.valid_share, steady.state.valid_share) <= std::max(0.05, 2 * self));
  CHECK(static_cast<double>(steady.moved) ==
        Approx(static_cast<double>(exact.moved)).epsilon(0.02));
  CHECK(static_cast<double>(steady.state.erases) ==
        Approx(static_cast<double>(exact.state.erases)).epsilon(0.02));
  for (std::size_t i = 0; i < exact.state.die_valid.size(); ++i)
    CHECK(steady.state.die_valid[i] == Approx(exact.state.die_valid[i]).epsilon(0.01));
  CHECK(exact.moved > 0);
}

TEST_CASE("timed IO runs on a steady-state layout", "[ftl][fast]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
  Drive& d = *t.drive;
  const auto r = run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: fill, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: over, fast: steady, rw: randwrite, bs: 4KiB, io_size: 150%}
    - {name: mixed, rw: randrw, bs: 4KiB, iodepth: 32, io_size: 10%}
    - {name: check, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                                            d.user_bytes()));
  CHECK(r.phases[1].ftl_after.gc_victims > r.phases[1].ftl_before.gc_victims);
  CHECK(r.phases[1].result.end == r.phases[1].result.start);  // no simulated time
  CHECK(r.phases[3].result.ios[0] > 0);
  CHECK(d.ftl->stats().read_unmapped == 0);  // every page found where the layout put it
}

TEST_CASE("steady-state preconditioning says what it needs", "[ftl][fast]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
  const std::uint64_t user = t.drive->user_bytes();
  CHECK_THROWS_WITH(
      make_workload("workload: {phases: [{rw: write, fast: steady, io_size: 10%}]}", user),
      Catch::Contains("fast") && Catch::Contains("4 KiB random writes over the whole drive"));
  CHECK_THROWS_WITH(
      make_workload(
          "workload: {phases: [{rw: randwrite, bs: 4KiB, size: 50%, fast: steady, io_size: 10%}]}",
          user),
      Catch::Contains("whole drive"));
  CHECK_THROWS_WITH(
      make_workload("workload: {phases: [{rw: randwrite, fast: sometimes, io_size: 10%}]}", user),
      Catch::Contains("fast"));
  // A drive not yet full: the draw needs every logical page mapped.
  CHECK_THROWS_WITH(
      run_quiet(
          *t.drive,
          make_workload(
              "workload: {phases: [{rw: randwrite, bs: 4KiB, fast: steady, io_size: 10%}]}", user)),
      Catch::Contains("every logical page"));
  // Write verification follows contents the counted writes do not keep.
  auto v = make_drive("configs/drives/test_tlc_1gb.yaml", {}, true);
  CHECK_THROWS_WITH(run_quiet(*v.drive, make_workload(R"(
workload:
  phases:
    - {name: fill, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: over, fast: steady, rw: randwrite, bs: 4KiB, io_size: 10%}
)",
                                                      user)),
                    Catch::Contains("verification"));
}
