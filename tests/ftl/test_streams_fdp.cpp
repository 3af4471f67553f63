// The FTL seam and write streams, NVMe Flexible Data Placement, and namespaces.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ftl/blocks/block_manager.h"
#include "ftl/ftl_kinds.h"
#include "ftl/streams.h"
#include "ftl_test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

// ---- the FTL seam: kinds by name, streams as data (issue 31) ----

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
        "{name: t$H, rw: randwrite, bs: 4KiB, iodepth: 8, offset: $OFF, size: 25%, io_size: 60%, "
        "placement: $H}",
        d.user_bytes());
    const RunReport r = test::run_quiet(d, w);
    INFO(handle0);
    CHECK(d.ftl->stats().fdp_moved_slots[0] > 0);  // GC moved handle 0's data
    std::size_t shared = 0;
    for (const unsigned m : quarters_per_block(d)) shared += (m & 1u) && m != 1u;
    // The FTL's own count agrees: moves of handle 0's data out of units that
    // also held another handle's (the noisy reclaim unit handle's moves).
    const std::uint64_t moved_shared = d.ftl->stats().fdp_moved_shared_slots[0];
    CHECK(moved_shared <= d.ftl->stats().fdp_moved_slots[0]);
    return std::pair{shared, moved_shared};
  };
  const auto persistent = run("persistently_isolated");
  CHECK(persistent.first == 0);
  CHECK(persistent.second == 0);
  // Initially isolated: GC moves every handle's data into one stream, so
  // the checks above can fail.
  const auto initially = run("initially_isolated");
  CHECK(initially.first > 0);
  CHECK(initially.second > 0);
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

TEST_CASE("namespaces: ranges, handles and ids are checked, the default is one of the whole drive",
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
