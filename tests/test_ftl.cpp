// FTL: mapping, write buffer, block pools, GC victim policies, and the
// invariants that must hold after any mix of writes, trims and GC.
#include <catch2/catch.hpp>

#include "ftl/block_manager.h"
#include "ftl/gc_policy.h"
#include "ftl/mapping_table.h"
#include "ftl/write_buffer.h"
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

}  // namespace

TEST_CASE("a slot is valid exactly while the mapping points at it", "[ftl][mapping]") {
  MappingTable m(100, 1000);
  CHECK(m.lookup(5) == kUnmapped);
  m.map_to_flash(5, 42);
  CHECK(m.valid(42));
  CHECK(m.owner(42) == 5);
  m.map_to_flash(5, 43);  // overwrite: the old slot loses validity, no bitmap needed
  CHECK_FALSE(m.valid(42));
  CHECK(m.valid(43));
  m.set(5, kUnmapped);  // trim
  CHECK_FALSE(m.valid(43));
  CHECK(m.bytes() == (100 + 1000) * 4);
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
  WriteBuffer b(8, false);
  CHECK(b.reserve(5));
  CHECK_FALSE(b.reserve(4));
  CHECK(b.reserve(3));
  b.release(2);
  CHECK(b.used() == 6);
}

TEST_CASE("write-buffer entries come out in order and stale ones are marked", "[ftl][buffer]") {
  WriteBuffer b(4, true);
  REQUIRE(b.reserve(4));
  const auto r0 = b.push(10, 1);
  b.push(11, 2);
  CHECK(b.valid_entries() == 2);
  b.mark_stale();  // entry for 10 overwritten
  CHECK(b.valid_entries() == 1);
  CHECK(b.front_lpn() == 10);
  CHECK(b.front_ref() == r0);
  CHECK(b.version_of(r0) == 1);
  b.pop(false);
  CHECK(b.front_lpn() == 11);
  CHECK(b.front_version() == 2);
  b.pop(true);
  CHECK(b.valid_entries() == 0);
  CHECK(b.waiting_entries() == 0);
  // The ring wraps around.
  for (Lpn l = 20; l < 24; ++l) b.push(l, 0);
  CHECK(b.waiting_entries() == 4);
  CHECK(b.front_lpn() == 20);
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

TEST_CASE("valid counts, forward and reverse maps agree after writes, trims and GC",
          "[ftl][invariants]") {
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml", {"drive.ftl.gc.policy=fifo"});
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
  run_quiet(d, w);
  REQUIRE(d.ftl.stats().gc_victims > 0);
  const MappingTable& map = d.ftl.map();
  const Layout& layout = d.ftl.blocks().layout();
  // Every mapped page's slot names it back.
  std::uint64_t on_flash = 0;
  for (Lpn l = 0; l < map.logical_pages(); ++l) {
    const std::uint32_t m = map.lookup(l);
    if (!is_flash(m)) continue;
    ++on_flash;
    if (map.owner(m) != l) FAIL("page " << l << " maps to a slot owned by " << map.owner(m));
  }
  // Each block's valid count equals the slots that are valid in it.
  std::uint64_t valid_total = 0;
  for (std::uint32_t die = 0; die < d.geo.dies(); ++die) {
    for (std::uint32_t b = 0; b < d.geo.blocks_per_plane; ++b) {
      const Ppa first = layout.first_slot(layout.die_block(die, b), 0);
      std::uint32_t valid = 0;
      for (std::uint32_t s = 0; s < layout.slots_per_block(); ++s) valid += map.valid(first + s);
      const BlockInfo& info = d.ftl.blocks().info(die, b);
      if (info.valid != valid) FAIL("die " << die << " block " << b << ": count " << info.valid << ", actual " << valid);
      if (info.state == BlockState::kFree) CHECK(valid == 0);
      valid_total += valid;
    }
  }
  CHECK(valid_total == on_flash);
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
  CHECK(d.ftl.buffer().used() <= d.ftl.buffer().capacity());
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
