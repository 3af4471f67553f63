#include "ftl/ftl_config.h"

#include <cstdint>
#include <sstream>
#include <string>

#include "ftl/ftl_kinds.h"
#include "ftl/gc_policy.h"
#include "ftl/mapping_table.h"
#include "ftl/slc_policy.h"
#include "nand/geometry.h"
#include "sim/config.h"

namespace ssdtwin {

namespace {

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

SlcCacheConfig read_slc(const ConfigNode& node, const Geometry& geo, bool slc_timing_present) {
  SlcCacheConfig s;
  if (!node.has("static") && !node.has("dynamic")) {
    // Present but empty, or absent: no cache; other keys here would be unread.
    return s;
  }
  if (geo.native_mode == CellMode::kSlc)
    node.fail("static", "an SLC part has no SLC cache: remove ftl.slc_cache");
  if (!slc_timing_present)
    node.fail(node.has("static") ? "static" : "dynamic",
              "an SLC cache needs SLC timings: add nand.timing.slc");
  s.enabled = true;
  s.policy = node.get_enum("policy", slc_policy_names(), "reclaim");
  s.static_bytes = node.get_bytes("static", 0);
  const std::uint64_t slc_block_bytes =
      std::uint64_t{geo.pages_in_mode(CellMode::kSlc)} * geo.slots_per_die_page() * kSectorBytes;
  const std::uint64_t per_die =
      (s.static_bytes + slc_block_bytes * geo.dies() - 1) / (slc_block_bytes * geo.dies());
  s.static_blocks_per_die = static_cast<std::uint32_t>(per_die);
  const ConfigNode dyn = node.child("dynamic");
  s.dynamic_share = dyn.get_double("share_of_free", 0.0, 0.0, 1.0);
  s.dynamic_min = dyn.get_bytes("min", 0);
  s.dynamic_max = dyn.get_bytes("max", s.dynamic_share > 0 ? UINT64_MAX / 2 : 0);
  if (s.dynamic_min > s.dynamic_max) dyn.fail("min", "expected at most dynamic.max");
  if (s.static_blocks_per_die == 0 && s.dynamic_share == 0 && s.dynamic_min == 0)
    node.fail("static", "expected a static size or a dynamic share above 0");
  s.when_full = node.get_enum("when_full", {"direct", "fold_first"}, "direct") == "direct"
                    ? SlcCacheConfig::WhenFull::kDirect
                    : SlcCacheConfig::WhenFull::kFoldFirst;
  const ConfigNode fold = node.child("fold");
  s.fold_idle = fold.get_time("idle_after", 0);
  s.fold_while_writing = fold.get_bool("while_writing", false);
  return s;
}

ReadRecoveryConfig read_recovery(const ConfigNode& ecc, const ConfigNode& rain,
                                 const ConfigNode& reclaim) {
  ReadRecoveryConfig r;
  const std::uint64_t codeword = ecc.get_bytes("codeword", 1024);
  r.codeword_bytes = static_cast<std::uint32_t>(codeword);
  if (codeword == 0 || codeword > 64 * 1024)
    ecc.fail("codeword", "expected 1 byte to 64 KiB of data per codeword");
  r.correctable_bits = static_cast<std::uint32_t>(ecc.get_int("correctable_bits", 40, 0, 4096));
  if (ecc.has("retry")) {
    for (const ConfigNode& step : ecc.children("retry")) {
      ReadRecoveryConfig::RetryStep s;
      s.rber_scale = step.get_double("rber_scale", 0, 1);
      s.senses = static_cast<std::uint32_t>(step.get_int("senses", 1, 1, 15));
      r.retry.push_back(s);
    }
    if (r.retry.size() > 32) ecc.fail("retry", "expected at most 32 read-retry steps");
  }
  r.xor_bytes_per_s = rain.get_double("xor_rate", 1.6e9, 1e6, 1e12);
  r.die_rebuilds_in_flight =
      static_cast<std::uint32_t>(rain.get_int("rebuild_in_flight", 4, 1, 256));
  r.reclaim_reads = static_cast<std::uint32_t>(reclaim.get_int("reads", 0, 0, 1 << 30));
  r.reclaim_retry_step = static_cast<std::uint32_t>(
      reclaim.get_int("retry_step", 0, 0, static_cast<std::int64_t>(r.retry.size())));
  return r;
}

// ftl.rain.span: dies. Super-blocks are allocated in lockstep over groups
// of `stripe` dies (ftl/super_blocks.h); what that layout does not model is
// refused here rather than simulated wrongly.
void check_span_dies(const ConfigNode& rain, const FtlConfig& c, const Geometry& geo) {
  if (c.rain_stripe < 2)
    rain.fail("span", "span: dies needs rain.stripe of at least 2 (dies per stripe)");
  if (c.rain_stripe > 64) rain.fail("stripe", "span: dies supports at most 64 dies per stripe");
  if (geo.dies() % c.rain_stripe != 0)
    rain.fail("stripe", "span: dies needs the die count (" + std::to_string(geo.dies()) +
                            ") to be a multiple of rain.stripe (" + std::to_string(c.rain_stripe) +
                            ")");
  if (c.slc.enabled)
    rain.fail("span", "span: dies does not model an SLC cache (ftl.slc_cache): remove one of them");
}

FdpConfig read_fdp(const ConfigNode& fdp, const FtlConfig& c, const Geometry& geo) {
  FdpConfig f;
  if (!fdp.has("handles")) {
    if (fdp.has("reclaim_unit"))
      fdp.fail("handles", "expected the reclaim unit handles ([initially_isolated, ...])");
    return f;
  }
  f.enabled = true;
  f.persistent.clear();
  const std::vector<std::string> types = {"initially_isolated", "persistently_isolated"};
  const std::vector<std::string> given = fdp.get_value_texts("handles");
  if (given.size() > FdpConfig::kMaxHandles)
    fdp.fail("handles", "expected at most " + std::to_string(FdpConfig::kMaxHandles) +
                            " reclaim unit handles");
  for (const std::string& t : given) {
    if (t != types[0] && t != types[1])
      fdp.fail("handles",
               "expected each handle's type: initially_isolated or persistently_isolated, not '" +
                   t + "'");
    f.persistent.push_back(t == types[1]);
  }
  // The erase unit is the die-block (every plane's block of one index).
  const std::uint64_t erase_unit = std::uint64_t{geo.slots_per_die_block()} * kSectorBytes;
  const std::uint64_t ru = fdp.get_bytes("reclaim_unit", erase_unit);
  if (ru == 0 || ru % erase_unit != 0)
    fdp.fail("reclaim_unit", "expected a multiple of the erase unit (" +
                                 std::to_string(erase_unit) +
                                 " bytes: a block on each plane of a die)");
  f.reclaim_unit_slots = ru / kSectorBytes;
  // One reclaim group: every die. (Several would bind handles to dies.)
  fdp.get_int("reclaim_groups", 1, 1, 1);
  if (c.slc.enabled)
    fdp.fail("handles",
             "FDP here keeps each handle's data in native-mode blocks: remove ftl.slc_cache");
  if (c.rain_span_dies) fdp.fail("handles", "FDP is not modelled with ftl.rain.span: dies");
  return f;
}

// ftl.zoned: the zones must fit the flash with their blocks whole (a
// zone's reset erases them, so no two zones share one).
ZonedConfig read_zoned(const ConfigNode& node, const ConfigNode& drive, std::uint64_t user_bytes,
                       const Geometry& geo) {
  ZonedConfig z;
  const auto pages = [&](const char* key) {
    const std::uint64_t b = node.get_bytes(key);
    if (b == 0 || b % kSectorBytes != 0) node.fail(key, "expected a whole number of 4 KiB pages");
    return b / kSectorBytes;
  };
  z.zone_slots = pages("zone_size");
  z.capacity_slots = pages("zone_capacity");
  if (z.capacity_slots > z.zone_slots) node.fail("zone_capacity", "expected at most zone_size");
  const std::uint64_t user_slots = user_bytes / kSectorBytes;
  // Commands carry their first page in 32 bits (HostCommand::first_page).
  if (user_slots > 0xFFFFFFFFull) drive.fail("user_capacity", "expected less than 16 TiB");
  if (user_slots % z.zone_slots != 0)
    drive.fail("user_capacity", "expected a whole number of zones (ftl.zoned.zone_size " +
                                    std::to_string(z.zone_slots * kSectorBytes) + " bytes)");
  z.zones = static_cast<std::uint32_t>(user_slots / z.zone_slots);
  z.stripe_dies = static_cast<std::uint32_t>(node.get_int("stripe_dies", 1, 1, geo.dies()));
  if (geo.dies() % z.stripe_dies != 0)
    node.fail("stripe_dies",
              "expected a divisor of the drive's " + std::to_string(geo.dies()) + " dies");
  z.max_active = static_cast<std::uint32_t>(node.get_int("max_active_zones", 1, z.zones));
  z.max_open =
      static_cast<std::uint32_t>(node.get_int("max_open_zones", z.max_active, 1, z.max_active));
  const std::uint64_t stripe_slots = std::uint64_t{z.stripe_dies} * geo.slots_per_die_block();
  z.blocks_per_die =
      static_cast<std::uint32_t>((z.capacity_slots + stripe_slots - 1) / stripe_slots);
  const std::uint32_t groups = geo.dies() / z.stripe_dies;
  const std::uint64_t zones_per_group = (z.zones + groups - 1) / groups;
  if (zones_per_group * z.blocks_per_die > geo.blocks_per_plane)
    drive.fail("user_capacity",
               std::to_string(z.zones) + " zones of " + std::to_string(z.blocks_per_die) +
                   " die-blocks on each of their dies need " +
                   std::to_string(zones_per_group * z.blocks_per_die) +
                   " blocks per plane; the NAND has " + std::to_string(geo.blocks_per_plane));
  return z;
}

}  // namespace

FtlConfig FtlConfig::from_config(const ConfigNode& drive, const Geometry& geo,
                                 bool slc_timing_present, Tick hmb_round_trip) {
  FtlConfig c;
  // Drives sell decimal capacities; the host sees whole 4 KiB logical pages.
  c.user_bytes = drive.get_bytes("user_capacity") / kSectorBytes * kSectorBytes;
  if (c.user_bytes == 0) drive.fail("user_capacity", "expected at least 4KiB");

  const ConfigNode ctrl = drive.child("controller");
  const std::uint64_t buffer = ctrl.get_bytes("write_buffer");
  if (buffer < kSectorBytes)
    ctrl.fail("write_buffer", "expected at least 4KiB (two program units)");
  c.write_buffer_slots = static_cast<std::uint32_t>(buffer / kSectorBytes);
  c.flush_idle = ctrl.get_time("flush_idle", 0);

  const ConfigNode ftl = drive.child("ftl");
  c.kind = ftl.get_enum("kind", ftl_kind_names(), "page_mapped");
  if (c.kind == "zoned") {
    // No GC, SLC cache, map cache or FDP: their keys stay unread, and so
    // are refused as unknown. A zone's flash is written in order at fixed
    // places, so a partly filled program unit cannot be padded out and
    // completed later: it waits in the buffer, which must survive a power
    // cut (as on enterprise ZNS drives).
    c.power_loss = PowerLossConfig::from_config(ftl.child("power_loss"));
    if (!c.power_loss.protection)
      ftl.child("power_loss")
          .fail("protection",
                "expected true with ftl.kind zoned: open zones keep "
                "partial program units in the write buffer");
    c.zoned = read_zoned(ftl.child("zoned"), drive, c.user_bytes, geo);
    return c;
  }
  c.programs_queued_per_die =
      static_cast<std::uint32_t>(ftl.get_int("programs_queued_per_die", 2, 1, 64));
  const ConfigNode gc = ftl.child("gc");
  c.gc_policy = gc.get_enum("policy", gc_policy_names(), "greedy");
  c.gc_reserved_blocks = static_cast<std::uint32_t>(gc.get_int("reserved_blocks", 2, 2, 1 << 16));
  c.gc_trigger_free_blocks =
      static_cast<std::uint32_t>(gc.get_int("trigger_free_blocks", 8, 3, 1 << 16));
  if (c.gc_trigger_free_blocks <= c.gc_reserved_blocks)
    gc.fail("trigger_free_blocks",
            "expected more than gc.reserved_blocks (" + std::to_string(c.gc_reserved_blocks) + ")");
  c.gc_reads_in_flight = static_cast<std::uint32_t>(gc.get_int("reads_in_flight", 4, 1, 64));
  c.gc_whole_page_reads = gc.get_bool("whole_page_reads", false);
  c.gc_multi_plane_programs = gc.get_bool("multi_plane_programs", true);
  c.gc_erase_backlog = static_cast<std::uint32_t>(gc.get_int("erase_backlog", 2, 1, 16));
  c.gc_credit_units = gc.get_double("credit_units", 4, 1, 1024);
  c.gc_separate_cold = gc.get_bool("separate_cold", false);
  c.gc_paced = gc.get_enum("pacing", {"proportional", "none"}, "proportional") == "proportional";
  if (gc.has("urgency")) {
    if (!c.gc_paced)
      gc.fail("urgency", "urgency levels scale proportional pacing: set gc.pacing: proportional");
    for (const ConfigNode& lvl : gc.children("urgency")) {
      FtlConfig::GcUrgency u;
      u.free_below = lvl.get_double("free_below", static_cast<double>(c.gc_reserved_blocks),
                                    static_cast<double>(c.gc_trigger_free_blocks));
      u.host_share = lvl.get_double("host_share", 0.01, 100.0);
      if (!c.gc_urgency.empty() && u.free_below >= c.gc_urgency.back().free_below)
        lvl.fail("free_below", "expected levels in falling order of free_below (this one below " +
                                   format_number(c.gc_urgency.back().free_below) + ")");
      c.gc_urgency.push_back(u);
    }
  }
  const ConfigNode bg = gc.child("background");
  c.gc_background_idle = bg.get_time("idle_after", 0);
  c.gc_background_free_blocks = static_cast<std::uint32_t>(
      bg.get_int("free_blocks", 2 * std::int64_t{c.gc_trigger_free_blocks}, 0, 1 << 20));
  const ConfigNode wl = ftl.child("wear_leveling");
  c.wl_threshold = static_cast<std::uint32_t>(wl.get_int("static_threshold", 0, 0, 1 << 20));
  c.wl_interval = static_cast<std::uint32_t>(wl.get_int("check_every", 16, 1, 1 << 20));
  const ConfigNode rain = ftl.child("rain");
  c.rain_stripe = static_cast<std::uint32_t>(rain.get_int("stripe", 0, 0, 1024));
  if (c.rain_stripe == 1)
    rain.fail("stripe", "expected 0 (no parity) or at least 2 units per stripe");
  c.slc = read_slc(ftl.child("slc_cache"), geo, slc_timing_present);
  if (rain.get_enum("span", {"block", "dies"}, "block") == "dies") {
    c.rain_span_dies = c.rain_stripe;
    check_span_dies(rain, c, geo);
  }
  c.fdp = read_fdp(ftl.child("fdp"), c, geo);
  const ConfigNode bad = drive.child("nand").child("bad_blocks");
  c.bad_blocks.factory_rate = bad.get_double("factory", 0, 0, 0.5);
  c.bad_blocks.erase_fail_rate = bad.get_double("erase_fail", 0, 0, 1);
  c.bad_blocks.program_fail_rate = bad.get_double("program_fail", 0, 0, 1);
  c.bad_blocks.seed = static_cast<std::uint64_t>(bad.get_int("seed", 1, 0, INT64_MAX));
  c.bad_blocks.reserve_per_die =
      static_cast<std::uint32_t>(ftl.get_int("bad_block_reserve", 0, 0, geo.blocks_per_plane / 2));
  c.power_loss = PowerLossConfig::from_config(ftl.child("power_loss"));
  c.recovery =
      read_recovery(drive.child("controller").child("ecc"), rain, ftl.child("read_reclaim"));
  c.map = MapCacheConfig::from_config(ftl.child("map_cache"), hmb_round_trip);
  // Owners of flash slots are 31-bit logical page numbers (the top bit marks
  // translation pages).
  if (c.user_bytes / kSectorBytes >= kMapOwnerLimit)
    drive.fail("user_capacity", "expected less than 8 TiB");

  // Spare area per die must hold the GC trigger level plus the open blocks,
  // or the drive could fill up with nothing left to collect.
  const std::uint64_t block_bytes = geo.slots_per_die_block() * kSectorBytes;
  const std::uint64_t raw = geo.raw_bytes();
  if (c.user_bytes >= raw)
    drive.fail("user_capacity",
               "expected less than the raw flash capacity (" + std::to_string(raw) + " bytes)");
  // Static SLC blocks hold no user data in native mode: they come out of
  // the spare area.
  // RAIN parity takes one program unit in `rain_stripe` of every block.
  const std::uint64_t data_raw = c.rain_stripe ? raw / c.rain_stripe * (c.rain_stripe - 1) : raw;
  if (c.user_bytes >= data_raw)
    drive.fail("user_capacity", "expected less than the flash capacity left after RAIN parity (" +
                                    std::to_string(data_raw) + " bytes)");
  const std::uint64_t spare_blocks = (data_raw - c.user_bytes) / block_bytes / geo.dies();
  // So do the bad-block reserve's spares.
  // Each FDP handle beyond the first holds an open block per die, and a
  // persistently isolated one another for its GC stream.
  std::uint64_t fdp_open = c.fdp.handles() - 1;
  for (std::size_t h = 0; h < c.fdp.persistent.size(); ++h) fdp_open += c.fdp.persistent[h];
  const std::uint64_t held =
      std::uint64_t{c.slc.static_blocks_per_die} + c.bad_blocks.reserve_per_die + fdp_open;
  const std::uint64_t spare_per_die = spare_blocks - held;
  if (spare_blocks < held || spare_per_die < c.gc_trigger_free_blocks + 2)
    drive.fail("user_capacity",
               "leaves " + std::to_string(static_cast<std::int64_t>(spare_per_die)) +
                   " spare blocks per die after the static SLC cache and the bad-block "
                   "reserve; garbage collection "
                   "needs at least ftl.gc.trigger_free_blocks + 2 (" +
                   std::to_string(c.gc_trigger_free_blocks + 2) + ")");
  c.bad_blocks.slack_per_die =
      static_cast<std::uint32_t>(spare_per_die - (c.gc_trigger_free_blocks + 2));
  return c;
}

}  // namespace ssdtwin
