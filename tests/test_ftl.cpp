// FTL: mapping, write buffer, block pools, GC victim policies, and the
// invariants that must hold after any mix of writes, trims and GC.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <numeric>
#include <tuple>

#include "ftl/block_manager.h"
#include "ftl/gc_pacing.h"
#include "ftl/gc_policy.h"
#include "ftl/mapping_table.h"
#include "ftl/relocation_engine.h"
#include "ftl/slc_cache.h"
#include "ftl/write_buffer.h"
#include "host/host_link.h"
#include "test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

Geometry small_geometry() {
  Geometry g;
  g.channels = 2;
  g.dies_per_channel = 1;
  g.planes = 2;
  g.blocks_per_plane = 16;
  g.pages_per_block = 12;
  g.page_size = 16384;
  g.native_mode = CellMode::kTlc;
  return g;
}

// Allocates and "programs" whole blocks on die 0 so they become full.
std::uint32_t fill_block(BlockManager& bm, const Geometry& g) {
  std::uint32_t block = kNoBlock;
  for (std::uint32_t p = 0; p < g.pages_per_block; p += 3) {
    auto u = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);
    REQUIRE(u);
    block = u->block;
    bm.on_programmed(0, u->block, u->pages);
  }
  return block;
}

// Runs writes, overwrites, trims and idle time on the small TLC drive with
// GC policy `policy`, then checks that the forward and reverse maps and the
// per-block valid counts agree.
void check_map_invariants_with_policy(const std::string& policy) {
  auto t = make_drive(
      "configs/drives/test_tlc_1gb.yaml",
      {"drive.ftl.gc.policy=" + policy, "drive.ftl.map_cache={location: sram, size: 32KiB}"});
  Drive& d = *t.drive;
  const auto w = make_workload(R"(
workload:
  seed: 3
  phases:
    - {name: fill, rw: write, bs: 64KiB, iodepth: 16, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 120%}
    - {name: trim, rw: trim, bs: 256KiB, iodepth: 2, offset: 40%, size: 20%, io_size: 100%}
    - {name: over2, rw: randwrite, bs: 12KiB, iodepth: 8, io_size: 30%, idle_after: 10ms}
)",
                               d.user_bytes());
  const RunReport report = run_quiet(d, w);
  REQUIRE(report.phases.size() == 4);
  REQUIRE(d.ftl->stats().gc_victims > 0);
  const MappingTable& map = d.ftl->map();
  const Layout& layout = d.ftl->blocks().layout();
  std::uint64_t on_flash = 0;
  for (Lpn l = 0; l < map.logical_pages(); ++l) {
    const std::uint32_t m = map.lookup(l);
    if (!is_flash(m)) continue;
    ++on_flash;
    if (map.owner(m) != l) FAIL("page " << l << " maps to a slot owned by " << map.owner(m));
  }
  std::uint64_t valid_total = 0;
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die) {
    for (std::uint32_t b = 0; b < d.geo.blocks_per_plane; ++b) {
      const Ppa first = layout.first_slot(layout.die_block(die, b), 0);
      std::uint32_t valid = 0;
      for (std::uint32_t s = 0; s < layout.slots_per_block(); ++s) valid += map.valid(first + s);
      const BlockInfo& info = d.ftl->blocks().info(die, b);
      if (info.valid != valid)
        FAIL("die " << die << " block " << b << ": count " << info.valid << " actual " << valid);
      if (info.state == BlockState::kFree) CHECK(valid == 0);
      valid_total += valid;
    }
  }
  for (std::uint32_t tp = 0; tp < map.tpages(); ++tp)
    on_flash += is_flash(map.location(kMapOwner | tp)) ? 1 : 0;
  CHECK(valid_total == on_flash);
}

}  // namespace

TEST_CASE("a slot is valid exactly while the mapping points at it", "[ftl][mapping]") {
  MappingTable m(100, 1000);
  CHECK(m.lookup(5) == kUnmapped);
  m.place(5, 42);
  CHECK(m.valid(42));
  CHECK(m.owner(42) == 5);
  m.place(5, 43);  // overwrite: the old slot loses validity, no bitmap needed
  CHECK_FALSE(m.valid(42));
  CHECK(m.valid(43));
  m.set(5, kUnmapped);  // trim
  CHECK_FALSE(m.valid(43));
  CHECK(m.bytes() == (100 + 1000 + 1) * 4);  // one translation page covers all 100
}

TEST_CASE("loading entries ahead of a write leaves every entry as it was", "[ftl][mapping]") {
  // 3 M entries span many memory pages: first touches (stores that keep the
  // value) and later ones (prefetches), on mapped and unmapped entries.
  MappingTable m(3000000, 1000);
  for (Lpn l = 0; l < 3000000; l += 997) m.set(l, l % 1000);
  for (int pass = 0; pass < 2; ++pass)
    for (Lpn l = 0; l < 3000000; l += 331) m.prefetch_entry_for_write(l);
  for (Lpn l = 0; l < 3000000; l += 331)
    REQUIRE(m.lookup(l) == (l % 997 == 0 ? l % 1000 : kUnmapped));
  for (Lpn l = 0; l < 3000000; l += 997) REQUIRE(m.lookup(l) == l % 1000);
}

TEST_CASE("buffer references and flash addresses do not overlap", "[ftl][mapping]") {
  CHECK(is_flash(0));
  CHECK(is_flash(kBufferBase - 1));
  CHECK(is_buffered(kBufferBase));
  CHECK_FALSE(is_buffered(kUnmapped));
  CHECK_FALSE(is_flash(kUnmapped));
}

TEST_CASE("the layout maps slots to die, block and page and back", "[ftl][mapping]") {
  const Geometry g = small_geometry();
  const Layout l(g);
  const std::uint32_t db = l.die_block(1, 7);
  const Ppa p = l.first_slot(db, 5) + 3;
  CHECK(l.die_of(p) == 1);
  CHECK(l.block_of(p) == 7);
  CHECK(l.page_of(p) == 5);
  CHECK(l.slots_per_page() == g.planes * g.page_size / kSectorBytes);
}

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

TEST_CASE("host writes never take the blocks reserved for GC", "[ftl][blocks]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 3);
  std::uint32_t units = 0;
  while (bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc)) ++units;
  // Every block but the reserved three was opened; each holds pages/3 units.
  CHECK(units == (g.blocks_per_plane - 3) * (g.pages_per_block / 3));
  CHECK(bm.free_blocks(0) == 3);
  CHECK(bm.allocate_unit(0, Stream::kGc, 3, CellMode::kTlc));
  CHECK(bm.free_blocks(0) == 2);
  CHECK(bm.free_blocks(1) == g.blocks_per_plane);  // other dies untouched
}

TEST_CASE("a block is full only when its last page is programmed", "[ftl][blocks]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  auto u = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);
  REQUIRE(u);
  CHECK(bm.info(0, u->block).state == BlockState::kOpen);
  bm.on_programmed(0, u->block, 3);
  for (std::uint32_t p = 3; p < g.pages_per_block; p += 3) {
    auto v = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);
    REQUIRE(v->block == u->block);
    CHECK(v->page == p);
    CHECK(bm.info(0, u->block).state == BlockState::kOpen);
    bm.on_programmed(0, v->block, 3);
  }
  CHECK(bm.info(0, u->block).state == BlockState::kFull);
}

TEST_CASE("erased blocks return to the pool and count a P/E cycle", "[ftl][blocks]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t b = fill_block(bm, g);
  const std::uint32_t free_before = bm.free_blocks(0);
  bm.set_victim(0, b);
  bm.on_erased(0, b);
  CHECK(bm.free_blocks(0) == free_before + 1);
  CHECK(bm.info(0, b).erase_count == 1);
  CHECK(bm.info(0, b).state == BlockState::kFree);
  CHECK(bm.wear().max == 1);
  CHECK(bm.wear().min == 0);
}

TEST_CASE("greedy GC picks the full block with the fewest valid pages", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t a = fill_block(bm, g);
  const std::uint32_t b = fill_block(bm, g);
  const std::uint32_t c = fill_block(bm, g);
  auto open = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);  // open, not a candidate
  bm.info(0, a).valid = 50;
  bm.info(0, b).valid = 10;
  bm.info(0, c).valid = 30;
  bm.info(0, open->block).valid = 0;
  Rng rng(1);
  auto greedy = make_gc_policy("greedy");
  CHECK(greedy->select_victim(bm, 0, rng) == b);
  bm.set_victim(0, b);  // being collected: not picked again
  CHECK(greedy->select_victim(bm, 0, rng) == c);
}

TEST_CASE("greedy GC picks nothing when no full block has an invalid page", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t a = fill_block(bm, g);
  bm.info(0, a).valid = g.pages_per_block * g.slots_per_die_page();
  Rng rng(1);
  CHECK(make_gc_policy("greedy")->select_victim(bm, 0, rng) == kNoBlock);
}

TEST_CASE("FIFO GC picks the block filled first", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t first = fill_block(bm, g);
  const std::uint32_t second = fill_block(bm, g);
  bm.info(0, first).valid = 40;
  bm.info(0, second).valid = 1;
  Rng rng(1);
  CHECK(make_gc_policy("fifo")->select_victim(bm, 0, rng) == first);
}

TEST_CASE("GC policies are listed and chosen by name", "[ftl][gc]") {
  const auto names = gc_policy_names();
  CHECK(std::find(names.begin(), names.end(), "greedy") != names.end());
  CHECK(std::find(names.begin(), names.end(), "fifo") != names.end());
  CHECK_THROWS(make_gc_policy("no-such-policy"));
}

TEST_CASE("valid counts and both maps agree after writes and trims and GC", "[ftl][invariants]") {
  check_map_invariants_with_policy("fifo");
  check_map_invariants_with_policy("greedy");
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

double iops_of(const PhaseReport& p, IoOp op) {
  return static_cast<double>(p.result.ios[static_cast<int>(op)]) / seconds_of(p);
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

// ---- SLC write cache and folding (configs/drives/test_tlc_slc.yaml).

#include "ftl/slc_cache.h"
#include "ftl/slc_policy.h"
#include "sim/fill_curve.h"

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
    "without idle time, reclaim reuses SLC blocks a second pass overwrote; idle_fold never "
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

// ---- Mapping-table cache (SRAM / DRAM / HMB) on the small TLC drive.

namespace {

const char* kMapFill = R"(
workload:
  seed: 5
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%, idle_after: 20ms}
    - {name: reads, rw: randread, bs: 4KiB, iodepth: 1, size: SPAN, ramp_time: 20ms, number_ios: 2000}
)";

std::string with_span(const std::string& span) {
  std::string w = kMapFill;
  w.replace(w.find("SPAN"), 4, span);
  return w;
}

std::uint64_t nand_reads(const PhaseReport& p) {
  return p.nand_after.total(p.nand_after.reads) - p.nand_before.total(p.nand_before.reads);
}

}  // namespace

TEST_CASE("a map-cache hit costs no flash read of the map", "[ftl][map]") {
  // 64 KiB of SRAM: 16 translation pages, 64 MiB of logical space.
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                      {"drive.ftl.map_cache={location: sram, size: 64KiB}"});
  Drive& d = *t.drive;
  const auto w = make_workload(with_span("32MiB"), d.user_bytes());
  const auto r = run_quiet(d, w);
  const PhaseReport& p = r.phases[1];
  CHECK(p.ftl_after.map_reads == p.ftl_before.map_reads);
  CHECK(p.ftl_after.map_misses == p.ftl_before.map_misses);
  CHECK(nand_reads(p) == p.result.ios[static_cast<int>(IoOp::kRead)]);
}

TEST_CASE("a map-cache miss costs exactly one extra translation-page read", "[ftl][map]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                      {"drive.ftl.map_cache={location: sram, size: 64KiB}"});
  Drive& d = *t.drive;
  const auto w = make_workload(with_span("100%"), d.user_bytes());
  const auto r = run_quiet(d, w);
  const PhaseReport& p = r.phases[1];
  const std::uint64_t misses = p.ftl_after.map_misses - p.ftl_before.map_misses;
  const std::uint64_t map_reads = p.ftl_after.map_reads - p.ftl_before.map_reads;
  const std::uint64_t from_memory = p.ftl_after.map_memory_loads - p.ftl_before.map_memory_loads;
  CHECK(misses > 1000);  // 16 of 239 translation pages fit: most reads miss
  // Each miss reads its translation page from flash, unless that page is
  // still in controller memory (being written back).
  CHECK(map_reads + from_memory == misses);
  CHECK(map_reads > 0.9 * misses);
  CHECK(nand_reads(p) == p.result.ios[static_cast<int>(IoOp::kRead)] + map_reads);
}

TEST_CASE(
    "after fast preconditioning a map-cache miss reads its translation page from flash, as after a "
    "timed fill",
    "[ftl][map][fast]") {
  // Fast writes generate no map traffic; the translation pages that map
  // what they placed go to flash before the first timed phase. Before they
  // did, every miss was answered from controller memory: a DRAMless drive
  // read as if its whole map were cached.
  // Share of the map-cache misses of 4 KiB random reads that read their
  // translation page from flash, after the `preconditioning` phases.
  auto misses_from_flash = [](const std::string& preconditioning) {
    auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                        {"drive.ftl.map_cache={location: sram, size: 64KiB}"});
    const auto w =
        make_workload("workload:\n  phases:\n" + preconditioning +
                          "    - {name: rr, rw: randread, bs: 4KiB, iodepth: 8, runtime: 500ms}\n",
                      t.drive->user_bytes());
    const auto r = run_quiet(*t.drive, w);
    const PhaseReport& p = r.phases.back();
    const double misses = static_cast<double>(p.ftl_after.map_misses - p.ftl_before.map_misses);
    REQUIRE(misses > 1000);
    return static_cast<double>(p.ftl_after.map_reads - p.ftl_before.map_reads) / misses;
  };
  const std::string fill =
      "    - {name: fill, precondition: true, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%";
  const double timed = misses_from_flash(fill + "}\n");
  const double fast = misses_from_flash(fill + ", fast: true}\n");
  // Counted writes refuse translation pages on flash: an exact fast fill
  // followed by a steady-state one still runs, the map placed after both.
  const double steady = misses_from_flash(fill +
                                          ", fast: true}\n    - {name: steady, rw: randwrite, bs: "
                                          "4KiB, io_size: 100%, fast: steady}\n");
  UNSCOPED_INFO("share of misses read from flash: timed fill " << timed << ", fast " << fast
                                                               << ", fast then steady " << steady);
  CHECK(timed > 0.9);
  CHECK(fast > 0.9);
  CHECK(steady > 0.9);
}

TEST_CASE("lookup latency follows the map cache's location", "[ftl][map]") {
  auto mean_read_latency = [](const std::string& location) {
    auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                        {"drive.ftl.map_cache={location: " + location + ", size: 64KiB}",
                         "drive.nand.timing.tlc.tR=57us"});
    const auto w = make_workload(with_span("16MiB"), t.drive->user_bytes());
    const auto r = run_quiet(*t.drive, w);
    return std::make_pair(r.phases[1].result.latency[static_cast<int>(IoOp::kRead)].mean(),
                          t.drive->ftl_cfg.map.access_time);
  };
  const auto sram = mean_read_latency("sram");
  const auto dram = mean_read_latency("dram");
  const auto hmb = mean_read_latency("hmb");
  CHECK(sram.second < dram.second);
  CHECK(dram.second < hmb.second);
  // Every read is a hit here: the only difference is one lookup.
  CHECK(dram.first - sram.first == Approx(double(dram.second - sram.second)).margin(1.0));
  CHECK(hmb.first - sram.first == Approx(double(hmb.second - sram.second)).margin(1.0));
}

TEST_CASE("an HMB lookup is a PCIe round trip and needs an NVMe drive", "[ftl][map]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                      {"drive.ftl.map_cache={location: hmb, size: 1MiB}"});
  const LinkParams& link = t.drive->hif_cfg.link;
  const Tick request = transfer_time(link.packet_overhead, link.raw_bytes_per_s);
  const Tick cache_line = HostLink(link).duration(64);
  CHECK(t.drive->ftl_cfg.map.access_time == request + cache_line + 600);  // + host memory
  auto doc = ConfigDoc::load(source_path("configs/drives/test_mlc_sata.yaml"), "drive",
                             {"drive.ftl.map_cache={location: hmb, size: 1MiB}"});
  CHECK_THROWS_WITH(Drive(doc->root(), false), Catch::Contains("drive.ftl.map_cache.location"));
}

TEST_CASE("a DRAM cache holding the whole table never misses", "[ftl][map]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                      {"drive.ftl.map_cache={location: dram, size: 1MiB}"});
  Drive& d = *t.drive;
  REQUIRE(d.ftl->map().logical_pages() * 4 <= 1024 * 1024);
  const auto w = make_workload(with_span("100%"), d.user_bytes());
  const auto r = run_quiet(d, w);
  CHECK(d.ftl->stats().map_misses == 0);
  CHECK(d.ftl->stats().map_reads == 0);
  CHECK(d.ftl->stats().map_writebacks == 0);
}

TEST_CASE("evicted dirty map entries are written back and read back correctly",
          "[ftl][map][verify]") {
  for (const std::string segment : {"4KiB", "1KiB"}) {
    auto t =
        make_drive("configs/drives/test_tlc_1gb.yaml",
                   {"drive.ftl.map_cache={location: sram, size: 16KiB, segment: " + segment + "}"},
                   /*verify=*/true);
    Drive& d = *t.drive;
    auto doc = ConfigDoc::load(source_path("configs/workloads/integrity_mix.yaml"), "workload", {});
    const WorkloadSpec w = WorkloadSpec::from_config(doc->root(), d.user_bytes());
    run_quiet(d, w);
    INFO("segment " << segment);
    const FtlStats& s = d.ftl->stats();
    CHECK(s.verify_errors == 0);
    CHECK(s.map_writebacks > 0);
    CHECK(s.map_reads > 0);
    if (segment != "4KiB") CHECK(s.map_merge_reads > 0);
    // Translation pages live on flash like data and GC moved them too.
    const MappingTable& map = d.ftl->map();
    std::uint32_t on_flash = 0;
    for (std::uint32_t tp = 0; tp < map.tpages(); ++tp) {
      const std::uint32_t where = map.location(kMapOwner | tp);
      if (!is_flash(where)) continue;
      ++on_flash;
      CHECK(map.owner(where) == (kMapOwner | tp));
    }
    CHECK(on_flash > 0);
  }
}

// ---------------------------------------------------------------------------
// Cost-benefit and random GC victim policies (ftl/impl/gc_cost_benefit.cpp,
// ftl/impl/gc_random.cpp).
#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

// Rosenblum and Ousterhout's benefit/cost with u = valid / capacity.
double cost_benefit_score(std::uint32_t valid, std::uint64_t capacity, std::uint32_t age) {
  const double u = static_cast<double>(valid) / static_cast<double>(capacity);
  return (1 - u) * age / (1 + u);
}

}  // namespace

TEST_CASE("cost-benefit GC prefers an old block over a slightly emptier young one", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t old_block = fill_block(bm, g);  // closed first
  const std::uint32_t mid1 = fill_block(bm, g);
  const std::uint32_t mid2 = fill_block(bm, g);
  const std::uint32_t young = fill_block(bm, g);                      // closed last
  auto open = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);  // open: not a candidate
  REQUIRE(open);
  const std::uint64_t cap = bm.capacity_slots(bm.info(0, old_block));
  REQUIRE(cap == 96u);                                       // 12 TLC pages x 2 planes x 4 slots
  bm.info(0, mid1).valid = static_cast<std::uint32_t>(cap);  // no invalid page
  bm.info(0, mid2).valid = static_cast<std::uint32_t>(cap);
  bm.info(0, old_block).valid = 48;  // u = 0.5
  bm.info(0, young).valid = 40;      // u = 0.42: emptier
  bm.info(0, open->block).valid = 0;
  // Ages: the newest candidate (young) has age 1 and the oldest has age 4
  // (closed_seq 1 against a maximum of 4).
  const std::uint32_t newest = bm.info(0, young).closed_seq;
  const std::uint32_t age_old = newest + 1 - bm.info(0, old_block).closed_seq;
  const std::uint32_t age_young = newest + 1 - bm.info(0, young).closed_seq;
  REQUIRE(age_old == 4u);
  REQUIRE(age_young == 1u);
  // (1 - 0.5) * 4 / 1.5 = 1.33 against (1 - 40/96) * 1 / (1 + 40/96) = 0.41.
  const double s_old = cost_benefit_score(48, cap, age_old);
  const double s_young = cost_benefit_score(40, cap, age_young);
  REQUIRE(s_old > s_young);
  Rng rng(1);
  auto policy = make_gc_policy("cost_benefit");
  CHECK(policy->select_victim(bm, 0, rng) == old_block);
  CHECK(make_gc_policy("greedy")->select_victim(bm, 0, rng) == young);  // for contrast

  SECTION("with equal ages the emptier block wins") {
    bm.info(0, young).closed_seq = bm.info(0, old_block).closed_seq;
    bm.info(0, mid1).closed_seq = bm.info(0, old_block).closed_seq;
    bm.info(0, mid2).closed_seq = bm.info(0, old_block).closed_seq;
    // All ages are now 1: 0.5 / 1.5 = 0.33 against (56/96) / (136/96) = 0.41.
    REQUIRE(cost_benefit_score(40, cap, 1) > cost_benefit_score(48, cap, 1));
    CHECK(policy->select_victim(bm, 0, rng) == young);
  }
  SECTION("exact ties go to the lowest block index") {
    bm.info(0, young).closed_seq = bm.info(0, old_block).closed_seq;
    bm.info(0, young).valid = 48;
    CHECK(policy->select_victim(bm, 0, rng) == std::min(old_block, young));
  }
  SECTION("a block being collected is not picked again") {
    bm.set_victim(0, old_block);
    CHECK(policy->select_victim(bm, 0, rng) == young);
  }
  SECTION("no block with an invalid page means no victim") {
    bm.info(0, old_block).valid = static_cast<std::uint32_t>(cap);
    bm.info(0, young).valid = static_cast<std::uint32_t>(cap);
    CHECK(policy->select_victim(bm, 0, rng) == kNoBlock);
  }
}

TEST_CASE("cost-benefit GC picks nothing without full blocks", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  auto open = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);
  REQUIRE(open);
  Rng rng(1);
  CHECK(make_gc_policy("cost_benefit")->select_victim(bm, 0, rng) == kNoBlock);
  CHECK(make_gc_policy("random")->select_victim(bm, 0, rng) == kNoBlock);
}

TEST_CASE("random GC picks only candidates with invalid pages and each of them", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  const std::uint32_t a = fill_block(bm, g);
  const std::uint32_t full = fill_block(bm, g);
  const std::uint32_t c = fill_block(bm, g);
  const std::uint32_t d = fill_block(bm, g);
  auto open = bm.allocate_unit(0, Stream::kHost, 3, CellMode::kTlc);
  REQUIRE(open);
  const auto cap = static_cast<std::uint32_t>(bm.capacity_slots(bm.info(0, a)));
  bm.info(0, a).valid = 10;
  bm.info(0, full).valid = cap;  // nothing to reclaim
  bm.info(0, c).valid = cap - 1;
  bm.info(0, d).valid = 0;
  bm.info(0, open->block).valid = 0;  // open: not a candidate
  auto policy = make_gc_policy("random");
  Rng rng(7);
  std::map<std::uint32_t, int> picks;
  for (int i = 0; i < 300; ++i) ++picks[policy->select_victim(bm, 0, rng)];
  CHECK(picks.size() == 3u);
  CHECK(picks.count(a) == 1u);
  CHECK(picks.count(c) == 1u);
  CHECK(picks.count(d) == 1u);
  CHECK(picks.count(full) == 0u);
  CHECK(picks.count(open->block) == 0u);
  CHECK(picks.count(kNoBlock) == 0u);
  // The other die has no full block.
  CHECK(policy->select_victim(bm, 1, rng) == kNoBlock);
}

TEST_CASE("random GC is deterministic for a given seed", "[ftl][gc]") {
  const Geometry g = small_geometry();
  BlockManager bm(g, 2);
  for (int i = 0; i < 8; ++i) fill_block(bm, g);
  const auto draws = [&](std::uint64_t seed) {
    auto policy = make_gc_policy("random");
    Rng rng(seed);
    std::vector<std::uint32_t> out;
    for (int i = 0; i < 64; ++i) out.push_back(policy->select_victim(bm, 0, rng));
    return out;
  };
  CHECK(draws(11) == draws(11));
  CHECK(draws(11) != draws(12));
}

TEST_CASE("cost-benefit and random GC are listed by name", "[ftl][gc]") {
  const auto names = gc_policy_names();
  CHECK(std::find(names.begin(), names.end(), "cost_benefit") != names.end());
  CHECK(std::find(names.begin(), names.end(), "random") != names.end());
  CHECK(make_gc_policy("cost_benefit") != nullptr);
  CHECK(make_gc_policy("random") != nullptr);
}

TEST_CASE("maps and valid counts agree after a mixed run with cost-benefit GC",
          "[ftl][gc][invariants]") {
  check_map_invariants_with_policy("cost_benefit");
}

TEST_CASE("maps and valid counts agree after a mixed run with random GC", "[ftl][gc][invariants]") {
  check_map_invariants_with_policy("random");
}

// ---- Background GC in host idle time.

TEST_CASE("background GC in idle time collects up to its free-block target",
          "[ftl][gc][background]") {
  const char* workload = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 60%, idle_after: 3s}
)";
  auto min_free = [](const Drive& d) {
    std::uint32_t m = UINT32_MAX;
    for (std::uint32_t die = 0; die < d.geo.dies(); ++die)
      m = std::min(m, d.ftl->blocks().free_blocks(die));
    return m;
  };
  // Without background GC, idle time leaves the dies near the trigger.
  auto plain = make_drive("configs/drives/test_tlc_1gb.yaml");
  run_quiet(*plain.drive, make_workload(workload, plain.drive->user_bytes()));
  CHECK(min_free(*plain.drive) <= plain.drive->ftl_cfg.gc_trigger_free_blocks);

  auto bg = make_drive("configs/drives/test_tlc_1gb.yaml",
                       {"drive.ftl.gc.background={idle_after: 50ms, free_blocks: 10}"});
  const auto r = run_quiet(*bg.drive, make_workload(workload, bg.drive->user_bytes()));
  CHECK(bg.drive->ftl_cfg.gc_background_free_blocks == 10);
  CHECK(min_free(*bg.drive) >= 10);
  // The collection happened in the idle time after the writes.
  const PhaseReport& over = r.phases[1];
  CHECK(over.ftl_after.gc_victims > plain.drive->ftl->stats().gc_victims);
}

// ---- Fast preconditioning.

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

// ---- RAIN parity, static wear levelling, and TRIM of large ranges.

namespace {

// Runs `yaml` on the small TLC drive with `sets` and every read checked
// against the latest write; the drive stays in `t` for inspection.
RunReport run_verified(TestDrive& t, const std::vector<std::string>& sets, const char* yaml) {
  t = make_drive("configs/drives/test_tlc_1gb.yaml", sets, true);
  RunReport r = run_quiet(*t.drive, make_workload(yaml, t.drive->user_bytes()));
  CHECK(t.drive->ftl->stats().verify_errors == 0);
  return r;
}

}  // namespace

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

namespace {

// Fill, overwrite once, then 3 s of 4 KiB QD32 random writes on the small
// drive with `sets`: write IOPS per 20 ms of the last phase, summarised.
struct SteadyWrites {
  double min = 0;     // fewest writes in a 20 ms bin
  double min100 = 0;  // fewest in 100 ms (5 bins)
  double cv = 0;      // coefficient of variation of the bins
  double mean = 0;    // writes per bin
};

SteadyWrites steady_writes(const std::vector<std::string>& sets) {
  const char* workload = R"(
workload:
  timeseries: {interval: 20ms}
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: over, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: steady, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 3s}
)";
  TestDrive t;
  const auto r = run_verified(t, sets, workload);
  const PhaseReport& steady = r.phases[2];
  CHECK(steady.ftl_after.gc_victims > steady.ftl_before.gc_victims + 10);
  // Host writes never take the reserve; GC's own writes may dip one into it.
  CHECK(t.drive->ftl->min_free_blocks_seen() + 1 >= t.drive->ftl_cfg.gc_reserved_blocks);
  std::vector<double> ios;
  const auto& bins = steady.result.series->bins();
  for (std::size_t i = 0; i + 1 < bins.size(); ++i)
    ios.push_back(static_cast<double>(bins[i].ios[static_cast<int>(IoOp::kWrite)]));
  SteadyWrites out;
  for (double x : ios) out.mean += x / ios.size();
  double var = 0;
  for (double x : ios) var += (x - out.mean) * (x - out.mean) / ios.size();
  out.cv = std::sqrt(var) / out.mean;
  out.min = *std::min_element(ios.begin(), ios.end());
  out.min100 = out.mean * ios.size();
  for (std::size_t i = 0; i + 5 <= ios.size(); ++i)
    out.min100 = std::min(out.min100, std::accumulate(ios.begin() + i, ios.begin() + i + 5, 0.0));
  return out;
}

}  // namespace

TEST_CASE(
    "the relocation engine starts a victim, paces the host unit by unit, and frees the victim at "
    "the reserve",
    "[ftl][gc][engine]") {
  // The decisions the fast executors follow (and the timed flush asks
  // through host_waits), step by step on die 0 of the 1 GB drive (no SLC
  // cache, no RAIN; trigger 6 erased blocks, reserve 2).
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
  FtlCore core(t.drive->engine, t.drive->nand, t.drive->ftl_cfg, false);
  SlcCache slc(core);
  RelocationEngine eng(core, slc, make_gc_policy("greedy"));
  using Step = RelocationEngine::HostStep;
  const std::uint32_t unit = core.unit_slots;
  REQUIRE_FALSE(slc.enabled());
  CHECK(eng.before_host(0, unit) == Step::kProgram);  // erased blocks enough: no collection
  CHECK_FALSE(eng.collecting(0));

  // Host units until the die is short of erased blocks; every full block
  // holds only valid data but one, half valid (the greedy victim).
  std::vector<std::uint32_t> full;
  while (!core.pacing.short_of_blocks(0)) {
    const auto u = core.blocks.allocate_unit(0, Stream::kHost, core.pages_per_program, core.native);
    REQUIRE(u);
    core.blocks.on_programmed(0, u->block, u->pages);
    if (core.blocks.info(0, u->block).state == BlockState::kFull) full.push_back(u->block);
  }
  REQUIRE(full.size() >= 2);
  for (std::uint32_t b : full) {
    BlockInfo& info = core.blocks.info(0, b);
    info.valid = core.blocks.capacity_slots(info);
  }
  const std::uint32_t half = full[1];
  BlockInfo& hv = core.blocks.info(0, half);
  hv.valid = core.blocks.capacity_slots(hv) / 2;

  CHECK_FALSE(eng.host_waits(0, unit));            // short, but nothing collected yet
  CHECK(eng.before_host(0, unit) == Step::kEarn);  // starts the victim; no credit yet
  REQUIRE(eng.collecting(0));
  CHECK(eng.victim(0).block == half);
  CHECK(eng.victim(0).dest == Stream::kGc);
  CHECK(eng.victim(0).credit_per_slot == Approx(1.0));  // invalid / valid
  CHECK(core.stats.gc_victims == 1);
  CHECK(eng.host_waits(0, unit));
  CHECK(eng.moves_to_cover(0, unit) == unit);

  // A unit's worth of moves earns the host one unit, which it spends.
  eng.moved(0, unit);
  CHECK(core.stats.gc_moved_slots == unit);
  CHECK_FALSE(eng.host_waits(0, unit));
  CHECK(eng.before_host(0, unit) == Step::kProgram);
  CHECK(eng.host_waits(0, unit));

  // At the reserve, credit alone does not let the host in: the victim's
  // block must be freed first.
  while (core.blocks.free_blocks(0) > core.cfg.gc_reserved_blocks) {
    const auto u = core.blocks.allocate_unit(0, Stream::kGc, core.pages_per_program, core.native);
    REQUIRE(u);
    core.blocks.on_programmed(0, u->block, u->pages);
  }
  eng.moved(0, unit);
  CHECK(eng.before_host(0, unit) == Step::kFinishVictim);

  const std::uint32_t free_before = core.blocks.free_blocks(0);
  CHECK(eng.read_out(0) == half);
  CHECK_FALSE(eng.collecting(0));
  CHECK(eng.victim(0).credit_per_slot == Approx(1.0));  // kept for pages still buffered from it
  hv.valid = 0;
  eng.erased(0, half);
  CHECK(core.blocks.free_blocks(0) == free_before + 1);
  CHECK(core.stats.gc_erases == 1);
}

TEST_CASE("proportional GC pacing keeps host writes flowing while GC runs", "[ftl][gc][pacing]") {
  const SteadyWrites paced = steady_writes({"drive.ftl.gc.pacing=proportional"});
  const SteadyWrites free = steady_writes({"drive.ftl.gc.pacing=none"});
  UNSCOPED_INFO("paced min " << paced.min << " cv " << paced.cv << "; none min " << free.min
                             << " cv " << free.cv);
  // Paced, the host gets the space GC frees as it frees it: no interval
  // without writes, and far steadier than writing until the reserve.
  CHECK(paced.min > 0);
  CHECK(paced.cv < 0.5 * free.cv);
}

TEST_CASE("with RAIN, a moved slot earns the host only the data its victim frees net of parity",
          "[ftl][gc][pacing]") {
  FtlConfig cfg;
  cfg.rain_stripe = 16;
  Geometry geo;
  geo.channels = 1;
  geo.dies_per_channel = 1;
  geo.planes = 1;
  geo.blocks_per_plane = 8;
  geo.pages_per_block = 64;
  geo.page_size = 16 * 1024;
  geo.native_mode = CellMode::kMlc;
  BlockManager blocks(geo, 2);
  GcPacing pacing(cfg, blocks, 4);
  BlockInfo victim = blocks.info(0, 0);
  victim.mode = CellMode::kMlc;
  const double cap = static_cast<double>(blocks.capacity_slots(victim));  // 256 slots
  victim.valid = 120;
  // Each data slot takes 16/15 slots of flash: the block takes cap * 15/16
  // slots of data again, of which 120 go to the moved pages.
  CHECK(pacing.start(0, victim) == Approx((cap * 15 / 16 - 120) / 120));
  cfg.rain_stripe = 0;
  CHECK(pacing.start(0, victim) == Approx((cap - 120) / 120));
}

namespace {

// The M500 scaled to 8 dies (one per channel) and 30 GB, its spare ratio kept.
const std::vector<std::string> kM500Small = {
    "drive.nand.dies_per_channel=1", "drive.nand.blocks_per_plane=262", "drive.user_capacity=30GB"};

}  // namespace

TEST_CASE("with RAIN, sustained random writes never stall a whole second", "[ftl][gc][pacing]") {
  // The M500 (RAIN 1 in 16) scaled to 8 dies and 30 GB. Pacing that
  // credited whole blocks let the host outrun GC by the parity share until
  // every die was down to its reserve; then all dies waited together for a
  // block: seconds at 0 IOPS and writes of 3.8 s.
  auto t = make_drive("configs/drives/crucial_m500_480gb.yaml", kM500Small);
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: pass1, rw: write, bs: 128KiB, io_size: 100%, fast: true}
    - {name: pass2, rw: write, bs: 128KiB, io_size: 100%, fast: true}
    - {name: randwrite, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 120s}
)",
                               t.drive->user_bytes());
  const auto r = run_quiet(*t.drive, w);
  const PhaseReport& p = r.phases[2];
  std::vector<double> iops;
  for (const auto& b : p.result.series->bins()) iops.push_back(static_cast<double>(b.ios[1]));
  REQUIRE(iops.size() >= 100);
  std::vector<double> sorted = iops;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  CHECK(sorted.front() >= 0.01 * median);
  CHECK(p.result.latency[static_cast<int>(IoOp::kWrite)].max() < 200 * kMs);
}

namespace {

// The M500 scaled to 8 dies and 30 GB, brought to steady state by two
// drive writes of 4 KiB random writes (fast path), then the same at QD32
// timed, under GC: host write IOPS, GC moves per host write and the
// per-second series, for the steady-state cost knobs (issue 29).
struct GcSteady {
  double iops = 0;
  double moves_per_write = 0;
  std::vector<std::uint64_t> series;
  Tick max_latency = 0;
  double mean_latency = 0;
  double writes = 0;
  NandStats nand;  // the measured phase's flash work
};

// `without_move_time` reads the M500 config with its gc_move_time line taken
// out, as a config written before the knob existed would read.
GcSteady m500_small_steady(std::vector<std::string> sets, bool without_move_time = false) {
  sets.insert(sets.end(), kM500Small.begin(), kM500Small.end());
  const std::string path = "configs/drives/crucial_m500_480gb.yaml";
  TestDrive t;
  if (without_move_time) {
    std::ifstream in(source_path(path));
    std::string yaml, line;
    bool dropped = false;
    while (std::getline(in, line)) {
      if (line.find("gc_move_time:") != std::string::npos) {
        dropped = true;
        continue;
      }
      yaml += line + "\n";
    }
    REQUIRE(dropped);
    t.doc = ConfigDoc::parse(yaml, path, "drive", sets);
    t.drive = std::make_unique<Drive>(t.doc->root(), false);
    t.doc->check_unused();
  } else {
    t = make_drive(path, sets);
  }
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, io_size: 100%, fast: true}
    - {name: steady, rw: randwrite, bs: 4KiB, io_size: 200%, fast: true}
    - {name: settle, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 5s}
    - {name: randwrite, rw: randwrite, bs: 4KiB, iodepth: 32, runtime: 10s}
)",
                               t.drive->user_bytes());
  const auto r = run_quiet(*t.drive, w);
  const PhaseReport& p = r.phases[3];
  GcSteady g;
  const auto writes = static_cast<double>(p.result.ios[static_cast<int>(IoOp::kWrite)]);
  g.iops = writes / seconds_of(p);
  g.moves_per_write =
      static_cast<double>(p.ftl_after.gc_moved_slots - p.ftl_before.gc_moved_slots) / writes;
  for (const auto& b : p.result.series->bins()) g.series.push_back(b.ios[1]);
  g.max_latency = p.result.latency[static_cast<int>(IoOp::kWrite)].max();
  g.mean_latency = p.result.latency[static_cast<int>(IoOp::kWrite)].mean();
  g.writes = writes;
  const NandStats& a = p.nand_before;
  const NandStats& b = p.nand_after;
  for (int m = 0; m < 5; ++m) {
    g.nand.reads[m] = b.reads[m] - a.reads[m];
    g.nand.page_reads[m] = b.page_reads[m] - a.page_reads[m];
    g.nand.programs[m] = b.programs[m] - a.programs[m];
    g.nand.page_programs[m] = b.page_programs[m] - a.page_programs[m];
    g.nand.erases[m] = b.erases[m] - a.erases[m];
  }
  g.nand.bus_bytes = b.bus_bytes - a.bus_bytes;
  g.nand.die_busy = b.die_busy - a.die_busy;
  return g;
}

}  // namespace

TEST_CASE("the fewest free blocks seen is a real count in a phase that allocates no block",
          "[ftl][report]") {
  // A read-only phase on a fresh drive programs nothing; the figure once
  // leaked its "unset" value, 4294967295, into metrics.csv.
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml");
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: reads, rw: randread, bs: 4KiB, iodepth: 4, runtime: 10ms}
)",
                               t.drive->user_bytes());
  const auto r = run_quiet(*t.drive, w);
  const BlockManager& b = t.drive->ftl->blocks();
  std::uint32_t fewest = b.free_blocks(0);
  for (std::uint32_t d = 1; d < t.drive->geo.dies(); ++d)
    fewest = std::min(fewest, b.free_blocks(d));
  CHECK(r.phases[0].result.ios[static_cast<int>(IoOp::kRead)] > 0);
  CHECK(r.phases[0].min_free_blocks == fewest);
  CHECK(fewest > 0);
  CHECK(fewest <= t.drive->geo.blocks_per_plane);
}

TEST_CASE("firmware time per GC move at zero leaves results as they were",
          "[ftl][gc][costs][slow]") {
  const GcSteady base = m500_small_steady({}, true);
  const GcSteady zero = m500_small_steady({"drive.controller.gc_move_time=0us"});
  CHECK(base.moves_per_write > 1);  // GC is under way
  CHECK(zero.series == base.series);
  CHECK(zero.max_latency == base.max_latency);
  CHECK(zero.mean_latency == base.mean_latency);
}

TEST_CASE("GC moves times the firmware time per move, over the cores, bound the host write rate",
          "[ftl][gc][costs][slow]") {
  // Flash operations free of firmware time, so that only commands and moves
  // take the two cores: each host write then costs its command
  // (write_command_time + page_time) plus its share of the moves.
  const std::vector<std::string> plain = {"drive.controller.flash_op_time=0us"};
  const GcSteady free = m500_small_steady(plain);
  auto with = [&](const std::string& move) {
    auto v = plain;
    v.push_back("drive.controller.gc_move_time=" + move);
    return m500_small_steady(v);
  };
  const GcSteady slow = with("200us");
  const double per_write_us = 25.0 + 0.1 + slow.moves_per_write * 200.0;
  UNSCOPED_INFO("free " << free.iops << " IOPS at " << free.moves_per_write
                        << " moves/write; 200 us " << slow.iops << " IOPS at "
                        << slow.moves_per_write << " moves/write, bound " << 2e6 / per_write_us);
  // Far below what the flash sustains, the cores set the rate.
  CHECK(slow.iops < 0.6 * free.iops);
  CHECK(slow.iops == Approx(2e6 / per_write_us).epsilon(0.02));
  // Twice the time per move: the bound moves with it.
  const GcSteady slower = with("400us");
  CHECK(slower.iops == Approx(2e6 / (25.1 + slower.moves_per_write * 400.0)).epsilon(0.02));
  // Where the flash is slower than the cores the knob changes nothing but
  // the firmware's share: the rate stays at or under both bounds.
  const GcSteady light = with("10us");
  CHECK(light.iops <= 1.03 * 2e6 / (25.1 + light.moves_per_write * 10.0));
  CHECK(light.iops == Approx(free.iops).epsilon(0.05));
}

TEST_CASE(
    "whole-page GC reads carry every plane page holding a valid slot, the moves stay per slot",
    "[ftl][gc][costs][slow]") {
  // The M500 scaled down: 16 KiB pages, 2 planes, the whole map in DRAM, so
  // in a random-write phase every flash read is a GC read.
  const GcSteady part = m500_small_steady({"drive.ftl.gc.whole_page_reads=false"});
  const GcSteady whole = m500_small_steady({"drive.ftl.gc.whole_page_reads=true"});
  const double page = 16384, planes = 2;
  auto read_bytes = [&](const GcSteady& g) {
    return static_cast<double>(g.nand.bus_bytes) -
           static_cast<double>(g.nand.total(g.nand.page_programs)) * page;
  };
  const double part_moves = part.moves_per_write * part.writes;
  UNSCOPED_INFO("partial: " << read_bytes(part) << " read bytes, " << part_moves << " moves, "
                            << part.nand.total(part.nand.reads) << " reads; whole: "
                            << read_bytes(whole) << " bytes, " << whole.nand.total(whole.nand.reads)
                            << " reads, " << whole.iops << " vs " << part.iops << " IOPS");
  REQUIRE(part.moves_per_write > 1);
  // Only the slots still valid cross the bus (a few more than are moved:
  // the host overwrites some between the read and the program).
  CHECK(read_bytes(part) >= 0.99 * part_moves * 4096);  // moves of reads before the phase
  CHECK(read_bytes(part) <= 1.05 * part_moves * 4096);
  // Whole plane pages: at least one per read, at most every plane; with
  // victims this full, nearly every plane page holds a valid slot.
  const auto reads = static_cast<double>(whole.nand.total(whole.nand.reads));
  CHECK(read_bytes(whole) >= 0.95 * reads * planes * page);
  CHECK(read_bytes(whole) <= reads * planes * page);
  // Firmware processes moves, not bytes: with a move time that bounds the
  // host, whole pages leave that bound where it was.
  const std::vector<std::string> cores_bound = {"drive.controller.flash_op_time=0us",
                                                "drive.controller.gc_move_time=200us"};
  auto with = cores_bound;
  with.push_back("drive.ftl.gc.whole_page_reads=true");
  const GcSteady slow = m500_small_steady(with);
  CHECK(slow.iops == Approx(2e6 / (25.1 + slow.moves_per_write * 200.0)).epsilon(0.02));
}

TEST_CASE("single-plane GC programs take the array planes times tPROG per program unit",
          "[ftl][gc][costs][slow]") {
  // Firmware free, so the flash sets the rate. Per host write a die spends
  // its share of one host program unit and of the GC program units its
  // moves fill; plane by plane, each GC unit takes the planes' tPROGs in turn.
  const std::vector<std::string> flash_bound = {"drive.controller.gc_move_time=0us",
                                                "drive.controller.flash_op_time=0us",
                                                "drive.controller.write_command_time=1us"};
  const GcSteady multi = m500_small_steady(flash_bound);
  auto v = flash_bound;
  v.push_back("drive.ftl.gc.multi_plane_programs=false");
  const GcSteady single = m500_small_steady(v);
  // Same programs and pages either way; only the array time differs.
  const double m = multi.moves_per_write, s = single.moves_per_write;
  UNSCOPED_INFO("multi-plane " << multi.iops << " IOPS, " << m << " moves/write, die busy "
                               << multi.nand.die_busy << "; single " << single.iops << " IOPS, "
                               << s << " moves/write, die busy " << single.nand.die_busy);
  REQUIRE(m > 1);
  CHECK(s == Approx(m).epsilon(0.05));
  // Program time per host write in units of one multi-plane program of a
  // slot: 1 + m (multi-plane), 1 + 2m (two planes one at a time).
  const double predicted = multi.iops * (1 + m) / (1 + 2 * s);
  CHECK(single.iops == Approx(predicted).epsilon(0.08));
}

TEST_CASE("GC urgency levels make host writes swing with the drive's free pool",
          "[ftl][gc][pacing]") {
  // Relaxed below the trigger (the host outruns GC and the pool drains),
  // urgent lower down (GC gets ahead and refills it): the drive alternates,
  // while the long-run rate stays what GC frees.
  const SteadyWrites flat = steady_writes({});
  const SteadyWrites levels = steady_writes(
      {"drive.ftl.gc.urgency=[{free_below: 6, host_share: 3}, {free_below: 4, host_share: 0.2}]"});
  UNSCOPED_INFO("one level: min " << flat.min100 << " cv " << flat.cv << " mean " << flat.mean
                                  << "; two: min " << levels.min100 << " cv " << levels.cv
                                  << " mean " << levels.mean);
  CHECK(levels.cv > 2 * flat.cv);
  // Urgent GC still lets host writes through, below the flat rate. Credit
  // comes per GC program unit, so the floor is judged per 100 ms.
  CHECK(levels.min100 > 0);
  CHECK(levels.min100 < flat.min100);
  // Levels move writes in time; they cannot free space faster than GC does.
  CHECK(levels.mean < 1.25 * flat.mean);
}

TEST_CASE("GC urgency levels are checked when the drive config is read", "[ftl][gc][pacing]") {
  const std::string drive = "configs/drives/test_tlc_1gb.yaml";
  using Catch::Contains;
  // Levels must fall; free_below lies between the reserve and the trigger.
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.urgency=[{free_below: 4, host_share: 1}, "
                                       "{free_below: 5, host_share: 1}]"}),
                    Contains("urgency.1.free_below") && Contains("falling order"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.urgency=[{free_below: 9, host_share: 1}]"}),
                    Contains("urgency.0.free_below"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.urgency=[{free_below: 4, host_share: 0}]"}),
                    Contains("urgency.0.host_share"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.urgency=[{free_below: 4, share: 1}]"}),
                    Contains("host_share"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.erase_backlog=0"}),
                    Contains("drive.ftl.gc.erase_backlog"));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.credit_units=0.5"}),
                    Contains("drive.ftl.gc.credit_units"));
  // Levels scale proportional pacing; without it they would mean nothing.
  CHECK_NOTHROW(make_drive(drive, {"drive.ftl.gc.pacing=none"}));
  CHECK_THROWS_WITH(make_drive(drive, {"drive.ftl.gc.pacing=none",
                                       "drive.ftl.gc.urgency=[{free_below: 4, host_share: 2}]"}),
                    Contains("drive.ftl.gc.urgency") && Contains("proportional"));
}

TEST_CASE("data relocated twice goes to a cold stream of its own when configured",
          "[ftl][gc][streams]") {
  // Skewed writes to a tenth of the drive over cold data. Whether keeping
  // twice-moved pages apart lowers WA depends on the workload (the extra
  // open block costs spare area); what must hold is that they are kept
  // apart, that nothing is lost, and that GC still keeps up.
  const char* workload = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 32, io_size: 100%}
    - {name: spread, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 100%}
    - {name: hot, rw: randwrite, bs: 4KiB, iodepth: 32, size: 10%, io_size: 1500%}
    - {name: mixed, rw: randwrite, bs: 4KiB, iodepth: 32, io_size: 50%}
)";
  auto run = [&](const std::string& separate) {
    TestDrive t;
    const auto r = run_verified(t, {"drive.ftl.gc.separate_cold=" + separate}, workload);
    std::uint32_t cold_blocks = 0;
    for (std::uint32_t die = 0; die < t.drive->geo.dies(); ++die)
      for (std::uint32_t b = 0; b < t.drive->geo.blocks_per_plane; ++b) {
        const BlockInfo& info = t.drive->ftl->blocks().info(die, b);
        cold_blocks += info.state != BlockState::kFree && info.stream == Stream::kGcCold;
      }
    std::uint64_t moved = 0;
    for (std::size_t i = 2; i < r.phases.size(); ++i)
      moved += r.phases[i].ftl_after.gc_moved_slots - r.phases[i].ftl_before.gc_moved_slots;
    return std::make_pair(cold_blocks, moved);
  };
  const auto [plain_cold, plain_moved] = run("false");
  const auto [sep_cold, sep_moved] = run("true");
  CHECK(plain_cold == 0);
  CHECK(sep_cold > 0);
  CHECK(plain_moved > 0);
  CHECK(static_cast<double>(sep_moved) == Approx(static_cast<double>(plain_moved)).epsilon(0.25));
}

// ---- Read errors: ECC, read retry, RAIN rebuild (ftl/read_recovery.h) ----

#include <set>
#include <tuple>

#include "nand/error_model.h"

namespace {

// Pages whose every read is uncorrectable (RBER 1); all others read clean.
class FailingPages : public ErrorModel {
 public:
  explicit FailingPages(std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> pages)
      : pages_(std::move(pages)) {}
  double rber(const CellWear& w) const override {
    return pages_.count({w.die, w.block, w.page}) ? 1.0 : 0.0;
  }

 private:
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> pages_;
};

struct ErrorDrive {
  std::unique_ptr<ConfigDoc> doc;
  std::unique_ptr<Drive> drive;
};

ErrorDrive drive_with_errors(const std::vector<std::string>& sets,
                             std::unique_ptr<ErrorModel> model, bool verify = false) {
  ErrorDrive e;
  e.doc = ConfigDoc::load(source_path("configs/drives/test_mlc_sata.yaml"), "drive", sets);
  e.drive = std::make_unique<Drive>(e.doc->root(), verify, std::move(model));
  e.doc->check_unused();
  return e;
}

// The die, block and page holding logical page `lpn`.
std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> where(const Drive& d, Lpn lpn) {
  const std::uint32_t m = d.ftl->map().lookup(lpn);
  const Layout layout(d.geo);
  return {layout.die_of(m), layout.block_of(m), layout.page_of(m)};
}

const char* kFillThenRead = R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, size: 64MiB, io_size: 100%}
    - {name: read, rw: read, bs: 4KiB, iodepth: 1, size: 64MiB, io_size: 100%}
)";

}  // namespace

TEST_CASE("the decode fails with the Poisson tail of the codeword's bit errors", "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.controller.ecc={codeword: 1KiB, correctable_bits: 0}",
                       "drive.nand.errors={model: power_law, power_law: {epsilon: 1e-5}}"});
  const ReadRecoveryConfig& ecc = t.drive->ftl_cfg.recovery;
  // t = 0: a codeword fails on any error: 1 - exp(-8192 * rber); a 4 KiB
  // read has four codewords.
  CHECK(decode_fail_probability(ecc, 1e-5, 1024) == Approx(1 - std::exp(-8192 * 1e-5)));
  CHECK(decode_fail_probability(ecc, 1e-5, 4096) == Approx(1 - std::exp(-4 * 8192 * 1e-5)));
  CHECK(decode_fail_probability(ecc, 0, 4096) == 0);
}

TEST_CASE("a stronger code and a lower RBER fail less; far beyond the code all fail",
          "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.controller.ecc={codeword: 1KiB, correctable_bits: 40}",
                       "drive.nand.errors={model: power_law, power_law: {epsilon: 1e-5}}"});
  const ReadRecoveryConfig& ecc = t.drive->ftl_cfg.recovery;
  // 40 correctable bits in 8192: fine at 1e-3 (8 expected errors), hopeless at 1e-2 (82).
  CHECK(decode_fail_probability(ecc, 1e-3, 4096) < 1e-12);
  CHECK(decode_fail_probability(ecc, 3e-3, 4096) > decode_fail_probability(ecc, 2e-3, 4096));
  CHECK(decode_fail_probability(ecc, 1e-2, 4096) > 0.999999);
}

TEST_CASE("read retries raise read latency as the error model says, more at end of life",
          "[ftl][errors]") {
  // A worn part: RBER = 1e-4 + 1.2e-10 * N^2 (N P/E cycles); 40 bits per
  // KiB. Fresh, reads decode at once; at 3000 cycles (RBER 1.2e-3, 8.9
  // errors per codeword expected, 40 correctable) still; at 5000 (3.1e-3,
  // 25 expected) some codeword of a page now and then needs the retries,
  // each of which lowers the RBER.
  const std::vector<std::string> base = {
      "drive.controller.ecc={codeword: 1KiB, correctable_bits: 28, retry: [{rber_scale: 0.7}, "
      "{rber_scale: 0.5}, {rber_scale: 0.35, senses: 3}]}",
      "drive.nand.errors.model=power_law",
      "drive.nand.errors.power_law={epsilon: 1e-4, alpha: 1.2e-10, k: 2}"};
  auto run = [&](int pe_cycles) {
    auto sets = base;
    sets.push_back("drive.nand.errors.age.pe_cycles=" + std::to_string(pe_cycles));
    auto t = make_drive("configs/drives/test_mlc_sata.yaml", sets);
    const auto w = make_workload(kFillThenRead, t.drive->user_bytes());
    const RunReport rep = run_quiet(*t.drive, w);
    const auto& lat = rep.phases.back().result.latency[static_cast<int>(IoOp::kRead)];
    return std::make_tuple(lat.mean(), lat.percentile(0.999), t.drive->ftl->stats());
  };
  const auto [fresh_mean, fresh_p999, fresh] = run(0);
  const auto [eol_mean, eol_p999, eol] = run(5000);
  CHECK(fresh.reads_retried == 0);
  CHECK(eol.reads_retried > 0);
  CHECK(eol.reads_uncorrectable == 0);
  CHECK(eol_mean > fresh_mean);
  CHECK(eol_p999 > fresh_p999);
  // At QD1 on an idle die the extra time is the re-reads themselves: each
  // step costs its sensings' array time and data-out. Lower and upper pages
  // (40 and 60 us) are read equally often.
  auto t = make_drive("configs/drives/test_mlc_sata.yaml", base);
  const Drive& d = *t.drive;
  const double step_time =
      static_cast<double>(d.timing.t_cmd + 50 * kUs + d.timing.bus_time(kSectorBytes));
  const auto& steps = eol.retry_reads_by_step;
  const double expected_extra =
      (steps[1] + steps[2] + 3.0 * steps[3]) * step_time / static_cast<double>(eol.host_read_slots);
  CHECK(eol_mean - fresh_mean == Approx(expected_extra).epsilon(0.05));
}

TEST_CASE("one failed page per stripe is rebuilt from its stripe and rewritten",
          "[ftl][errors][rain]") {
  // Find where logical page 100 lands, then fail that page's every read.
  auto probe = drive_with_errors({"drive.ftl.rain.stripe=4"}, nullptr);
  run_quiet(*probe.drive, make_workload(kFillThenRead, probe.drive->user_bytes()));
  const auto [die, block, page] = where(*probe.drive, 100);

  auto e =
      drive_with_errors({"drive.ftl.rain.stripe=4"},
                        std::make_unique<FailingPages>(std::set{std::make_tuple(die, block, page)}),
                        /*verify=*/true);
  run_quiet(*e.drive, make_workload(kFillThenRead, e.drive->user_bytes()));
  const FtlStats& s = e.drive->ftl->stats();
  CHECK(s.reads_uncorrectable >= 1);
  CHECK(s.pages_rebuilt >= 1);
  CHECK(s.rain_member_reads >= 3 * s.pages_rebuilt);  // the other units of a 4-unit stripe
  CHECK(s.reads_lost == 0);
  CHECK(s.host_reads_failed == 0);
  CHECK(s.rewrite_slots > 0);
  CHECK(s.verify_errors == 0);
  // Rewritten: the logical page lives elsewhere now.
  CHECK(where(*e.drive, 100) != std::make_tuple(die, block, page));
}

TEST_CASE("two failed pages in one stripe are reported lost, never returned as good",
          "[ftl][errors][rain]") {
  auto probe = drive_with_errors({"drive.ftl.rain.stripe=4"}, nullptr);
  run_quiet(*probe.drive, make_workload(kFillThenRead, probe.drive->user_bytes()));
  const auto [die, block, page] = where(*probe.drive, 100);
  // The other data page in the same 4-unit stripe (MLC: one page per unit).
  const std::uint32_t first = page - page % 4;
  const std::uint32_t other = page == first ? first + 1 : first;

  auto e = drive_with_errors({"drive.ftl.rain.stripe=4"}, std::make_unique<FailingPages>(std::set{
                                                              std::make_tuple(die, block, page),
                                                              std::make_tuple(die, block, other)}));
  run_quiet(*e.drive, make_workload(kFillThenRead, e.drive->user_bytes()));
  const FtlStats& s = e.drive->ftl->stats();
  CHECK(s.reads_lost >= 1);
  CHECK(s.host_reads_failed >= 1);
  CHECK(s.pages_rebuilt == 0);

  // Without RAIN one failed page is already lost.
  auto plain = drive_with_errors(
      {}, std::make_unique<FailingPages>(std::set{std::make_tuple(die, block, page)}));
  run_quiet(*plain.drive, make_workload(kFillThenRead, plain.drive->user_bytes()));
  CHECK(plain.drive->ftl->stats().host_reads_failed >= 1);
  CHECK(plain.drive->ftl->stats().pages_rebuilt == 0);
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
std::vector<std::string> with(std::vector<std::string> sets, const std::string& s) {
  sets.push_back(s);
  return sets;
}
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

TEST_CASE("a block read past the reclaim threshold is relocated", "[ftl][errors]") {
  auto t = make_drive("configs/drives/test_mlc_sata.yaml",
                      {"drive.nand.errors={model: power_law, power_law: {epsilon: 1e-6}}",
                       "drive.ftl.read_reclaim.reads=2000"},
                      /*verify=*/true);
  const auto w = make_workload(R"(
workload:
  phases:
    - {name: fill, rw: write, bs: 128KiB, iodepth: 8, size: 16MiB, io_size: 100%}
    - {name: hot, rw: randread, bs: 4KiB, iodepth: 4, size: 16MiB, io_size: 128MiB}
)",
                               t.drive->user_bytes());
  run_quiet(*t.drive, w);
  const FtlStats& s = t.drive->ftl->stats();
  CHECK(s.reclaim_blocks > 0);
  CHECK(s.gc_moved_slots > 0);
  CHECK(s.verify_errors == 0);
}

// ---- Bad blocks: factory marks, failed erases, the spare reserve ----

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

// ---- Power loss (ftl/power_loss.h) ----

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

TEST_CASE("a die that stops working loses what it held; the others carry the writes",
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

// ---------------------------------------------------------------------------
// MapCache bookkeeping against a plain model: residency, dirt, the per-page
// checks, and what an eviction reports (the victims are the policy's).
#include <map>

#include "ftl/map_cache.h"
#include "sim/rng.h"

TEST_CASE("map cache residency, dirt and translation-page checks match a plain model",
          "[ftl][map]") {
  // 5000 logical pages: the last translation page is partial; the segments
  // are indexed directly. 2 M pages in 4 B segments: by hash.
  const std::pair<std::uint32_t, std::uint64_t> cases[] = {
      {4, 5000}, {64, 5000}, {1024, 5000}, {4, 2000000}};
  for (const auto& [segment, pages] : cases) {
    MapCacheConfig cfg;
    cfg.location = MapCacheConfig::Location::kSram;
    cfg.segment_bytes = segment;
    cfg.size_bytes = 1536 * 4;  // 1536 entries: more than a translation page
    MapCache mc(cfg, pages);
    INFO("segment " << segment << " B, " << pages << " pages");
    REQUIRE_FALSE(mc.whole_table());
    const std::uint32_t segs = mc.segments();
    const std::uint32_t per_tp = mc.segments_per_tpage();
    const std::uint32_t tpages = (segs + per_tp - 1) / per_tp;
    std::map<std::uint32_t, bool> model;  // resident segment -> dirty
    Rng rng(7);
    std::uint32_t cursor = 0, evictions = 0, full_pages = 0;
    for (int step = 0; step < 60000; ++step) {
      // Sequential sweeps (pages become fully resident) alternate with
      // random mixes of every operation.
      const bool sweep = (step / 3000) % 2 == 0;
      const std::uint64_t op = sweep ? (step % 8 == 0 ? 4 : 0) : rng.below(5);
      const std::uint32_t seg = sweep ? (op == 0 ? cursor++ : cursor) % segs
                                      : static_cast<std::uint32_t>(rng.below(segs));
      switch (op) {
        case 0:
        case 1: {
          const bool dirty = rng.below(2) != 0;
          const auto ev = mc.insert(seg, dirty);
          if (model.count(seg)) {
            REQUIRE(ev.seg == MapCache::kNone);
            model[seg] = model[seg] || dirty;
            break;
          }
          if (model.size() == mc.capacity_segments()) {
            REQUIRE(ev.seg != MapCache::kNone);
            REQUIRE(model.count(ev.seg) == 1);
            REQUIRE(ev.dirty == model[ev.seg]);
            model.erase(ev.seg);
            ++evictions;
          } else {
            REQUIRE(ev.seg == MapCache::kNone);
          }
          model[seg] = dirty;
          break;
        }
        case 2:
          REQUIRE(mc.lookup(seg) == (model.count(seg) == 1));
          if (model.count(seg)) {
            mc.set_dirty(seg);
            model[seg] = true;
          }
          break;
        case 3: {
          const std::uint32_t tp = mc.tpage_of_segment(seg);
          mc.clean_tpage(tp);
          for (auto& [s, d] : model)
            if (mc.tpage_of_segment(s) == tp) d = false;
          break;
        }
        default: {
          // The page the sweep finished last, or any.
          const std::uint32_t tp = rng.below(2) ? (mc.tpage_of_segment(seg) + tpages - 1) % tpages
                                                : static_cast<std::uint32_t>(rng.below(tpages));
          bool all = true;
          for (std::uint32_t s = tp * per_tp; s < std::min(segs, (tp + 1) * per_tp); ++s)
            all = all && model.count(s) == 1;
          REQUIRE(mc.tpage_fully_resident(tp) == all);
          full_pages += all;
          break;
        }
      }
      REQUIRE(mc.resident_segments() == model.size());
      REQUIRE(mc.resident(seg) == (model.count(seg) == 1));
    }
    CHECK(evictions > 1000);
    CHECK(full_pages > 0);
  }
}

TEST_CASE(
    "a segment evicted and loaded again at once is found, before and after its old entry goes",
    "[ftl][map]") {
  // 2 M pages in 4 B segments: the index is a hash, whose evicted entries
  // are erased in batches; a segment back before its batch reuses its entry.
  MapCacheConfig cfg;
  cfg.location = MapCacheConfig::Location::kSram;
  cfg.segment_bytes = 4;
  cfg.size_bytes = 64 * 4;  // 64 entries, LRU
  MapCache mc(cfg, 2000000);
  std::deque<std::uint32_t> order;  // least recently inserted first
  std::set<std::uint32_t> gone;
  auto insert = [&](std::uint32_t seg) {
    const auto ev = mc.insert(seg, false);
    if (std::find(order.begin(), order.end(), seg) != order.end()) {  // already cached
      REQUIRE(ev.seg == MapCache::kNone);
      return ev.seg;
    }
    if (order.size() == 64) {
      REQUIRE(ev.seg == order.front());
      gone.insert(order.front());
      order.pop_front();
    }
    order.push_back(seg);
    gone.erase(seg);
    return ev.seg;
  };
  for (std::uint32_t s = 0; s < 64; ++s) insert(s * 7919);
  for (std::uint32_t k = 0; k < 40; ++k) {
    const std::uint32_t evicted = insert(1000000 + k);
    REQUIRE_FALSE(mc.resident(evicted));
    if (k % 3 == 0) {
      insert(evicted);  // straight back in, before its old entry is erased
      REQUIRE(mc.lookup(evicted));
    }
    for (const std::uint32_t seg : order) REQUIRE(mc.resident(seg));
    for (const std::uint32_t seg : gone) REQUIRE_FALSE(mc.resident(seg));
  }
  // Long after every batch has been erased, the index still agrees.
  for (std::uint32_t k = 0; k < 200; ++k) insert(k % 3 == 0 ? 1000000 + k % 40 : 1500000 + k);
  for (const std::uint32_t seg : order) CHECK(mc.lookup(seg));
  for (const std::uint32_t seg : gone) CHECK_FALSE(mc.lookup(seg));
  CHECK(mc.resident_segments() == 64);
}

TEST_CASE(
    "a per-entry cache indexes the pages a sequential run fills by position, any other by hash",
    "[ftl][map]") {
  // 2 M pages in 4 B segments (1024 to a translation page), 4096 entries:
  // a page gets a dense block when a sequential run enters it with the
  // page before wholly cached, and gives it back when its last segment
  // goes; at most 2 x 4 + 2 blocks at once.
  MapCacheConfig cfg;
  cfg.location = MapCacheConfig::Location::kSram;
  cfg.segment_bytes = 4;
  cfg.size_bytes = 4096 * 4;
  MapCache mc(cfg, 2000000);
  std::deque<std::uint32_t> order;  // LRU order of the model: least recent first
  auto insert = [&](std::uint32_t seg, bool dirty) {
    const auto ev = mc.insert(seg, dirty);
    const auto it = std::find(order.begin(), order.end(), seg);
    if (it != order.end()) {
      REQUIRE(ev.seg == MapCache::kNone);
      return;
    }
    if (order.size() == 4096) {
      REQUIRE(ev.seg == order.front());
      order.pop_front();
    } else {
      REQUIRE(ev.seg == MapCache::kNone);
    }
    order.push_back(seg);
  };
  auto agrees = [&](std::uint32_t lo, std::uint32_t hi) {
    std::set<std::uint32_t> in(order.begin(), order.end());
    for (std::uint32_t s = lo; s < hi; ++s) REQUIRE(mc.resident(s) == (in.count(s) == 1));
  };
  // A sequential run over [3172, 6172): it enters page 3 part-way and page
  // 4 with page 3 not whole, both by hash; pages 5 and 6 get blocks.
  for (std::uint32_t s = 3172; s < 6172; ++s) insert(s, true);
  CHECK(mc.dense_pages() == 2);
  agrees(3 * 1024, 8 * 1024);
  // On to page 40, through eviction: the cache ends holding pages 36-39
  // whole, and the blocks of the pages emptied came back.
  for (std::uint32_t s = 6172; s < 40 * 1024; ++s) insert(s, s % 3 == 0);
  CHECK(mc.dense_pages() == 4);
  agrees(30 * 1024, 41 * 1024);
  // Random segments far away (no page whole before them) take the hash,
  // and evict the run: its blocks all come back.
  Rng rng(3);
  for (int k = 0; k < 6000; ++k)
    insert(100000 + static_cast<std::uint32_t>(rng.below(1800000)), false);
  CHECK(mc.dense_pages() == 0);
  agrees(30 * 1024, 41 * 1024);
  // A run re-entering pages whose old segments still wait in the hash's
  // erase batch: those read as gone, the new ones as cached.
  for (std::uint32_t s = 200 * 1024; s < 200 * 1024 + 5000; ++s) insert(s, false);
  for (std::uint32_t s = 200 * 1024; s < 200 * 1024 + 5000; ++s) insert(s, true);  // hits
  for (std::uint32_t s = 198 * 1024; s < 199 * 1024; ++s) insert(s, false);  // evicts 200 * 1024 on
  agrees(197 * 1024, 206 * 1024);
  for (std::uint32_t s = 199 * 1024; s < 203 * 1024; ++s) insert(s, false);
  CHECK(mc.dense_pages() > 0);
  agrees(197 * 1024, 206 * 1024);
  for (const std::uint32_t seg : order) REQUIRE(mc.lookup(seg));
  CHECK(mc.resident_segments() == 4096);

  // A dense page's last segment evicted for another segment of the same
  // page: the page keeps its block (the new segment is in it).
  MapCache one(cfg, 2000000);
  order.clear();
  auto insert_one = [&](std::uint32_t seg) {
    const auto ev = one.insert(seg, false);
    if (order.size() == 4096) {
      REQUIRE(ev.seg == order.front());
      order.pop_front();
    }
    order.push_back(seg);
  };
  for (std::uint32_t s = 10 * 1024; s < 15 * 1024; ++s) insert_one(s);   // holds pages 11-14, dense
  for (std::uint32_t k = 0; k < 1023; ++k) insert_one(1500000 + 7 * k);  // page 11 down to its last
  REQUIRE(one.resident(11 * 1024 + 1023));
  REQUIRE(one.dense_pages() == 4);
  insert_one(11 * 1024 + 5);  // evicts 11 * 1024 + 1023
  CHECK(one.resident(11 * 1024 + 5));
  CHECK_FALSE(one.resident(11 * 1024 + 1023));
  CHECK(one.lookup(11 * 1024 + 5));
  CHECK(one.dense_pages() == 4);
}

// ---------------------------------------------------------------------------
// DieSet (ftl/die_set.h): the flush's round-robin search over ready dies,
// optionally skipping a second set (the dies GC pacing has starved).
#include "ftl/die_set.h"

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

// ---- the FTL seam: kinds by name, streams as data (issue 31) ----

#include "ftl/ftl_kinds.h"
#include "ftl/streams.h"

namespace {

TEST_CASE("ftl.kind names a registered FTL and the controller talks to it through the seam",
          "[ftl][seam]") {
  REQUIRE_FALSE(ftl_kinds().empty());
  CHECK(std::string(ftl_kinds().front().name) == "page_mapped");
  auto t = test::make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.ftl.kind=page_mapped"});
  CHECK(t.drive->ftl_cfg.kind == "page_mapped");
  CHECK(page_mapped(*t.drive->translation) == t.drive->ftl);
  auto doc = ConfigDoc::load(test::source_path("configs/drives/test_tlc_1gb.yaml"), "drive",
                             {"drive.ftl.kind=log_structured"});
  try {
    Drive d(doc->root(), false);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("drive.ftl.kind") && Catch::Contains("page_mapped"));
  }
}

TEST_CASE("write streams are rows of a table: handle 0's four first, more per handle",
          "[ftl][streams][seam]") {
  StreamTable t;
  REQUIRE(t.size() == 4);
  CHECK(t.role(Stream::kHost) == StreamRole::kHost);
  CHECK(t.role(Stream::kHostSlc) == StreamRole::kHostSlc);
  CHECK(t.is_relocation(Stream::kGc));
  CHECK(t.is_relocation(Stream::kGcCold));
  CHECK_FALSE(t.is_relocation(Stream::kHost));
  const Stream h1 = t.add(StreamRole::kHost, 1);
  const Stream g1 = t.add(StreamRole::kGc, 1);
  CHECK(h1.index() == 4);
  CHECK(t.handle(h1) == 1);
  CHECK(t.is_relocation(g1));
  // A block manager given the table keeps a write point per stream and die.
  const Geometry geo = test::make_drive("configs/drives/test_tlc_1gb.yaml").drive->geo;
  BlockManager bm(geo, 2);
  bm.set_streams(t);
  const auto u = bm.allocate_unit(0, h1, 1, geo.native_mode);
  REQUIRE(u);
  CHECK(bm.info(0, u->block).stream == h1);
  const auto v = bm.allocate_unit(0, Stream::kHost, 1, geo.native_mode);
  REQUIRE(v);
  CHECK(v->block != u->block);  // another stream, another open block
}

}  // namespace

// --- NVMe Flexible Data Placement (issue 31) ------------------------------
namespace {

constexpr const char* kFdp = "configs/drives/test_fdp_3gb.yaml";

// Four tenants, each writing its own quarter of the drive with its own
// placement identifier: a fast fill, then `timed` (a jobs phase body).
WorkloadSpec quarters_workload(const std::string& timed, std::uint64_t user_bytes,
                               const std::string& tail = "") {
  std::string w = "workload:\n  phases:\n";
  for (int h = 0; h < 4; ++h)
    w += "    - {name: fill" + std::to_string(h) +
         ", precondition: true, fast: true, rw: write, bs: 128KiB, "
         "iodepth: 32, offset: " +
         std::to_string(25 * h) + "%, size: 25%, io_size: 100%, placement: " + std::to_string(h) +
         "}\n";
  w += "    - name: timed\n      jobs:\n";
  for (int h = 0; h < 4; ++h) {
    std::string job = timed;
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"$H", std::to_string(h)},
                                     {"$OFF", std::to_string(25 * h) + "%"}})
      for (std::size_t p; (p = job.find(key)) != std::string::npos;)
        job.replace(p, key.size(), value);
    w += "        - " + job + "\n";
  }
  return test::make_workload(w + tail, user_bytes);
}

// For each erase block holding data, which quarters of the LBA space the
// slots written since its last erase (valid or not) belong to, a bit per
// quarter.
std::vector<unsigned> quarters_per_block(const Drive& d) {
  const BlockManager& bm = d.ftl->blocks();
  const Layout& layout = bm.layout();
  const Lpn quarter = static_cast<Lpn>(d.user_bytes() / kSectorBytes / 4);
  std::vector<unsigned> masks;
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die)
    for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b) {
      const Ppa first = layout.first_slot(layout.die_block(die, b), 0);
      const Ppa end = layout.first_slot(layout.die_block(die, b), bm.info(die, b).next_page);
      unsigned m = 0;
      for (Ppa s = first; s < end; ++s) {
        const Owner o = d.ftl->map().owner(s);
        if (o != kUnmapped && !is_tpage(o)) m |= 1u << std::min<Lpn>(o / quarter, 3);
      }
      if (m != 0) masks.push_back(m);
    }
  return masks;
}

// The message of the config error the test FDP drive with `sets` gives.
std::string fdp_drive_error(const std::vector<std::string>& sets) {
  try {
    test::make_drive(kFdp, sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("FDP: one stream per reclaim unit, each overwritten in order, writes every page once",
          "[ftl][fdp]") {
  auto t = test::make_drive(kFdp);
  Drive& d = *t.drive;
  const auto w = quarters_workload(
      "{name: t$H, rw: write, bs: 128KiB, iodepth: 8, offset: $OFF, size: 25%, io_size: 100%, "
      "placement: $H}",
      d.user_bytes(),
      "      idle_after: 100ms\n    - {name: after, rw: randread, bs: 4KiB, iodepth: 1, "
      "number_ios: 1}\n");
  const RunReport r = test::run_quiet(d, w);
  // The overwrite's phase; the write buffer's last pages reach the flash
  // in the idle time after it (the next phase's figures include them).
  const PhaseReport& p = r.phases[r.phases.size() - 2];
  const FtlStats& after = r.phases.back().ftl_after;
  // The overwrite needs erased blocks the fill left too few of: GC ran,
  // and found each handle's old reclaim units wholly invalid.
  std::uint64_t erases = 0;
  for (std::size_t m = 0; m < std::size(p.nand_after.erases); ++m)
    erases += p.nand_after.erases[m] - p.nand_before.erases[m];
  CHECK(erases > 0);
  CHECK(after.gc_moved_slots == p.ftl_before.gc_moved_slots);
  for (int h = 0; h < 4; ++h) {
    const std::uint64_t host = after.fdp_host_slots[h] - p.ftl_before.fdp_host_slots[h];
    const std::uint64_t media = after.fdp_media_slots[h] - p.ftl_before.fdp_media_slots[h];
    CHECK(host == d.user_bytes() / 4 / kSectorBytes);
    CHECK(media == host);  // write amplification 1.0 exactly
    CHECK(after.fdp_media_reallocated[h] == p.ftl_before.fdp_media_reallocated[h]);
    CHECK(after.fdp_ru_filled[h] > p.ftl_before.fdp_ru_filled[h]);
  }
}

TEST_CASE("FDP: a persistently isolated handle's data never shares an erase unit with another's",
          "[ftl][fdp]") {
  const auto run = [](const std::string& handle0) {
    auto t = test::make_drive(kFdp, {"drive.ftl.fdp.handles.0=" + handle0});
    Drive& d = *t.drive;
    const auto w = quarters_workload(
        "{name: t$H, rw: randwrite, bs: 4KiB, iodepth: 8, offset: $OFF, size: 25%, io_size: 15%, "
        "placement: $H}",
        d.user_bytes());
    const RunReport r = test::run_quiet(d, w);
    INFO(handle0);
    CHECK(d.ftl->stats().fdp_moved_slots[0] > 0);  // GC moved handle 0's data
    std::size_t shared = 0;
    for (const unsigned m : quarters_per_block(d)) shared += (m & 1u) && m != 1u;
    return shared;
  };
  CHECK(run("persistently_isolated") == 0);
  // Initially isolated: GC moves every handle's data into one stream, so
  // the check above can fail.
  CHECK(run("initially_isolated") > 0);
}

TEST_CASE("FDP: a bad reclaim unit or handle type is a config error at its key", "[ftl][fdp]") {
  CHECK_THAT(fdp_drive_error({"drive.ftl.fdp.reclaim_unit=2MiB"}),
             Catch::Contains("drive.ftl.fdp.reclaim_unit") &&
                 Catch::Contains("multiple of the erase unit"));
  CHECK_THAT(fdp_drive_error({"drive.ftl.fdp.handles.1=isolated"}),
             Catch::Contains("drive.ftl.fdp.handles") &&
                 Catch::Contains("initially_isolated or persistently_isolated"));
  CHECK_THAT(fdp_drive_error({"drive.ftl.fdp.reclaim_groups=2"}),
             Catch::Contains("drive.ftl.fdp.reclaim_groups"));
}

TEST_CASE("namespaces: ranges, handles and ids are checked; the default is one of the whole drive",
          "[ftl][namespaces]") {
  {
    auto t = test::make_drive(kFdp);
    REQUIRE(t.drive->namespaces.size() == 1);
    const Namespace& ns = t.drive->namespaces.list()[0];
    CHECK(ns.id == 1);
    CHECK(ns.bytes() == t.drive->user_bytes());
    CHECK(ns.handles == std::vector<PlacementHandle>{0, 1, 2, 3});
  }
  {
    auto t =
        test::make_drive(kFdp, {"drive.namespaces=[{id: 1, size: 1GiB, placement_handles: [2]}, "
                                "{id: 7, size: 512MiB}]"});
    REQUIRE(t.drive->namespaces.size() == 2);
    const Namespace* b = t.drive->namespaces.find(7);
    REQUIRE(b);
    CHECK(b->first == (1ull << 30) / kSectorBytes);  // after the first
    CHECK(t.drive->namespaces.find(1)->handles == std::vector<PlacementHandle>{2});
    CHECK(t.drive->namespaces.find(2) == nullptr);
  }
  CHECK_THAT(fdp_drive_error(
                 {"drive.namespaces=[{id: 1, size: 1GiB}, {id: 2, size: 1GiB, offset: 512MiB}]"}),
             Catch::Contains("drive.namespaces.1.offset") &&
                 Catch::Contains("overlaps no other namespace"));
  CHECK_THAT(fdp_drive_error({"drive.namespaces=[{id: 1, size: 1GiB}, {id: 1, size: 1GiB}]"}),
             Catch::Contains("drive.namespaces.1.id"));
  CHECK_THAT(fdp_drive_error({"drive.namespaces=[{id: 1, size: 4GiB}]"}),
             Catch::Contains("drive.namespaces.0.size") &&
                 Catch::Contains("within the drive's user capacity"));
  CHECK_THAT(fdp_drive_error({"drive.namespaces=[{id: 1, size: 1GiB, placement_handles: [4]}]"}),
             Catch::Contains("drive.namespaces.0.placement_handles") && Catch::Contains("below 4"));
}
