// Power loss: what a cut loses with and without PLP, map checkpoints, recovery at power-on.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl_test_support.h"
#include "sim/rng.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

// A 256 MiB MLC drive, 200 MB of it for the host: small enough to cut power
// a thousand times, full enough that GC relocates while the cuts land.
const std::vector<std::string> kSmallMlc = {"drive.nand.blocks_per_plane=32",
                                            "drive.user_capacity=200MB"};

struct CutTally {
  std::uint64_t cuts = 0, lost = 0, volatile_pages = 0, corrupted = 0, interrupted = 0,
                protected_cuts = 0, mismatches = 0, replayed = 0, verify_errors = 0,
                program_failures = 0, map_checkpoints = 0;
  Tick max_recovery = 0;
};

// The whole drive written once, in 128 KiB writes.
void fill_drive(Drive& d) {
  run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                             d.user_bytes()));
}

// Fills the drive, then cuts power `cuts` times during random writes at
// random moments, each time recovering into a newly built drive that runs on.
CutTally cut_many(std::vector<std::string> sets, int cuts, std::uint64_t seed) {
  CutTally tally;
  Rng rng(seed);
  auto build = [&]() {
    return make_drive("configs/drives/test_mlc_sata.yaml", sets, /*verify=*/true);
  };
  auto t = build();
  fill_drive(*t.drive);
  const auto churn = make_workload(R"(
workload:
  seed: 7
  phases:
    - {name: churn, rw: randrw, rwmixread: 30, bs: 4KiB, iodepth: 8, runtime: 1s}
)",
                                   t.drive->user_bytes());
  for (int i = 0; i < cuts; ++i) {
    RunOptions opt;
    opt.progress = false;
    opt.stop_at = 1 + rng.below(20 * kMs);  // from the first IO to 20 ms of them
    const RunReport rep = run_workload(*t.drive, churn, opt);
    REQUIRE(rep.cut);
    tally.verify_errors += t.drive->ftl->stats().verify_errors;
    tally.program_failures += t.drive->ftl->stats().program_failures;
    tally.map_checkpoints += t.drive->ftl->stats().map_checkpoints;
    const DurableImage img = t.drive->ftl->power_cut();
    auto next = build();
    const RecoveryReport rec = next.drive->ftl->recover(img);
    ++tally.cuts;
    tally.lost += rec.lost_pages;
    tally.volatile_pages += img.account.volatile_pages;
    tally.corrupted += img.account.corrupted_pages;
    tally.interrupted += img.account.interrupted_programs;
    tally.protected_cuts += img.account.protected_cut;
    tally.replayed += rec.replayed_pages;
    if (rec.lost_pages != img.account.allowed_loss()) ++tally.mismatches;
    tally.max_recovery = std::max(tally.max_recovery, rec.recovery_time);
    t = std::move(next);
  }
  // The last recovered drive reads back what it holds.
  run_quiet(*t.drive, make_workload(R"(
workload:
  phases:
    - {name: readback, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                                    t.drive->user_bytes()));
  tally.verify_errors += t.drive->ftl->stats().verify_errors;
  return tally;
}

}  // namespace

TEST_CASE("without PLP a power cut loses exactly the writes the model holds volatile",
          "[ftl][power]") {
  const CutTally c = cut_many(kSmallMlc, 1000, 11);
  INFO("lost " << c.lost << " volatile " << c.volatile_pages << " corrupted " << c.corrupted);
  CHECK(c.cuts == 1000);
  CHECK(c.mismatches == 0);
  CHECK(c.lost == c.volatile_pages);
  CHECK(c.lost > 0);         // writes were in the buffer at the cuts
  CHECK(c.interrupted > 0);  // and programs under way
  CHECK(c.corrupted > 0);    // MLC: some of those took their lower pages
  CHECK(c.verify_errors == 0);
  CHECK(c.max_recovery > 0);
}

TEST_CASE("with PLP, power cuts at 1000 random points lose nothing", "[ftl][power]") {
  auto sets = kSmallMlc;
  sets.push_back("drive.ftl.power_loss={protection: true, hold_up: 40ms}");
  const CutTally c = cut_many(sets, 1000, 12);
  CHECK(c.protected_cuts == 1000);
  CHECK(c.lost == 0);
  CHECK(c.replayed > 0);
  CHECK(c.verify_errors == 0);
}

TEST_CASE("with failing programs too, a cut loses exactly what the model holds volatile",
          "[ftl][power]") {
  auto sets = kSmallMlc;
  sets.push_back("drive.user_capacity=180MB");  // room for a reserve of 3 blocks per die
  sets.push_back("drive.nand.bad_blocks={program_fail: 0.001}");
  sets.push_back("drive.ftl.bad_block_reserve=3");
  const CutTally c = cut_many(sets, 300, 15);
  CHECK(c.program_failures > 0);
  CHECK(c.mismatches == 0);
  CHECK(c.verify_errors == 0);
}

TEST_CASE("map checkpoints cost map writes and shorten recovery to the blocks written since",
          "[ftl][power]") {
  auto with = kSmallMlc;
  with.push_back("drive.ftl.power_loss.map_checkpoint_every=8MB");
  const CutTally scan = cut_many(kSmallMlc, 50, 16);
  const CutTally ckpt = cut_many(with, 50, 16);
  CHECK(ckpt.mismatches == 0);
  CHECK(ckpt.verify_errors == 0);
  CHECK(ckpt.max_recovery < scan.max_recovery / 2);
  CHECK(ckpt.map_checkpoints > 0);
}

TEST_CASE("paired-page protection keeps lower pages through a cut", "[ftl][power]") {
  auto sets = kSmallMlc;
  sets.push_back("drive.ftl.power_loss.paired_page_protection=true");
  const CutTally c = cut_many(sets, 200, 13);
  CHECK(c.corrupted == 0);
  CHECK(c.mismatches == 0);
}

TEST_CASE("a PLP hold-up too short for the flush loses what it could not write", "[ftl][power]") {
  auto sets = kSmallMlc;
  sets.push_back("drive.ftl.power_loss={protection: true, hold_up: 100us}");
  const CutTally c = cut_many(sets, 100, 14);
  CHECK(c.protected_cuts < 100);
  CHECK(c.mismatches == 0);
}

// The longer run (CTest label "long"): many more cuts, with and without PLP.
TEST_CASE("power cuts at 20000 random points: PLP loses nothing, no PLP exactly the volatile",
          "[.][power-long]") {
  auto plp = kSmallMlc;
  plp.push_back("drive.ftl.power_loss={protection: true, hold_up: 40ms}");
  const CutTally with = cut_many(plp, 20000, 21);
  CHECK(with.lost == 0);
  CHECK(with.verify_errors == 0);
  const CutTally without = cut_many(kSmallMlc, 20000, 22);
  CHECK(without.mismatches == 0);
  CHECK(without.verify_errors == 0);
}

TEST_CASE(
    "at power-on a drive reclaims the blocks a cut left half done and collects to its trigger",
    "[ftl][power]") {
  // The 1 GB TLC drive's GC reserve is 2 of a trigger of 6. Every cut
  // strands the open host and relocation blocks and the victims moved but
  // not yet erased; left to the victim policy, and with GC started only by
  // a host program, a die recovered at its reserve waited for a program
  // that could not start (workloads of a dozen cuts ran forever).
  const auto build = [] {
    return make_drive("configs/drives/test_tlc_1gb.yaml", {}, /*verify=*/true);
  };
  auto t = build();
  fill_drive(*t.drive);
  const auto churn = make_workload(
      "workload: {seed: 3, phases: "
      "[{name: churn, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 1s}]}",
      t.drive->user_bytes());
  const std::uint32_t trigger = t.drive->ftl->config().gc_trigger_free_blocks;
  std::uint64_t reclaimed = 0, lost = 0, allowed = 0, below_trigger = 0;
  for (int i = 0; i < 12; ++i) {
    RunOptions opt;
    opt.progress = false;
    opt.stop_at = t.drive->engine.now() + 500 * kMs;
    REQUIRE(run_workload(*t.drive, churn, opt).cut);
    const DurableImage img = t.drive->ftl->power_cut();
    auto next = build();
    next.drive->engine.advance_to(t.drive->engine.now());
    const RecoveryReport rec = next.drive->ftl->recover(img);
    reclaimed += rec.blocks_reclaimed;
    lost += rec.lost_pages;
    allowed += img.account.allowed_loss();
    t = std::move(next);
    const BlockManager& bm = t.drive->ftl->blocks();
    for (std::uint32_t die = 0; die < bm.dies(); ++die)
      below_trigger += bm.free_blocks(die) < trigger;
    // No host IO: the drive works on its own.
    t.drive->engine.advance_to(t.drive->engine.now() + 100 * kMs);
    for (std::uint32_t die = 0; die < bm.dies(); ++die) {
      INFO("cut " << i << " die " << die);
      // (One victim moved may wait for the rest of its last program unit.)
      CHECK(bm.free_blocks(die) + 1 >= trigger);
      for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b) {
        const BlockInfo& info = bm.info(die, b);
        if (info.state == BlockState::kFull)
          CHECK(info.programmed == bm.pages_in(info));  // none stranded
      }
    }
  }
  CHECK(below_trigger > 0);  // the cuts did leave dies short
  CHECK(reclaimed >= 12);    // at least the host's open block each time
  CHECK(lost == allowed);
  CHECK(t.drive->ftl->stats().reclaim_blocks == 0);  // not counted as read reclaim
  // The last drive runs a whole phase (a stall would run into this bound).
  RunOptions bound;
  bound.progress = false;
  bound.stop_at = t.drive->engine.now() + 10 * kSec;
  REQUIRE_FALSE(run_workload(*t.drive, churn, bound).cut);
  CHECK(t.drive->ftl->stats().verify_errors == 0);
}

TEST_CASE("trimmed pages stay trimmed through a power cut", "[ftl][power]") {
  const auto build = [] {
    return make_drive("configs/drives/test_mlc_sata.yaml", kSmallMlc, true);
  };
  auto probe = build();
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, io_size: 100%}
    - {name: trim, rw: trim, bs: 1MiB, iodepth: 4, size: 32MiB, io_size: 100%}
    - {name: churn, rw: randwrite, bs: 4KiB, iodepth: 8, offset: 64MiB, size: 64MiB, runtime: 1s}
)",
                               probe.drive->user_bytes());
  // When the trims are done, from a run to the end; then the same run, cut
  // 5 ms into the random writes after them.
  const Tick trim_end = run_quiet(*probe.drive, w).phases[1].result.end;
  auto t = build();
  RunOptions cut;
  cut.progress = false;
  cut.stop_at = trim_end + 5 * kMs;
  REQUIRE(run_workload(*t.drive, w, cut).cut);
  const DurableImage img = t.drive->ftl->power_cut();
  auto next = build();
  const RecoveryReport rec = next.drive->ftl->recover(img);
  CHECK(rec.lost_pages == img.account.allowed_loss());
  run_quiet(*next.drive, make_workload(R"(
workload:
  phases:
    - {name: readback, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                                       next.drive->user_bytes()));
  CHECK(next.drive->ftl->stats().read_unmapped >= (32u << 20) / kSectorBytes);  // the trimmed range
  CHECK(next.drive->ftl->stats().verify_errors == 0);
}
