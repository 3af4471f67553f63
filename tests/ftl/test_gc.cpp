// Block pools, GC victim policies, background GC, cold data, and the maps' agreement after GC.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/gc/gc_policy.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl_test_support.h"
#include "sim/rng.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

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

// ---------------------------------------------------------------------------
// Cost-benefit and random GC victim policies (ftl/gc/impl/gc_cost_benefit.cpp,
// ftl/gc/impl/gc_random.cpp).
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
