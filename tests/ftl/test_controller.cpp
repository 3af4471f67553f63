// The controller: the write buffer, firmware time per command and flash operation, the flush.
#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ftl/die_set.h"
#include "ftl/program_ring.h"
#include "ftl/write_buffer.h"
#include "ftl_test_support.h"
#include "sim/rng.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

TEST_CASE("the write buffer admits no more than its capacity", "[ftl][buffer]") {
  WriteBuffer b(8, 0, false);
  CHECK(b.reserve(5));
  CHECK_FALSE(b.reserve(4));
  CHECK(b.reserve(3));
  b.release(2);
  CHECK(b.used() == 6);
}

TEST_CASE("write-buffer entries come out in order and stale ones are marked", "[ftl][buffer]") {
  WriteBuffer b(4, 0, true);
  REQUIRE(b.reserve(4));
  const auto r0 = b.push(10, 1);
  b.push(11, 2);
  CHECK(b.valid_entries() == 2);
  b.mark_stale(r0);  // entry for 10 overwritten
  CHECK(b.valid_entries() == 1);
  CHECK(b.front_owner() == 10);
  CHECK(b.front_ref() == r0);
  CHECK(b.version_of(r0) == 1);
  b.pop(false);
  CHECK(b.front_owner() == 11);
  CHECK(b.front_version() == 2);
  b.pop(true);
  CHECK(b.valid_entries() == 0);
  CHECK(b.waiting_entries() == 0);
  // The ring wraps around.
  for (Lpn l = 20; l < 24; ++l) b.push(l, 0);
  CHECK(b.waiting_entries() == 4);
  CHECK(b.front_owner() == 20);
}

TEST_CASE("host programs leave the ring in order, whatever order they finish in", "[ftl][buffer]") {
  ProgramRing r(3);
  CHECK(r.empty());
  CHECK(r.oldest(99) == 99);
  const auto a = r.started(10), b = r.started(14), c = r.started(20);
  CHECK(r.full());
  CHECK_THROWS_AS(r.started(30), std::logic_error);
  CHECK(a != 0);
  CHECK(r.first_entry(b) == 14);
  r.finished(b);  // out of order: the oldest is still a's
  CHECK(r.oldest(99) == 10);
  CHECK(r.oldest_unfinished(99) == 10);
  r.finished(a);  // a and b leave together
  CHECK(r.oldest(99) == 20);
  CHECK(r.oldest_unfinished(15) == 15);
  // The ring wraps around: a new program takes a freed place.
  const auto d = r.started(24);
  r.finished(c);
  CHECK(r.oldest(99) == 24);
  r.finished(d);
  CHECK(r.empty());
}

TEST_CASE("writes wait for write-buffer space and all complete", "[ftl][controller]") {
  // The smallest buffer the drive accepts: two program units.
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.controller.write_buffer=192KiB"});
  Drive& d = *t.drive;
  const auto w = make_workload(R"(
workload:
  phases: [{name: w, rw: randwrite, bs: 4KiB, iodepth: 64, number_ios: 20000}]
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  CHECK(r.phases[0].result.ios[static_cast<int>(IoOp::kWrite)] == 20000);
  CHECK(r.phases[0].buffer_waits > 0);
  CHECK(d.ftl->buffer().used() <= d.ftl->buffer().capacity());
}

TEST_CASE("a write larger than the write buffer streams through it in chunks",
          "[ftl][controller]") {
  // 4 MiB commands through a 1 MiB buffer: each chunk of 128 KiB enters as
  // space frees, so the commands complete, the data is intact, and the
  // drive writes about as fast as with commands that fit.
  auto write_mb_s = [](const std::string& bs) {
    auto t = make_drive("configs/drives/test_tlc_1gb.yaml", {}, true);
    Drive& d = *t.drive;
    const auto r = run_quiet(d, make_workload(R"(
workload:
  phases:
    - {name: w, rw: write, bs: )" + bs + R"(, iodepth: 2, size: 64MiB, io_size: 64MiB}
    - {name: r, rw: read, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 64MiB}
)",
                                              d.user_bytes()));
    const auto written = r.phases[0].result.bytes[static_cast<int>(IoOp::kWrite)];
    CHECK(written == 64ull << 20);
    CHECK(d.ftl->buffer().used() <= d.ftl->buffer().capacity());
    CHECK(d.ftl->stats().verify_checks >= (64ull << 20) / kSectorBytes);
    CHECK(d.ftl->stats().verify_errors == 0);
    return static_cast<double>(written) / 1e6 / seconds_of(r.phases[0]);
  };
  const double big = write_mb_s("4MiB");
  const double fits = write_mb_s("128KiB");
  UNSCOPED_INFO("4 MiB commands " << big << " MB/s, 128 KiB commands " << fits << " MB/s");
  CHECK(big > 0.9 * fits);
}

namespace {

// 4 KiB random writes and then reads at QD32 on the SATA test drive (one
// firmware core), fresh: the writes stay in erased blocks.
RunReport fob_qd32(const std::vector<std::string>& sets, int qd = 32) {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml", sets);
  const std::string depth = std::to_string(qd);
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: w, rw: randwrite, bs: 4KiB, iodepth: )" +
                                   depth + R"(, size: 64MiB, number_ios: 20000}
    - {name: r, rw: randread, bs: 4KiB, iodepth: )" +
                                   depth + R"(, size: 64MiB, number_ios: 20000}
)",
                               t.drive->user_bytes());
  return run_quiet(*t.drive, w);
}

const LatencyHistogram& writes_of(const RunReport& r) {
  return r.phases[0].result.latency[static_cast<int>(IoOp::kWrite)];
}

}  // namespace

TEST_CASE("the write command's firmware time caps random writes at cores / write_command_time",
          "[ftl][controller]") {
  // 1 core, 50 us per write: 20k IOPS, below the link and the flash
  // (4 dies x 64 KiB per 2 ms = 32k 4 KiB writes per second).
  const auto r = fob_qd32({"drive.controller.write_command_time=50us"});
  CHECK(iops_of(r.phases[0], IoOp::kWrite) == Approx(1e9 / 50'000.0).epsilon(0.02));
  // Reads keep the plain command_time: the link, not the core, limits them.
  const auto base = fob_qd32({});
  CHECK(iops_of(r.phases[1], IoOp::kRead) ==
        Approx(iops_of(base.phases[1], IoOp::kRead)).epsilon(0.05));
}

TEST_CASE("NAND operations take firmware time from host commands and spread write latency",
          "[ftl][controller]") {
  // Two cores at 100 us per write: the same 20k ceiling, and a program's
  // firmware work delays whichever commands are queued on its core.
  const std::vector<std::string> two_cores = {"drive.controller.cores=2",
                                              "drive.controller.write_command_time=100us"};
  auto with = [&](const std::string& s) {
    auto v = two_cores;
    v.push_back(s);
    return v;
  };
  const auto flat = fob_qd32(with("drive.controller.flash_op_time=0s"));
  const auto busy = fob_qd32(with("drive.controller.flash_op_time=5us"));
  // A heavier firmware task per operation, at a depth where its delay is
  // more than a latency bucket (3%) of the wait.
  const auto heavy = fob_qd32(with("drive.controller.flash_op_time=40us"), 8);
  // Without firmware time for the flash traffic every queued write waits
  // the same: one latency for all (the old behaviour).
  CHECK(writes_of(flat).percentile(0.99) == writes_of(flat).percentile(0.50));
  // With it, the commands that queue behind a program's firmware work wait
  // longer than the rest.
  CHECK(writes_of(busy).max() > writes_of(busy).min());
  CHECK(writes_of(heavy).percentile(0.99) > writes_of(heavy).percentile(0.50));
  // And the core's time goes to the programs: one per program unit of
  // 2 planes x 2 pages x 4 slots = 16 writes.
  const double per_write = (100.0 + 5.0 / 16.0) / 2;
  CHECK(iops_of(busy.phases[0], IoOp::kWrite) == Approx(1e6 / per_write).epsilon(0.02));
}

TEST_CASE("at QD1 the write that completes a program unit waits for the program's firmware work",
          "[ftl][controller]") {
  // 50 us per write keeps QD1 below the flash's rate: the buffer never fills.
  const auto flat = fob_qd32(
      {"drive.controller.write_command_time=50us", "drive.controller.flash_op_time=0s"}, 1);
  const auto busy = fob_qd32(
      {"drive.controller.write_command_time=50us", "drive.controller.flash_op_time=5us"}, 1);
  // One write in 16 (2 planes x 2 pages x 4 slots) fills a unit; before,
  // every QD1 write took the same time.
  CHECK(writes_of(flat).percentile(0.99) == writes_of(flat).percentile(0.50));
  CHECK(writes_of(busy).percentile(0.50) == writes_of(flat).percentile(0.50));
  CHECK(writes_of(busy).percentile(0.99) > writes_of(busy).percentile(0.50));
  CHECK(writes_of(busy).max() - writes_of(flat).max() == 5 * kUs);
  CHECK(writes_of(busy).mean() == Approx(writes_of(flat).mean() + 5000.0 / 16).epsilon(0.01));
}

TEST_CASE("a read of data still in the write buffer costs no flash read", "[ftl][controller]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.controller.flush_idle=0s"});
  Drive& d = *t.drive;
  // 8 KiB written: less than a program unit, so it stays in the buffer.
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: w, rw: write, bs: 8KiB, iodepth: 1, size: 8KiB, io_size: 8KiB}
    - {name: r, rw: read, bs: 8KiB, iodepth: 1, size: 8KiB, number_ios: 10}
)",
                               d.user_bytes());
  const auto r = run_quiet(d, w);
  const PhaseReport& rd = r.phases[1];
  CHECK(rd.nand_after.total(rd.nand_after.reads) == rd.nand_before.total(rd.nand_before.reads));
  CHECK(rd.ftl_after.read_from_controller - rd.ftl_before.read_from_controller == 20);
}

TEST_CASE("a write buffer of zero is a config error at its key, not a crash", "[ftl][controller]") {
  auto doc = ConfigDoc::load(source_path("configs/drives/test_tlc_1gb.yaml"), "drive",
                             {"drive.controller.write_buffer=0B"});
  CHECK_THROWS_AS(Drive(doc->root(), false), ConfigError);
  try {
    Drive d(doc->root(), false);
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--set drive.controller.write_buffer") &&
                             Catch::Contains("at least 4KiB"));
  }
}

// ---------------------------------------------------------------------------
// DieSet (ftl/die_set.h): the flush's round-robin search over ready dies,
// optionally skipping a second set (the dies GC pacing has starved).
TEST_CASE("DieSet searches round-robin from a die, skipping a second set") {
  ssdtwin::Rng rng(7);
  for (const std::uint32_t dies : {1u, 8u, 64u, 65u, 130u}) {
    for (int trial = 0; trial < 200; ++trial) {
      ssdtwin::DieSet ready(dies), skip(dies);
      std::vector<bool> in(dies), out(dies);
      for (std::uint32_t d = 0; d < dies; ++d) {
        in[d] = rng.below(3) != 0;
        out[d] = rng.below(4) == 0;
        ready.set(d, in[d]);
        skip.set(d, out[d]);
      }
      const auto start = static_cast<std::uint32_t>(rng.below(dies));
      const auto wanted =
          static_cast<std::uint32_t>(rng.below(dies));  // pick() accepts dies >= this
      // The naive order: (start + i) % dies, members of ready not in skip.
      std::vector<std::uint32_t> expect_seen;
      std::uint32_t expect = ssdtwin::DieSet::kNone;
      for (std::uint32_t i = 0; i < dies && expect == ssdtwin::DieSet::kNone; ++i) {
        const std::uint32_t d = (start + i) % dies;
        if (!in[d] || out[d]) continue;
        expect_seen.push_back(d);
        if (d >= wanted) expect = d;
      }
      std::vector<std::uint32_t> seen;
      const std::uint32_t got = ready.find_from(start, skip, [&](std::uint32_t d) {
        seen.push_back(d);
        return d >= wanted;
      });
      INFO("dies " << dies << " start " << start << " wanted " << wanted);
      CHECK(got == expect);
      CHECK(seen == expect_seen);
      // any_outside: whether the search has any die to offer.
      bool any = false;
      for (std::uint32_t d = 0; d < dies; ++d) any = any || (in[d] && !out[d]);
      CHECK(ready.any_outside(skip) == any);
      CHECK_FALSE(ready.any_outside(ready));
      // Without the skip set, every member is offered.
      std::uint32_t offered = 0;
      ready.find_from(start, [&](std::uint32_t d) {
        CHECK(in[d]);
        ++offered;
        return false;
      });
      CHECK(offered == static_cast<std::uint32_t>(std::count(in.begin(), in.end(), true)));
      // A cleared skip set skips nothing.
      skip.clear();
      offered = 0;
      ready.find_from(start, skip, [&](std::uint32_t) { return ++offered, false; });
      CHECK(offered == static_cast<std::uint32_t>(std::count(in.begin(), in.end(), true)));
    }
  }
}
