// RAIN parity: stripes inside a block and across dies (super-blocks), and its cost to GC.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/blocks/rain_stripes.h"
#include "ftl/blocks/super_blocks.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

TEST_CASE("RAIN programs one parity unit per stripe and its space does not help GC",
          "[ftl][rain]") {
  const char* workload = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: check, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)";
  auto run = [&](const std::string& stripe) {
    TestDrive t;
    const auto r =
        run_verified(t, {"drive.user_capacity=900MB", "drive.ftl.rain.stripe=" + stripe}, workload);
    const FtlStats& s = t.drive->ftl->stats();
    CHECK(s.verify_checks >= t.drive->ftl->user_pages());
    const NandStats& n = t.drive->nand.stats();
    const double programs = static_cast<double>(n.total(n.programs));
    const double parity = static_cast<double>(s.rain_parity_units);
    const PhaseReport& over = r.phases[1];
    const auto moved =
        static_cast<double>(over.ftl_after.gc_moved_slots - over.ftl_before.gc_moved_slots);
    return std::make_tuple(programs, parity, moved);
  };
  const auto [plain_programs, plain_parity, plain_moved] = run("0");
  const auto [rain_programs, rain_parity, rain_moved] = run("8");
  CHECK(plain_parity == 0);
  CHECK(plain_programs > 0);
  // Every 8th unit a die programs (host or relocation) is parity.
  CHECK(rain_parity / rain_programs == Approx(1.0 / 8).epsilon(0.05));
  // Parity pages hold no data: less spare for the same user data, so GC
  // moves more per page written.
  CHECK(rain_moved > 1.2 * plain_moved);
}

TEST_CASE("RAIN settings are checked against the flash left for data", "[ftl][rain]") {
  CHECK_THROWS_WITH(make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.ftl.rain.stripe=1"}),
                    Catch::Contains("stripe"));
  CHECK_THROWS_WITH(make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.ftl.rain.stripe=2"}),
                    Catch::Contains("after RAIN parity"));
}

TEST_CASE("RAIN parity closes every stripe inside its block", "[ftl][rain]") {
  const RainStripes s(4);
  // A block of 10 units: data 0-2, parity 3; data 4-6, parity 7; data 8, parity 9.
  CHECK(s.parity_next(2, 10));
  CHECK_FALSE(s.parity_next(1, 10));
  CHECK(s.parity_next(6, 10));
  CHECK(s.parity_next(8, 10));
  CHECK_FALSE(s.parity_next(9, 10));
  CHECK(s.first(9) == 8);
  CHECK(s.end(9, 10) == 10);
  CHECK(s.end(5, 10) == 8);
}

// ---- RAIN across dies: super-blocks in lockstep, GC by super-block ----

namespace {
const char* kSpanWorkload = R"(
workload:
  phases:
    - {name: fill, fast: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: churn, fast: true, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 150%}
    - {name: check, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)";
const std::vector<std::string> kSpanSets = {"drive.user_capacity=750MB", "drive.ftl.rain.stripe=4"};

}  // namespace

TEST_CASE("rain span block leaves every result as without the key", "[ftl][rain][span]") {
  TestDrive plain, block;
  run_verified(plain, kSpanSets, kSpanWorkload);
  run_verified(block, with(kSpanSets, "drive.ftl.rain.span=block"), kSpanWorkload);
  const FtlStats& a = plain.drive->ftl->stats();
  const FtlStats& b = block.drive->ftl->stats();
  CHECK(a.gc_erases > 0);
  CHECK(std::memcmp(&a, &b, sizeof a) == 0);
  CHECK(plain.drive->engine.now() == block.drive->engine.now());
}

TEST_CASE("super-block parity rotates over the group and skips missing members",
          "[ftl][rain][span]") {
  SuperBlockTable sb;
  sb.width = 4;
  sb.blocks = 8;
  sb.members.assign(2 * 8, 0xF);
  // Group 1 is dies 4-7; position k of super-block B: member (B + k) % 4.
  for (std::uint32_t b = 0; b < 8; ++b)
    for (std::uint32_t k = 0; k < 8; ++k) CHECK(sb.parity_die(1, b, k) == 4 + (b + k) % 4);
  // Member 2 missing from super-block 3: its turns pass to member 3.
  sb.members[sb.at(0, 3)] = 0xB;
  CHECK(sb.parity_die(0, 3, 3) == 3);  // (3 + 3) % 4 = 2, missing
  CHECK(sb.parity_die(0, 3, 0) == 3);
  CHECK(sb.parity_die(0, 3, 1) == 0);
  // One member left: nothing to protect it with.
  sb.members[sb.at(0, 4)] = 0x2;
  CHECK(sb.parity_die(0, 4, 0) == UINT32_MAX);
}

TEST_CASE("rain span dies: stripes span a group's dies and data survives GC", "[ftl][rain][span]") {
  for (const std::string stripe : {"2", "4"}) {
    TestDrive t;
    const auto sets = std::vector<std::string>{
        "drive.user_capacity=" + std::string(stripe == "2" ? "480MB" : "750MB"),
        "drive.ftl.rain.stripe=" + stripe, "drive.ftl.rain.span=dies"};
    // Timed phases only, so that the NAND counts every program.
    run_verified(t, sets, R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 200%}
    - {name: check, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)");
    INFO("stripe " << stripe);
    const FtlStats& s = t.drive->ftl->stats();
    CHECK(s.verify_checks >= t.drive->ftl->user_pages());
    CHECK(s.gc_erases > 100);
    const NandStats& n = t.drive->nand.stats();
    // One unit in `stripe` of each super-block position is parity.
    CHECK(static_cast<double>(s.rain_parity_units) / static_cast<double>(n.total(n.programs)) ==
          Approx(1.0 / std::stoi(stripe)).epsilon(0.05));
    const BlockManager& bm = t.drive->ftl->blocks();
    const SuperBlockTable& sb = bm.super_blocks();
    REQUIRE(sb.width == static_cast<std::uint32_t>(std::stoi(stripe)));
    const std::uint32_t groups = bm.dies() / sb.width;
    std::uint64_t in_use = 0;
    for (std::uint32_t g = 0; g < groups; ++g)
      for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b) {
        const auto state = sb.state[sb.at(g, b)];
        // Members are dies of the group (a bit per member of a group).
        CHECK(sb.members[sb.at(g, b)] >> sb.width == 0);
        // Lockstep erase: every member of a super-block has been erased as
        // often as the others (one GC victim in progress may lead by one).
        std::uint32_t lo = UINT32_MAX, hi = 0;
        for (std::uint32_t d = g * sb.width; d < (g + 1) * sb.width; ++d) {
          lo = std::min(lo, bm.info(d, b).erase_count);
          hi = std::max(hi, bm.info(d, b).erase_count);
        }
        CHECK(hi - lo <= (state == SuperBlockTable::State::kVictim ? 1u : 0u));
        // The pool holds only super-blocks erased on every member.
        if (state == SuperBlockTable::State::kPooled)
          for (std::uint32_t d = g * sb.width; d < (g + 1) * sb.width; ++d)
            CHECK(bm.info(d, b).state == BlockState::kFree);
        // A super-block in use: its members write it for one stream.
        if (state == SuperBlockTable::State::kInUse) {
          ++in_use;
          int stream = -1;
          for (std::uint32_t d = g * sb.width; d < (g + 1) * sb.width; ++d) {
            const BlockInfo& i = bm.info(d, b);
            if (i.state == BlockState::kFree) continue;  // not reached yet
            if (stream < 0) stream = static_cast<int>(i.stream.id);
            CHECK(static_cast<int>(i.stream.id) == stream);
          }
        }
      }
    CHECK(in_use > 0);
  }
}

TEST_CASE("rain span dies: GC victims are whole super-blocks, in the same order on every member",
          "[ftl][rain][span][gc]") {
  // A victim chosen for a group is collected by every member, whatever its
  // own trigger said: each member die has erased as many blocks as the
  // others (bar the victims in progress), under each victim policy.
  for (const std::string policy : {"greedy", "cost_benefit", "fifo"}) {
    INFO(policy);
    TestDrive t;
    run_verified(t,
                 {"drive.user_capacity=750MB", "drive.ftl.rain.stripe=4",
                  "drive.ftl.rain.span=dies", "drive.ftl.gc.policy=" + policy},
                 kSpanWorkload);
    const BlockManager& bm = t.drive->ftl->blocks();
    const SuperBlockTable& sb = bm.super_blocks();
    std::uint64_t in_progress = 0;
    for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b)
      if (sb.state[sb.at(0, b)] == SuperBlockTable::State::kVictim) ++in_progress;
    std::vector<std::uint64_t> erases(bm.dies(), 0);
    for (std::uint32_t d = 0; d < bm.dies(); ++d)
      for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b)
        erases[d] += bm.info(d, b).erase_count;
    const auto [lo, hi] = std::minmax_element(erases.begin(), erases.end());
    CHECK(*lo > 50);
    CHECK(*hi - *lo <= in_progress);
    CHECK(t.drive->ftl->stats().gc_erases ==
          std::accumulate(erases.begin(), erases.end(), std::uint64_t{0}));
  }
}

TEST_CASE("rain span dies refuses what it does not model", "[ftl][rain][span][config]") {
  const std::string drive = "configs/drives/test_tlc_1gb.yaml";
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.rain.span=dies"}),
                    Catch::Contains("rain.stripe of at least 2"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.user_capacity=600MB", "drive.ftl.rain.stripe=3",
                                       "drive.ftl.rain.span=dies"}),
                    Catch::Contains("multiple of rain.stripe"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.rain.span=stripes"}), Catch::Contains("span"));
  CHECK_THROWS_WITH(make_drive("configs/drives/test_tlc_slc.yaml",
                               {"drive.user_capacity=600MB", "drive.ftl.rain.stripe=4",
                                "drive.ftl.rain.span=dies"}),
                    Catch::Contains("SLC cache"));
  // Counted preconditioning does not model super-blocks.
  TestDrive t = make_drive(
      drive, {"drive.user_capacity=750MB", "drive.ftl.rain.stripe=4", "drive.ftl.rain.span=dies"});
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill, fast: true, rw: write, bs: 128KiB, io_size: 100%}
    - {name: steady, fast: steady, rw: randwrite, bs: 4KiB, io_size: 100%}
)",
                               t.drive->user_bytes());
  CHECK_THROWS_WITH(run_quiet(*t.drive, w), Catch::Contains("span: dies"));
}
