// The mapping-table cache: lookups from SRAM, DRAM and HMB, and MapCache against a model.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "ftl/map_traffic.h"
#include "ftl/mapping/map_cache.h"
#include "ftl/mapping/map_loads.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl_test_support.h"
#include "host/host_link.h"
#include "sim/rng.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

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

TEST_CASE("reads wait for a map load in order and resume when it arrives", "[ftl][map]") {
  MapLoads loads;
  CHECK(loads.empty());
  CHECK_FALSE(loads.joined(7, true));
  loads.start(7, false);
  CHECK(loads.joined(7, false));
  loads.wait(7, 100, 70, 2);
  loads.wait(7, 101, 72, 1);
  CHECK(loads.joined(7, true));  // a map update joins the load and dirties it
  std::vector<std::uint64_t> resumed;
  bool inserted_dirty = false;
  loads.finish(
      7, [&](bool dirty) { inserted_dirty = dirty; },
      [&](std::uint64_t cmd, Lpn first, std::uint32_t count) {
        resumed.push_back(cmd);
        CHECK(first == (cmd == 100 ? 70u : 72u));
        CHECK(count == (cmd == 100 ? 2u : 1u));
      });
  CHECK(inserted_dirty);
  CHECK(resumed == std::vector<std::uint64_t>{100, 101});
  CHECK(loads.empty());
  // The waiting reads' places are reused.
  loads.start(8, false);
  loads.wait(8, 200, 80, 1);
  resumed.clear();
  loads.finish(
      8, [](bool) {}, [&](std::uint64_t cmd, Lpn, std::uint32_t) { resumed.push_back(cmd); });
  CHECK(resumed == std::vector<std::uint64_t>{200});
}

TEST_CASE("map traffic loads a missing segment and writes back a dirty one it evicts",
          "[ftl][map]") {
  // 16 KiB of SRAM: four 4 KiB segments, one per translation page. No
  // translation page is on flash yet, so every miss loads from controller
  // memory (a flash load is the drive-level cases' below).
  auto t = make_drive("configs/drives/test_tlc_1gb.yaml",
                      {"drive.ftl.map_cache={location: sram, size: 16KiB}"});
  FtlCore core(t.drive->engine, t.drive->nand, t.drive->ftl_cfg, false);
  struct Client : MapTraffic::Client {
    std::vector<std::uint32_t> written;
    void write_tpage(std::uint32_t tpage) override { written.push_back(tpage); }
    void resume_read(std::uint64_t, Lpn, std::uint32_t) override { FAIL("no read waits"); }
  } client;
  MapTraffic traffic(core, client);
  const MapCache& mc = core.map_cache;
  REQUIRE(mc.segments_per_tpage() == 1);
  const Lpn per_seg = mc.first_lpn(1);
  const FtlStats& s = core.stats;

  traffic.map_update(0);  // a miss, loaded dirty
  traffic.map_update(1);  // the same segment: a hit
  CHECK(s.map_misses == 1);
  CHECK(s.map_hits == 1);
  CHECK(s.map_memory_loads == 1);
  CHECK(s.map_reads == 0);
  // Reads of three more segments fill the cache, clean.
  for (std::uint32_t seg = 1; seg <= 3; ++seg)
    CHECK(traffic.ready_for_read(seg, seg, seg * per_seg, 1));
  CHECK(traffic.idle());
  CHECK(client.written.empty());
  // A fifth segment evicts the least recently used, the dirty one: its
  // translation page is written back.
  CHECK(traffic.ready_for_read(4, 4, 4 * per_seg, 1));
  CHECK(client.written == std::vector<std::uint32_t>{mc.tpage_of_segment(0)});
  CHECK(s.map_writebacks == 1);
  // Evicting a clean one writes nothing.
  CHECK(traffic.ready_for_read(5, 5, 5 * per_seg, 1));
  CHECK(client.written.size() == 1);
  CHECK(s.map_misses == 6);
}

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
// MapCache bookkeeping against a plain model: residency, dirt, the per-page
// checks, and what an eviction reports (the victims are the policy's).

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
