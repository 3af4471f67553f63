// Blocks and dies that stop working: what is lost, what RAIN rebuilds, and that nothing hangs.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {
// The first 64 MiB written, then (after a failure) read back.
const char* kFill64 = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
)";
const char* kIdleThenRead64 = R"(
workload:
  phases:
    - {name: idle, rw: read, bs: 4KiB, iodepth: 1, size: 4KiB, io_size: 4KiB, idle_after: 10ms}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
)";
}  // namespace

TEST_CASE("a block that stops working loses its data, reported, until the host writes it again",
          "[ftl][errors][badblocks]") {
  auto t =
      make_drive("configs/drives/test_mlc_sata.yaml",
                 {"drive.ftl.rain.stripe=4", "drive.ftl.bad_block_reserve=4"}, /*verify=*/true);
  Drive& d = *t.drive;
  run_quiet(d, make_workload(kFill64, d.user_bytes()));
  const auto [die, block, page] = where(d, 100);
  d.ftl->fail_block_at(d.engine.now() + kMs, die, block);
  const auto read_all = make_workload(R"(
workload:
  phases:
    - {name: idle, rw: read, bs: 4KiB, iodepth: 1, size: 4KiB, io_size: 4KiB, idle_after: 10ms}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%, idle_after: 500ms}
)",
                                      d.user_bytes());
  run_quiet(d, read_all);
  const FtlStats& s = d.ftl->stats();
  CHECK(s.failed_blocks == 1);
  CHECK(s.host_reads_failed > 0);  // never returned as good
  CHECK(s.pages_rebuilt == 0);     // RAIN stripes stay in the block: nothing to rebuild from
  CHECK(d.ftl->blocks().info(die, block).state == BlockState::kBad);  // emptied and retired
  CHECK(s.verify_errors == 0);
  // Written again, the pages read back.
  const std::uint64_t failed = s.host_reads_failed;
  run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: rewrite, rw: write, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
)",
                             d.user_bytes()));
  CHECK(d.ftl->stats().host_reads_failed == failed);
  CHECK(d.ftl->stats().verify_errors == 0);
}

TEST_CASE("a die that stops working loses what it held, the others carry the writes",
          "[ftl][errors][badblocks]") {
  auto t =
      make_drive("configs/drives/test_mlc_sata.yaml", {"drive.ftl.rain.stripe=4"}, /*verify=*/true);
  Drive& d = *t.drive;
  run_quiet(d, make_workload(kFill64, d.user_bytes()));
  d.ftl->fail_die_at(d.engine.now() + kMs, 1);
  run_quiet(d, make_workload(kIdleThenRead64, d.user_bytes()));
  const FtlStats& s = d.ftl->stats();
  CHECK(s.failed_dies == 1);
  // A quarter of the data was on die 1 (4 dies): its reads fail, reported
  // (counted per flash read of a 32 KiB die-page). Only a stripe still open
  // in the controller's running parity can be rebuilt.
  CHECK(s.host_reads_failed > (16u << 20) / (32u << 10) / 2);
  CHECK(s.reads_lost > s.pages_rebuilt);
  const std::uint32_t free_on_dead = d.ftl->blocks().free_blocks(1);
  const std::uint64_t failed = s.host_reads_failed;
  run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: rewrite, rw: write, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 200%}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
)",
                             d.user_bytes()));
  CHECK(d.ftl->blocks().free_blocks(1) == free_on_dead);  // nothing more written there
  CHECK(d.ftl->stats().host_reads_failed == failed);      // rewritten data reads back
  CHECK(d.ftl->stats().verify_errors == 0);

  // Before the rewrite, a power cut would also lose the dead die's data: the
  // model counts it apart from what was volatile.
  auto t2 = make_drive("configs/drives/test_mlc_sata.yaml", {}, /*verify=*/true);
  run_quiet(*t2.drive, make_workload(kFill64, t2.drive->user_bytes()));
  t2.drive->ftl->fail_die_at(t2.drive->engine.now(), 1);
  t2.drive->engine.advance_to(t2.drive->engine.now() + kMs);
  const DurableImage img = t2.drive->ftl->power_cut();
  auto t3 = make_drive("configs/drives/test_mlc_sata.yaml", {}, /*verify=*/true);
  const RecoveryReport rec = t3.drive->ftl->recover(img);
  CHECK(img.account.failed_pages > 0);
  CHECK(rec.lost_pages == img.account.allowed_loss());
}

TEST_CASE("rain span dies: a failed die is rebuilt from the other members, nothing lost",
          "[ftl][errors][rain][span]") {
  const std::vector<std::string> sets = {"drive.user_capacity=500MB", "drive.ftl.rain.stripe=4"};
  // Idle long enough for the background rebuild to finish before the reads.
  std::string idle_then_read = kIdleThenRead64;
  idle_then_read.replace(idle_then_read.find("10ms"), 4, "300ms");
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml", with(sets, "drive.ftl.rain.span=dies"),
                      /*verify=*/true);
  Drive& d = *t.drive;
  run_quiet(d, make_workload(kFill64, d.user_bytes()));
  d.ftl->fail_die_at(d.engine.now() + kMs, 1);
  run_quiet(d, make_workload(idle_then_read, d.user_bytes()));
  const FtlStats& s = d.ftl->stats();
  CHECK(s.failed_dies == 1);
  // A quarter of the 64 MiB was on die 1, in 32 KiB die-pages (parity aside).
  CHECK(s.die_rebuild_pages >= (16u << 20) / (32u << 10) * 3 / 4);
  CHECK(s.die_pages_rebuilt == s.die_rebuild_pages);
  CHECK(s.die_pages_lost == 0);
  CHECK(s.rain_member_reads >= 2 * s.die_pages_rebuilt);  // the stripe's other members
  CHECK(s.host_reads_failed == 0);
  CHECK(s.reads_lost == 0);
  CHECK(s.verify_errors == 0);
  CHECK(s.verify_checks > 0);
  // Nothing valid is left on the failed die; later writes avoid it.
  std::uint64_t left = 0;
  for (std::uint32_t b = 0; b < d.ftl->blocks().blocks_per_die(); ++b)
    left += d.ftl->blocks().info(1, b).valid;
  CHECK(left == 0);
  const std::uint32_t free_on_dead = d.ftl->blocks().free_blocks(1);
  run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: rewrite, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 150%}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                             d.user_bytes()));
  CHECK(d.ftl->blocks().free_blocks(1) == free_on_dead);
  CHECK(d.ftl->stats().gc_erases > 0);
  CHECK(d.ftl->stats().host_reads_failed == 0);
  CHECK(d.ftl->stats().verify_errors == 0);

  // Reads racing the rebuild (10 ms idle): served degraded, rebuilt on the
  // fly from the other members, never failed.
  auto r =
      make_drive("configs/drives/test_tlc_1gb.yaml", with(sets, "drive.ftl.rain.span=dies"), true);
  run_quiet(*r.drive, make_workload(kFill64, r.drive->user_bytes()));
  r.drive->ftl->fail_die_at(r.drive->engine.now() + kMs, 1);
  run_quiet(*r.drive, make_workload(kIdleThenRead64, r.drive->user_bytes()));
  CHECK(r.drive->ftl->stats().die_pages_rebuilt < r.drive->ftl->stats().die_rebuild_pages);
  CHECK(r.drive->ftl->stats().host_reads_failed == 0);
  CHECK(r.drive->ftl->stats().reads_lost == 0);
  CHECK(r.drive->ftl->stats().verify_errors == 0);

  // Stripes inside a block: the same failure loses the die's data.
  auto b =
      make_drive("configs/drives/test_tlc_1gb.yaml", with(sets, "drive.ftl.rain.span=block"), true);
  run_quiet(*b.drive, make_workload(kFill64, b.drive->user_bytes()));
  b.drive->ftl->fail_die_at(b.drive->engine.now() + kMs, 1);
  run_quiet(*b.drive, make_workload(idle_then_read, b.drive->user_bytes()));
  CHECK(b.drive->ftl->stats().host_reads_failed > 0);
  CHECK(b.drive->ftl->stats().die_pages_rebuilt == 0);
  CHECK(b.drive->ftl->stats().verify_errors == 0);
}

// Fills the drive, fails `die` 20 ms into random 4 KiB writes at queue
// depth 32 over the whole capacity, then reads everything back (the die's
// valid die-pages are counted at the failure).
RunReport fail_die_under_random_writes(Drive& d, std::uint32_t die) {
  run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
)",
                             d.user_bytes()));
  d.ftl->fail_die_at(d.engine.now() + 20 * kMs, die);
  return run_quiet(d, make_workload(R"(
workload:
  watchdog: 2s
  phases:
    - {name: rand, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: read, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}
)",
                                    d.user_bytes()));
}

TEST_CASE(
    "rain span dies: a die failing under QD32 random writes is rebuilt or fails the drive, never "
    "hangs",
    "[ftl][errors][rain][span]") {
  // Die 2 of 4 (one group) fails 20 ms into random writes at queue depth 32.
  // On three dies, parity takes a third of each stripe: 500 MB still fit,
  // with spare for GC, and the rebuild completes; 750 MB do not, and the
  // drive reports it failed. Before, both stalled the group (the watchdog).
  for (const std::string cap : {"500MB", "750MB"}) {
    INFO("user capacity " << cap);
    auto t = make_drive(
        "configs/drives/test_tlc_1gb.yaml",
        {"drive.user_capacity=" + cap, "drive.ftl.rain.stripe=4", "drive.ftl.rain.span=dies"},
        /*verify=*/true);
    Drive& d = *t.drive;
    const RunReport r = fail_die_under_random_writes(d, 2);
    const FtlStats& s = d.ftl->stats();
    CHECK(s.failed_dies == 1);
    CHECK(r.failure.find("watchdog") == std::string::npos);
    if (cap == "500MB") {
      CHECK(r.failure.empty());
      CHECK(s.die_rebuild_pages > 0);
      CHECK(s.die_pages_rebuilt + s.die_pages_skipped == s.die_rebuild_pages);
      CHECK(s.die_pages_lost == 0);
      CHECK(s.verify_checks >= d.ftl->user_pages());
      CHECK(s.verify_errors == 0);
      CHECK(s.host_reads_failed == 0);
      std::uint64_t left = 0;
      for (std::uint32_t b = 0; b < d.ftl->blocks().blocks_per_die(); ++b)
        left += d.ftl->blocks().info(2, b).valid;
      CHECK(left == 0);
    } else {
      CHECK_THAT(r.failure, Catch::Contains("die 2 failed and its rebuild ran out of spare"));
      CHECK(s.die_pages_rebuilt == 0);
      CHECK(s.verify_errors == 0);
    }
  }
}

TEST_CASE(
    "rain span dies: a group of two left with one live die is rebuilt or fails the drive and never "
    "overflows",
    "[ftl][errors][rain][span]") {
  // Stripe 2: groups of two dies, die 0 fails 20 ms into random writes at
  // queue depth 32. Its group is left without parity on one live die, whose
  // programs wait behind the rebuild's reads while the other dies go on.
  // Each capacity must either complete with every page read back or end in
  // the drive failure; before, 480 MB stopped with "host program ring
  // overflow" (and, past that, ran GC-bound into the watchdog: the other
  // group's dies, still writing parity, cannot hold an even share of it).
  for (const std::string cap : {"380MB", "450MB", "480MB"}) {
    INFO("user capacity " << cap);
    auto t = make_drive(
        "configs/drives/test_tlc_1gb.yaml",
        {"drive.user_capacity=" + cap, "drive.ftl.rain.stripe=2", "drive.ftl.rain.span=dies"},
        /*verify=*/true);
    Drive& d = *t.drive;
    RunReport r;
    REQUIRE_NOTHROW(r = fail_die_under_random_writes(d, 0));
    const FtlStats& s = d.ftl->stats();
    CHECK(s.failed_dies == 1);
    CHECK(r.failure.find("watchdog") == std::string::npos);
    CHECK(s.verify_errors == 0);
    if (r.failure.empty()) {
      CHECK(s.die_rebuild_pages > 0);
      CHECK(s.die_pages_rebuilt + s.die_pages_skipped == s.die_rebuild_pages);
      CHECK(s.die_pages_lost == 0);
      CHECK(s.verify_checks >= d.ftl->user_pages());
      CHECK(s.host_reads_failed == 0);
      std::uint64_t left = 0;
      for (std::uint32_t b = 0; b < d.ftl->blocks().blocks_per_die(); ++b)
        left += d.ftl->blocks().info(0, b).valid;
      CHECK(left == 0);
    } else {
      CHECK_THAT(r.failure, Catch::Contains("die 0 failed and its rebuild ran out of spare"));
      CHECK(s.die_pages_rebuilt == 0);
    }
  }
}
