// Static wear levelling and TRIM of large ranges.
#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

TEST_CASE("static wear levelling keeps cold blocks in the erase rotation", "[ftl][wear]") {
  // Cold data over the whole drive, then a small hot range rewritten many
  // times: without wear levelling, the cold blocks are never erased again.
  const char* workload = R"(
workload:
  phases:
    - {name: cold, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: hot, rw: randwrite, bs: 4KiB, iodepth: 32, size: 10%, io_size: 5000%}
)";
  auto spread = [&](const std::string& threshold) {
    TestDrive t;
    const auto r = run_verified(
        t, {"drive.ftl.wear_leveling={static_threshold: " + threshold + ", check_every: 2}"},
        workload);
    const PhaseReport& hot = r.phases[1];
    return std::make_pair(hot.wear, hot.ftl_after.wl_victims);
  };
  const auto [off, off_victims] = spread("0");
  const auto [on, on_victims] = spread("4");
  CHECK(off_victims == 0);
  CHECK(on_victims > 0);
  CHECK(off.max - off.min > 12);
  // The spread stays near the threshold (a victim moves per erase seen).
  // Every cold block has been moved and erased again, and the spread stays
  // near the threshold (it may overshoot by the erases between two looks).
  CHECK(on.min > 0);
  CHECK(on.max - on.min <= 4 + 4);
  CHECK(2 * (on.max - on.min) < off.max - off.min);
}

TEST_CASE("a whole-drive TRIM is fast and idle time reclaims the blocks without moves",
          "[ftl][trim]") {
  // 1 GiB, so that 64 MiB commands cover the drive exactly.
  auto t = make_drive(
      "configs/drives/test_tlc_1gb.yaml",
      {"drive.user_capacity=1GiB", "drive.ftl.gc.background={idle_after: 50ms, free_blocks: 40}"},
      true);
  Drive& d = *t.drive;
  const auto r = run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: trim, rw: trim, bs: 64MiB, iodepth: 1, io_size: 100%, idle_after: 2s}
    - {name: read, rw: randread, bs: 4KiB, iodepth: 8, number_ios: 2000}
)",
                                            d.user_bytes()));
  const PhaseReport& trim = r.phases[2];
  // 16 commands of 64 MiB: each costs firmware time per map segment, not per page.
  CHECK(seconds_of(trim) < 0.01);
  // At most the victims already being collected when the TRIM came move pages.
  CHECK(trim.ftl_after.gc_moved_slots - trim.ftl_before.gc_moved_slots <=
        std::uint64_t{d.geo.dies()} * d.ftl->blocks().layout().slots_per_block());
  CHECK(trim.ftl_after.gc_erases > trim.ftl_before.gc_erases);
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die)
    CHECK(d.ftl->blocks().free_blocks(die) >= 40);
  CHECK(d.ftl->stats().read_unmapped >= 2000);
  CHECK(d.ftl->stats().verify_errors == 0);
}
