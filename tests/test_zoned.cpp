// The zoned FTL (ftl/zoned_ftl.h) and zoned workloads (host/workload/zone_writer.h):
// the NVMe ZNS state machine, open and active limits, append ordering,
// write amplification, errors as statuses, config errors, and a run of the
// binary on the test zoned drive.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/phase_metrics.h"
#include "ftl/zoned_ftl.h"
#include "host/fio/fio_job.h"
#include "test_support.h"

using namespace ssdtwin;
using namespace ssdtwin::test;

namespace {

constexpr const char* kZns = "configs/drives/test_zns_2gb.yaml";
constexpr std::uint64_t kZoneSlots = 32ull << 20 >> 12;      // 32 MiB zones
constexpr std::uint64_t kCapacitySlots = 24ull << 20 >> 12;  // 24 MiB writable

ZonedFtl& zoned(TestDrive& t) { return *dynamic_cast<ZonedFtl*>(t.drive->translation.get()); }

// A command as the controller hands it to the FTL at fetch.
HostCommand cmd(IoOp op, std::uint32_t zone, std::uint64_t in_zone, std::uint32_t pages,
                ZoneAction a = ZoneAction::kNone) {
  HostCommand c;
  c.op = op;
  c.zone = a;
  c.first_page = static_cast<std::uint32_t>(zone * kZoneSlots + in_zone);
  c.offset = std::uint64_t{c.first_page} * kSectorBytes;
  c.bytes = pages * kSectorBytes;
  return c;
}

CmdStatus write(ZonedFtl& z, std::uint32_t zone, std::uint64_t in_zone, std::uint32_t pages) {
  HostCommand c = cmd(IoOp::kWrite, zone, in_zone, pages);
  return z.check_command(c);
}

CmdStatus manage(ZonedFtl& z, std::uint32_t zone, ZoneAction a) {
  HostCommand c = cmd(IoOp::kZoneMgmt, zone, 0, 0, a);
  CmdStatus s = z.check_command(c);
  if (s != CmdStatus::kSuccess) return s;
  z.zone_manage(1, a, c.first_page, s);
  return s;
}

std::uint64_t errors(const ZonedFtl& z, CmdStatus s) {
  return z.zone_stats().errors[static_cast<std::size_t>(s)];
}

// A run of `phases` (the YAML list's items, one a line) on a fresh test
// zoned drive. The workload is held by pointer: the report points into it.
struct ZnsRun {
  TestDrive t;
  std::unique_ptr<WorkloadSpec> w;
  RunReport r;
  ZonedFtl& ftl() { return *dynamic_cast<ZonedFtl*>(t.drive->translation.get()); }
  const PhaseResult& result(std::size_t phase = 0) const { return r.phases.at(phase).result; }
  // A phase's metric by name (app/phase_metrics.h), as summary.json has it.
  double metric(std::size_t phase, const std::string& name) const {
    const PhaseReport& p = r.phases.at(phase);
    return phase_metric(PhaseView{*t.drive, *w, p, seconds_of(p)}, name);
  }
};

ZnsRun run_zns(const std::vector<std::string>& phases) {
  ZnsRun z;
  z.t = make_drive(kZns);
  std::string yaml = "workload:\n  phases:\n";
  for (const std::string& p : phases) yaml += "    - " + p + "\n";
  z.w = std::make_unique<WorkloadSpec>(make_workload(yaml, z.t.drive->user_bytes()));
  z.r = run_quiet(*z.t.drive, *z.w);
  return z;
}

}  // namespace

TEST_CASE("zone states follow the NVMe ZNS state machine", "[zoned]") {
  TestDrive t = make_drive(kZns);
  ZonedFtl& z = zoned(t);
  REQUIRE(z.layout().zones == 64);
  CHECK(z.state(0) == ZoneState::kEmpty);

  // Empty -> Implicitly Opened by a write at the write pointer.
  CHECK(write(z, 0, 0, 8) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kImplicitlyOpened);
  CHECK(z.write_pointer(0) == 8);
  // Off the write pointer: Zone Invalid Write, state and pointer unchanged.
  CHECK(write(z, 0, 0, 8) == CmdStatus::kZoneInvalidWrite);
  CHECK(write(z, 0, 16, 8) == CmdStatus::kZoneInvalidWrite);
  CHECK(z.write_pointer(0) == 8);
  // Implicitly -> Explicitly Opened, -> Closed, and back by a write.
  CHECK(manage(z, 0, ZoneAction::kOpen) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kExplicitlyOpened);
  CHECK(manage(z, 0, ZoneAction::kClose) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kClosed);
  CHECK(manage(z, 0, ZoneAction::kClose) == CmdStatus::kSuccess);  // Closed stays Closed
  CHECK(write(z, 0, 8, 8) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kImplicitlyOpened);
  // Closing an opened zone with nothing written returns it to Empty.
  CHECK(manage(z, 1, ZoneAction::kOpen) == CmdStatus::kSuccess);
  CHECK(manage(z, 1, ZoneAction::kClose) == CmdStatus::kSuccess);
  CHECK(z.state(1) == ZoneState::kEmpty);
  // Close of an Empty zone is an invalid transition.
  CHECK(manage(z, 2, ZoneAction::kClose) == CmdStatus::kZoneInvalidTransition);
  // Finish: Full; writes then fail with Zone Is Full; open is invalid.
  CHECK(manage(z, 0, ZoneAction::kFinish) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kFull);
  CHECK(write(z, 0, 16, 8) == CmdStatus::kZoneFull);
  CHECK(manage(z, 0, ZoneAction::kOpen) == CmdStatus::kZoneInvalidTransition);
  CHECK(manage(z, 0, ZoneAction::kFinish) == CmdStatus::kSuccess);  // Full stays Full
  // Reset: Empty, write pointer at the zone start.
  CHECK(manage(z, 0, ZoneAction::kReset) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kEmpty);
  CHECK(z.write_pointer(0) == 0);
  // Finish of an Empty zone: Full.
  CHECK(manage(z, 3, ZoneAction::kFinish) == CmdStatus::kSuccess);
  CHECK(z.state(3) == ZoneState::kFull);
  // Written to its capacity, a zone is Full by itself and holds no resource.
  CHECK(write(z, 4, 0, static_cast<std::uint32_t>(kCapacitySlots)) == CmdStatus::kSuccess);
  CHECK(z.state(4) == ZoneState::kFull);
  CHECK(z.open_zones() == 0);
  CHECK(z.active_zones() == 0);
  // Crossing the zone capacity: Zone Boundary Error.
  CHECK(write(z, 5, 0, static_cast<std::uint32_t>(kCapacitySlots) + 1) == CmdStatus::kZoneBoundary);
  // Read Only: writes fail, reset is invalid, Offline action -> Offline.
  z.fail_zone(6, false);
  CHECK(write(z, 6, 0, 8) == CmdStatus::kZoneReadOnly);
  CHECK(manage(z, 6, ZoneAction::kReset) == CmdStatus::kZoneInvalidTransition);
  CHECK(manage(z, 7, ZoneAction::kOffline) == CmdStatus::kZoneInvalidTransition);
  CHECK(manage(z, 6, ZoneAction::kOffline) == CmdStatus::kSuccess);
  CHECK(z.state(6) == ZoneState::kOffline);
  CHECK(write(z, 6, 0, 8) == CmdStatus::kZoneOffline);
  HostCommand rd = cmd(IoOp::kRead, 6, 0, 1);
  CHECK(z.check_command(rd) == CmdStatus::kZoneOffline);
  // Other errors of the command set.
  HostCommand trim = cmd(IoOp::kTrim, 8, 0, 8);
  CHECK(z.check_command(trim) == CmdStatus::kInvalidOpcode);
  HostCommand past = cmd(IoOp::kWrite, 63, kZoneSlots - 1, 2);
  CHECK(z.check_command(past) == CmdStatus::kLbaOutOfRange);
  HostCommand past_end = cmd(IoOp::kZoneMgmt, 64, 0, 0, ZoneAction::kReset);
  CHECK(z.check_command(past_end) == CmdStatus::kLbaOutOfRange);
  HostCommand mid_append = cmd(IoOp::kWrite, 9, 8, 8, ZoneAction::kAppend);
  CHECK(z.check_command(mid_append) == CmdStatus::kInvalidField);
  // Every failure is counted by status.
  CHECK(errors(z, CmdStatus::kZoneInvalidWrite) == 2);
  CHECK(errors(z, CmdStatus::kZoneFull) == 1);
  CHECK(errors(z, CmdStatus::kZoneInvalidTransition) == 4);
  CHECK(errors(z, CmdStatus::kZoneBoundary) == 1);
  CHECK(errors(z, CmdStatus::kZoneReadOnly) == 1);
  CHECK(errors(z, CmdStatus::kZoneOffline) == 2);
}

TEST_CASE("open and active zone limits: implicit close, Too Many Open, Too Many Active",
          "[zoned]") {
  TestDrive t = make_drive(kZns);  // 4 open, 6 active
  ZonedFtl& z = zoned(t);
  for (std::uint32_t k = 0; k < 4; ++k) CHECK(write(z, k, 0, 8) == CmdStatus::kSuccess);
  CHECK(z.open_zones() == 4);
  // A fifth zone: the implicitly opened zone untouched longest is closed.
  CHECK(write(z, 4, 0, 8) == CmdStatus::kSuccess);
  CHECK(z.state(0) == ZoneState::kClosed);
  CHECK(z.open_zones() == 4);
  CHECK(z.active_zones() == 5);
  CHECK(write(z, 5, 0, 8) == CmdStatus::kSuccess);
  CHECK(z.state(1) == ZoneState::kClosed);
  CHECK(z.active_zones() == 6);
  // A seventh: no active resource left.
  CHECK(write(z, 6, 0, 8) == CmdStatus::kTooManyActiveZones);
  CHECK(manage(z, 6, ZoneAction::kOpen) == CmdStatus::kTooManyActiveZones);
  CHECK(z.state(6) == ZoneState::kEmpty);
  // Reopening a closed zone needs an open resource only.
  CHECK(write(z, 0, 8, 8) == CmdStatus::kSuccess);
  CHECK(z.active_zones() == 6);
  // Finishing one frees an active resource.
  CHECK(manage(z, 5, ZoneAction::kFinish) == CmdStatus::kSuccess);
  CHECK(write(z, 6, 0, 8) == CmdStatus::kSuccess);
  CHECK(errors(z, CmdStatus::kTooManyActiveZones) == 2);
  CHECK(z.zone_stats().implicit_closes >= 2);

  // Explicitly opened zones are not closed for others: Too Many Open Zones.
  TestDrive t2 = make_drive(kZns);
  ZonedFtl& e = zoned(t2);
  for (std::uint32_t k = 0; k < 4; ++k)
    CHECK(manage(e, k, ZoneAction::kOpen) == CmdStatus::kSuccess);
  CHECK(write(e, 4, 0, 8) == CmdStatus::kTooManyOpenZones);
  CHECK(manage(e, 4, ZoneAction::kOpen) == CmdStatus::kTooManyOpenZones);
  CHECK(manage(e, 0, ZoneAction::kClose) == CmdStatus::kSuccess);  // nothing written: Empty
  CHECK(write(e, 4, 0, 8) == CmdStatus::kSuccess);
  CHECK(errors(e, CmdStatus::kTooManyOpenZones) == 2);
}

TEST_CASE("a conventional drive answers zone commands with Invalid Opcode", "[zoned]") {
  TestDrive t = make_drive("configs/drives/test_tlc_1gb.yaml");
  CHECK_FALSE(t.drive->translation->zoned());
  HostCommand c = cmd(IoOp::kWrite, 0, 0, 8, ZoneAction::kAppend);
  CHECK(t.drive->translation->check_command(c) == CmdStatus::kInvalidOpcode);
  CmdStatus s = CmdStatus::kSuccess;
  CHECK_FALSE(t.drive->translation->zone_manage(0, ZoneAction::kReset, 0, s));
  CHECK(s == CmdStatus::kInvalidOpcode);
  // A zoned phase is refused before it runs.
  const WorkloadSpec w = make_workload(
      "workload:\n  phases:\n    - {rw: write, zoned: {open_zones: 2}, bs: 64KiB, io_size: 1MiB}\n",
      t.drive->user_bytes());
  CHECK_THROWS_WITH(run_quiet(*t.drive, w), Catch::Contains("ftl.kind zoned"));
}

TEST_CASE("zone appends get distinct, contiguous LBAs at the write pointer", "[zoned]") {
  // 2 zones of 24 MiB by 64 KiB appends at QD16: 768 appends, 384 per zone.
  ZnsRun z = run_zns(
      {"{name: app, rw: write, zoned: {open_zones: 2, append: true}, bs: 64KiB, iodepth: 16, "
       "size: 64MiB, io_size: 48MiB}"});
  const PhaseResult& res = z.result();
  REQUIRE(res.append_lbas.size() == 768);
  CHECK(z.metric(0, "zoned.commands_failed") == 0);
  std::vector<std::uint64_t> lbas = res.append_lbas;
  std::sort(lbas.begin(), lbas.end());
  const std::uint64_t zone = kZoneSlots * kSectorBytes;
  for (std::size_t k = 0; k < 384; ++k) {
    CHECK(lbas[k] == k * 65536);
    CHECK(lbas[384 + k] == zone + k * 65536);
  }
  // Each zone's LBAs came back in the order the drive took the appends
  // (one queue, fetched in order): within a zone, completion order is LBA
  // order but for appends completing together.
  std::uint64_t inversions = 0, last[2] = {0, 0};
  for (const std::uint64_t lba : res.append_lbas) {
    const std::size_t z = lba / zone;
    if (lba < last[z]) ++inversions;
    last[z] = std::max(last[z], lba);
  }
  CHECK(inversions < res.append_lbas.size() / 4);
  CHECK(z.ftl().zone_stats().appends == 768);
  CHECK(z.ftl().state(0) == ZoneState::kFull);
}

TEST_CASE("write amplification is exactly 1.0 when the host writes zones sequentially", "[zoned]") {
  // Whole zones (24 MiB: 256 program units of 96 KiB), by several shapes.
  const char* const phases[] = {
      "{rw: write, zoned: {open_zones: 1}, bs: 128KiB, iodepth: 32, size: 128MiB, io_size: 96MiB, "
      "idle_after: 20ms}",
      "{rw: write, zoned: {open_zones: 3}, bs: 64KiB, iodepth: 8, size: 192MiB, io_size: 144MiB, "
      "idle_after: 20ms}",
      "{rw: randwrite, zoned: {open_zones: 4}, bs: 32KiB, iodepth: 16, size: 128MiB, io_size: "
      "96MiB, "
      "idle_after: 20ms}",
      "{rw: write, zoned: {open_zones: 6, append: true}, bs: 16KiB, iodepth: 64, size: 192MiB, "
      "io_size: 144MiB, "
      "idle_after: 20ms}",
  };
  for (const char* p : phases) {
    INFO(p);
    ZnsRun z = run_zns({p});
    CHECK(z.metric(0, "write_amplification") == 1.0);
    CHECK(z.metric(0, "zoned.commands_failed") == 0);
    const FtlStats& s = z.ftl().stats();
    CHECK(s.gc_moved_slots == 0);
    CHECK(s.flush_padding_slots == 0);
    CHECK(s.host_native_slots == s.host_write_slots);
  }
}

TEST_CASE("writes past the active-zone limit fail as statuses, counted, and the run goes on",
          "[zoned]") {
  ZnsRun z = run_zns(
      {"{rw: write, zoned: {open_zones: 8}, bs: 64KiB, iodepth: 32, io_size: 96MiB}"});  // 6 active
  const double failed = z.metric(0, "zoned.commands_failed");
  CHECK(failed > 0);
  // The first write to each zone past the limit: Too Many Active Zones; the
  // writes queued behind it to the same zone: Zone Invalid Write (the
  // zone's write pointer never moved).
  CHECK(z.metric(0, "zoned.errors.too_many_active_zones") == 2);
  CHECK(z.metric(0, "zoned.errors.too_many_active_zones") +
            z.metric(0, "zoned.errors.zone_invalid_write") ==
        failed);
  CHECK(z.ftl().zone_stats().errors[static_cast<std::size_t>(CmdStatus::kTooManyActiveZones)] == 2);
  // The host went on with the zones it had: its bytes are all written.
  CHECK(z.result().bytes[1] + static_cast<std::uint64_t>(failed) * 65536 >= 96ull << 20);
  CHECK(z.ftl().active_zones() <= 6);
}

TEST_CASE("a zone reset erases the blocks the zone programmed, at the NAND's erase time",
          "[zoned]") {
  // One full zone (4 die-blocks on each of 2 dies), one with 3 MiB (one
  // die-block's worth over 2 dies: 1 block each), one empty.
  ZnsRun z =
      run_zns({"{name: fill, rw: write, zoned: {open_zones: 1}, bs: 96KiB, iodepth: 8, size: "
               "32MiB, io_size: 24MiB, "
               "idle_after: 20ms}",
               "{name: part, rw: write, zoned: {open_zones: 1}, bs: 96KiB, iodepth: 8, offset: "
               "32MiB, size: 32MiB, "
               "io_size: 3MiB, idle_after: 20ms}",
               "{name: reset_full, rw: zone_reset, iodepth: 1, size: 32MiB}",
               "{name: reset_part, rw: zone_reset, iodepth: 1, offset: 32MiB, size: 32MiB}",
               "{name: reset_empty, rw: zone_reset, iodepth: 1, offset: 64MiB, size: 32MiB}"});
  const double tbers_us = 4000;
  // The dies erase in parallel, each its blocks one after another.
  const double full = z.metric(2, "zoned.zone_mgmt_latency_us.max");
  CHECK(full >= 4 * tbers_us);
  CHECK(full < 4 * tbers_us + 200);
  CHECK(z.metric(2, "nand.erases") == 8);
  const double part = z.metric(3, "zoned.zone_mgmt_latency_us.max");
  CHECK(part >= tbers_us);
  CHECK(part < tbers_us + 200);
  CHECK(z.metric(3, "nand.erases") == 2);
  CHECK(z.metric(4, "zoned.zone_mgmt_latency_us.max") < 20);
  CHECK(z.metric(4, "nand.erases") == 0);
  CHECK(z.ftl().zone_stats().resets == 2);
  CHECK(z.ftl().zone_stats().reset_erases == 10);
}

TEST_CASE("host GC on zones keeps device write amplification at 1.0", "[zoned]") {
  ZnsRun z =
      run_zns({"{name: log, rw: zone_log, zoned: {logical: 512MiB, open_zones: 4, gc_free_zones: "
               "2}, bs: 64KiB, "
               "iodepth: 16, size: 1GiB, io_size: 1GiB}"});
  CHECK(z.metric(0, "zoned.commands_failed") == 0);
  CHECK(z.metric(0, "zoned.log_zone_resets") > 0);
  CHECK(z.metric(0, "zoned.host_write_amplification") > 1.0);
  // Device: every page programmed is a page the host wrote, or waits in
  // the buffer (a partial unit of 24 pages per head zone at most).
  const FtlStats& s = z.ftl().stats();
  CHECK(s.flush_padding_slots == 0);
  CHECK(s.host_write_slots - s.host_native_slots < 4 * 24);
  CHECK(z.metric(0, "write_amplification") <= 1.0);
  CHECK(z.metric(0, "write_amplification") > 0.999);
}

namespace {

// Builds the drive of the config with `from` replaced by `to` (and `from2`
// by `to2`), parsed as zns.yaml.
void build_zns(const std::string& from, const std::string& to, const std::string& from2 = "",
               const std::string& to2 = "") {
  std::ifstream in(source_path(kZns));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto replace = [&](const std::string& a, const std::string& b) {
    const std::size_t at = text.find(a);
    REQUIRE(at != std::string::npos);
    text.replace(at, a.size(), b);
  };
  replace(from, to);
  if (!from2.empty()) replace(from2, to2);
  auto doc = ConfigDoc::parse(text, "zns.yaml", "drive", {});
  Drive d(doc->root(), false);
  doc->check_unused();
}

}  // namespace

TEST_CASE("bad zoned configs give file:line:col errors naming the key", "[zoned][config]") {
  using Catch::Contains;
  using Catch::Matchers::StartsWith;
  CHECK_THROWS_WITH(build_zns("zone_capacity: 24MiB", "zone_capacity: 48MiB"),
                    StartsWith("zns.yaml:") && Contains("zone_capacity") &&
                        Contains("expected at most zone_size"));
  CHECK_THROWS_WITH(
      build_zns("zone_size: 32MiB", "zone_size: 30MiB"),
      StartsWith("zns.yaml:") && Contains("user_capacity") && Contains("whole number of zones"));
  CHECK_THROWS_WITH(build_zns("stripe_dies: 2", "stripe_dies: 3"),
                    StartsWith("zns.yaml:") && Contains("stripe_dies") && Contains("divisor"));
  CHECK_THROWS_WITH(build_zns("max_open_zones: 4", "max_open_zones: 7"),
                    StartsWith("zns.yaml:") && Contains("max_open_zones"));
  CHECK_THROWS_WITH(build_zns("zone_capacity: 24MiB", "zone_capacity: 24002KiB"),
                    StartsWith("zns.yaml:") && Contains("zone_capacity"));
  CHECK_THROWS_WITH(
      build_zns("blocks_per_plane: 64", "blocks_per_plane: 60"),
      StartsWith("zns.yaml:") && Contains("user_capacity") && Contains("blocks per plane"));
  CHECK_THROWS_WITH(build_zns("protection: true", "protection: false"),
                    StartsWith("zns.yaml:") && Contains("protection") && Contains("zoned"));
  CHECK_THROWS_WITH(build_zns("write_buffer: 1MiB", "write_buffer: 512KiB"),
                    StartsWith("zns.yaml:") && Contains("write_buffer") && Contains("active zone"));
  CHECK_THROWS_WITH(build_zns("interface: nvme", "interface: sata"),
                    StartsWith("zns.yaml:") && Contains("interface") && Contains("nvme"));
  // Keys of the page-mapped FTL mean nothing here: unknown.
  CHECK_THROWS_WITH(build_zns("kind: zoned", "kind: zoned\n    gc: {policy: greedy}"),
                    StartsWith("zns.yaml:") && Contains("gc") && Contains("unknown key"));
  CHECK_THROWS_WITH(build_zns("stripe_dies: 2}", "stripe_dies: 2, zones: 64}"),
                    StartsWith("zns.yaml:") && Contains("zones") && Contains("unknown key"));
  // And a zoned block on a page-mapped drive.
  CHECK_THROWS_WITH(
      build_zns("kind: zoned", "kind: page_mapped", "user_capacity: 2GiB", "user_capacity: 1GiB"),
      StartsWith("zns.yaml:") && Contains("zoned") && Contains("unknown key"));
}

TEST_CASE("bad zoned workload keys give file:line:col errors", "[zoned][config]") {
  using Catch::Contains;
  using Catch::Matchers::StartsWith;
  const auto load = [](const std::string& phase) {
    make_workload("workload:\n  phases:\n    - " + phase + "\n", 2ull << 30);
  };
  CHECK_THROWS_WITH(load("{rw: randread, zoned: {open_zones: 2}, io_size: 1MiB}"),
                    StartsWith("inline-workload.yaml:") && Contains("zoned"));
  CHECK_THROWS_WITH(load("{rw: write, zoned: {open_zones: 0}, io_size: 1MiB}"),
                    StartsWith("inline-workload.yaml:") && Contains("open_zones"));
  CHECK_THROWS_WITH(load("{rw: zone_log, bs: 64KiB, io_size: 1MiB}"),
                    StartsWith("inline-workload.yaml:") && Contains("logical"));
  CHECK_THROWS_WITH(
      load("{rw: write, zoned: {open_zones: 2, gc_free_zones: 3}, io_size: 1MiB}"),
      StartsWith("inline-workload.yaml:") && Contains("gc_free_zones") && Contains("unknown key"));
}

TEST_CASE("fio zonemode=zbd jobs map onto zoned phases", "[zoned][fio]") {
  const std::string dir = (std::filesystem::temp_directory_path() / "ssdtwin_zoned_fio").string();
  std::filesystem::create_directories(dir);
  const auto load = [&](const std::string& text) {
    const std::string path = dir + "/job.fio";
    std::ofstream(path) << text;
    return load_fio_workload(path, 2ull << 30, dir,
                             [](const std::string&) { return std::nullopt; });
  };
  const FioWorkload f = load(
      "[w]\nioengine=io_uring_cmd\nzonemode=zbd\nrw=randwrite\nmax_open_zones=5\nzone_append=1\nbs="
      "64k\n"
      "iodepth=8\nsize=256m\n");
  const PhaseSpec& p = f.workload.phases.at(0);
  CHECK(p.zoned.enabled);
  CHECK(p.zoned.open_zones == 5);
  CHECK(p.zoned.append);
  const FioWorkload s =
      load("[w]\nioengine=libaio\nzonemode=zbd\nrw=write\nbs=128k\niodepth=4\nsize=64m\n");
  CHECK(s.workload.phases.at(0).zoned.enabled);
  CHECK(s.workload.phases.at(0).zoned.open_zones == 1);
  CHECK_THROWS_WITH(
      load("[w]\nioengine=psync\nzonemode=zbd\nrw=write\nzone_append=1\nbs=64k\nsize=64m\n"),
      Catch::Contains("zone_append"));
  CHECK_THROWS_WITH(load("[w]\nrw=write\nmax_open_zones=4\nbs=64k\nsize=64m\n"),
                    Catch::Contains("zonemode=zbd"));
}

TEST_CASE("a trace replayed on a zoned drive gets its refused writes counted as errors",
          "[zoned][trace]") {
  const std::string trace =
      (std::filesystem::temp_directory_path() / "ssdtwin_zoned_trace.csv").string();
  // Two writes at zone 0's write pointer, one off it, one read.
  std::ofstream(trace)
      << "0,write,0,4096\n1000,write,4096,4096\n2000,write,65536,4096\n3000,read,0,4096\n";
  ZnsRun z = run_zns({"{name: r, rw: trace, trace: {file: " + trace + ", format: native}}"});
  CHECK(z.result().errors[static_cast<std::size_t>(CmdStatus::kZoneInvalidWrite)] == 1);
  CHECK(z.result().ios[1] == 2);
  CHECK(z.result().ios[0] == 1);
  CHECK(z.metric(0, "zoned.commands_failed") == 1);
}

TEST_CASE("ssdtwin runs a zoned workload on the test ZNS drive and lists the FTL kinds",
          "[zoned][e2e]") {
  const std::string out = (std::filesystem::temp_directory_path() / "ssdtwin_zoned_e2e").string();
  std::filesystem::remove_all(out);
  const std::string wl = out + "_wl.yaml";
  std::ofstream(wl)
      << "workload:\n  phases:\n"
         "    - {name: zw, rw: write, zoned: {open_zones: 8}, bs: 128KiB, iodepth: 32, io_size: "
         "96MiB}\n"
         "    - {name: rd, rw: randread, bs: 4KiB, iodepth: 8, size: 24MiB, number_ios: 2000}\n"
         "    - {name: rs, rw: zone_reset, iodepth: 2, size: 256MiB}\n";
  const std::string cmd = std::string(SSDTWIN_BINARY) + " run --drive " + source_path(kZns) +
                          " --workload " + wl + " --out " + out + " --quiet >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(rc));
  REQUIRE(WEXITSTATUS(rc) == 0);
  std::ifstream in(out + "/summary.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& z = j.at("drive_model").at("zoned");
  CHECK(z.at("zones") == 64);
  CHECK(z.at("max_active_zones") == 6);
  CHECK(z.at("errors").at("too_many_active_zones").get<int>() > 0);
  const nlohmann::json& ph = j.at("phases");
  CHECK(ph.at(0).at("zoned").at("errors").at("too_many_active_zones").get<int>() > 0);
  CHECK(ph.at(1).at("read").at("ios") == 2000);
  CHECK(ph.at(2).at("zoned").at("zone_mgmt_commands") == 8);

  const std::string pol = out + "_policies.txt";
  REQUIRE(std::system((std::string(SSDTWIN_BINARY) + " policies >" + pol).c_str()) == 0);
  std::stringstream ps;
  ps << std::ifstream(pol).rdbuf();
  CHECK_THAT(ps.str(),
             Catch::Contains("ftl.kind page_mapped") && Catch::Contains("ftl.kind zoned"));
}
