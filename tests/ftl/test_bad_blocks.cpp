// Bad blocks: factory marks, failed erases and programs, and the spare reserve.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {
// A whole-drive fill, `churn` of 4 KiB random writes over the drive (as a
// share of it), then optionally a read of everything back.
WorkloadSpec fill_churn(const Drive& d, const std::string& churn, bool readback) {
  std::string yaml = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, io_size: 100%}
    - {name: churn, rw: randwrite, bs: 4KiB, iodepth: 16, io_size: )" +
                     churn + "}\n";
  if (readback) yaml += "    - {name: readback, rw: read, bs: 128KiB, iodepth: 8, io_size: 100%}\n";
  return make_workload(yaml, d.user_bytes());
}
}  // namespace

TEST_CASE("factory bad blocks are never used and spares from the reserve replace them",
          "[ftl][badblocks]") {
  auto t = make_drive(
      "configs/drives/test_mlc_sata.yaml",
      {"drive.nand.bad_blocks={factory: 0.02, seed: 3}", "drive.ftl.bad_block_reserve=8"},
      /*verify=*/true);
  Drive& d = *t.drive;
  const BlockManager& bm = d.ftl->blocks();
  // About 2% of 512 blocks; each die's bad ones in service came out of its 8 spares.
  CHECK(bm.bad_blocks() > 3);
  CHECK(bm.bad_blocks() < 25);
  CHECK(bm.unreplaced_bad_blocks() == 0);
  std::vector<std::uint32_t> bad;
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die)
    for (std::uint32_t b = 0; b < d.geo.blocks_per_plane; ++b)
      if (bm.info(die, b).state == BlockState::kBad)
        bad.push_back(die * d.geo.blocks_per_plane + b);
  REQUIRE(bad.size() == bm.bad_blocks());
  const auto w = fill_churn(d, "150%", true);
  run_quiet(d, w);
  for (const std::uint32_t db : bad) {
    const BlockInfo& b = bm.info(db / d.geo.blocks_per_plane, db % d.geo.blocks_per_plane);
    CHECK(b.state == BlockState::kBad);
    CHECK(b.erase_count == 0);  // never programmed, so never erased
  }
  CHECK(d.ftl->stats().verify_errors == 0);
}

TEST_CASE("a failed erase retires its block, a spare takes its place, and no data is lost",
          "[ftl][badblocks]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.nand.bad_blocks={erase_fail: 0.01}", "drive.ftl.bad_block_reserve=6"},
                      /*verify=*/true);
  Drive& d = *t.drive;
  const auto w = fill_churn(d, "200%", true);
  run_quiet(d, w);
  const FtlStats& s = d.ftl->stats();
  const BlockManager& bm = d.ftl->blocks();
  CHECK(s.grown_bad_blocks > 0);
  CHECK(bm.bad_blocks() == s.grown_bad_blocks);
  std::uint64_t spares = 0;
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die) spares += bm.spare_blocks(die);
  CHECK(spares + s.grown_bad_blocks - bm.unreplaced_bad_blocks() == 6 * d.geo.dies());
  CHECK(s.verify_errors == 0);
}

TEST_CASE("the bad-block reserve comes out of the spare area: GC works harder",
          "[ftl][badblocks]") {
  auto wa = [](const std::string& reserve) {
    // 900 MB of 1 GiB raw: a spare area of 10 blocks per die before the reserve.
    auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                        {"drive.user_capacity=900MB", "drive.ftl.bad_block_reserve=" + reserve});
    Drive& d = *t.drive;
    const auto w = fill_churn(d, "200%", false);
    run_quiet(d, w);
    const FtlStats& s = d.ftl->stats();
    return static_cast<double>(s.host_native_slots + s.gc_moved_slots) /
           static_cast<double>(s.host_native_slots);
  };
  const double without = wa("0"), with = wa("4");
  INFO(without << " " << with);
  CHECK(with > 1.1 * without);
}

TEST_CASE("a failed program writes its data again and retires its block once emptied",
          "[ftl][badblocks]") {
  // Rates that fail fewer blocks per die than the reserve holds.
  for (const auto& [drive, rate] : {std::pair{"configs/drives/test_mlc_sata.yaml", "0.002"},
                                    std::pair{"configs/drives/test_tlc_slc.yaml", "0.0002"}}) {
    INFO(drive);
    auto t = make_drive(drive,
                        {std::string("drive.nand.bad_blocks={program_fail: ") + rate + "}",
                         "drive.ftl.bad_block_reserve=6"},
                        /*verify=*/true);
    Drive& d = *t.drive;
    const auto w = fill_churn(d, "100%", true);
    run_quiet(d, w);
    const FtlStats& s = d.ftl->stats();
    CHECK(s.program_failures > 0);
    CHECK(s.grown_bad_blocks > 0);
    CHECK(s.grown_bad_blocks <= s.program_failures);  // a block can fail twice before it is emptied
    CHECK(s.rewrite_slots > 0);
    CHECK(s.reclaim_blocks > 0);
    CHECK(s.verify_errors == 0);
    CHECK(s.verify_checks >= d.user_bytes() / kSectorBytes);
  }
}

TEST_CASE("a drive whose spares run out stops with a clear error, not a stall",
          "[ftl][badblocks]") {
  auto t =
      make_drive("configs/drives/test_tlc_slc.yaml",
                 {"drive.nand.bad_blocks={program_fail: 0.002}", "drive.ftl.bad_block_reserve=6"});
  const auto w = fill_churn(*t.drive, "100%", false);
  // The run ends there with its results up to then (issue 30), the phase
  // it stopped in the last one reported.
  const RunReport r = run_quiet(*t.drive, w);
  CHECK_THAT(r.failure, Catch::Contains("worn out") && Catch::Contains("read-only") &&
                            Catch::Contains("in phase"));
  CHECK(r.cut);
  CHECK(r.phases.size() <= w.phases.size());
}
