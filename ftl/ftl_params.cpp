#include "ftl/ftl_params.h"

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>

#include "ftl/controller.h"
#include "ftl/ftl_kinds.h"
#include "ftl/gc/gc_policy.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl/slc/slc_policy.h"
#include "nand/geometry.h"
#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

namespace {

// Static bounds of ranges the geometry narrows: nand.channels and
// nand.dies_per_channel are at most 64, nand.blocks_per_plane 2^20, and
// commands address 32-bit pages.
constexpr std::int64_t kMaxDies = 64 * 64;
constexpr std::int64_t kMaxReserve = (1 << 20) / 2;
constexpr std::int64_t kMaxZones = 0xFFFFFFFF;

// The drive's top-level keys the FTL reads.
const ParamSection kNandSection{
    "drive.nand", "", {param::map("bad_blocks", "blocks bad from the factory or failing in use")}};

const ParamSection kBadBlocksSection{
    "drive.nand.bad_blocks",
    "Bad blocks: those marked at the factory and those that fail in service; spares from "
    "ftl.bad_block_reserve replace them.",
    {
        param::real("factory", "0", 0, 0.5, "", "share of blocks bad from the factory"),
        param::real("erase_fail", "0", 0, 1, "", "probability that an erase fails"),
        param::real("program_fail", "0", 0, 1, "", "probability that a program fails"),
        param::integer("seed", "1", 0, INT64_MAX, "",
                       "seed of the bad-block random stream (a stream of its own)"),
    }};

// The controller's keys the FTL reads (the rest: ftl/controller.cpp).
const ParamSection kControllerSection{
    "drive.controller",
    "",
    {
        param::time("flush_idle", "0",
                    "pad and program a partial program unit after this host idle time (0: never)"),
        param::map("ecc", "the ECC engine and the read-retry steps tried when a decode fails"),
    }};

const ParamSection kEccSection{
    "drive.controller.ecc",
    "The controller's ECC: a read fails when a codeword holds more bit errors than the code "
    "corrects, and is then retried (used only with a NAND error model).",
    {
        param::bytes("codeword", "1KiB", "data bytes per ECC codeword, 1 byte to 64KiB"),
        param::integer("correctable_bits", "40", 0, 4096, "bits",
                       "bit errors one codeword's decode corrects"),
        param::maps("retry",
                    "read-retry steps tried in order after the first decode fails, at "
                    "most 32 (absent: none)"),
    }};

const ParamSection kRetrySection{
    "drive.controller.ecc.retry[]",
    "One read-retry step: a real re-read on the die at shifted read references.",
    {
        param::real("rber_scale", nullptr, 0, 1, "",
                    "raw bit error rate left after the step's reference shift, as a share of "
                    "the first read's"),
        param::integer("senses", "1", 1, 15, "sensings",
                       "array sensings the step takes (a soft decode senses several times)"),
    }};

const ParamSection kFtlSection{
    "drive.ftl",
    "The flash translation layer. With kind zoned only power_loss and zoned are read (other "
    "keys are refused).",
    {
        param::choice("kind", "page_mapped", &ftl_kind_names,
                      "the FTL: page_mapped, or zoned (NVMe ZNS, ftl.zoned)"),
        param::integer("programs_queued_per_die", "2", 1, 64, "programs",
                       "host programs in flight per die before the buffer flush moves on"),
        param::map("map_cache", "where the mapping table is cached (default: all of it in DRAM)"),
        param::map("slc_cache", "the SLC write cache (optional; needs nand.timing.slc)"),
        param::map("gc", "garbage collection"),
        param::map("wear_leveling", "static wear levelling"),
        param::map("rain", "RAIN parity stripes and die rebuilds"),
        param::map("read_reclaim", "relocation of blocks read often or hard to read"),
        param::integer("bad_block_reserve", "0", 0, kMaxReserve, "blocks per die",
                       "spare blocks per die that replace bad ones, out of the spare area; at "
                       "most half the blocks per plane"),
        param::map("power_loss", "what a power cut loses, and the recovery"),
        param::map("fdp", "NVMe Flexible Data Placement (optional)"),
        param::map("zoned", "the zones of a zoned FTL (kind zoned only)"),
    }};

const ParamSection kGcSection{
    "drive.ftl.gc",
    "Garbage collection: when it runs, how it picks victims, how it paces the host and how it "
    "moves data.",
    {
        param::choice("policy", "greedy", &gc_policy_names,
                      "how GC picks a victim block (`ssdtwin policies`)"),
        param::integer("reserved_blocks", "2", 2, 1 << 16, "blocks per die",
                       "free blocks host writes never take"),
        param::integer("trigger_free_blocks", "8", 3, 1 << 16, "blocks per die",
                       "GC runs while fewer blocks than this are free; more than reserved_blocks"),
        param::integer("reads_in_flight", "4", 1, 64, "reads per die", "GC reads queued per die"),
        param::flag("whole_page_reads", "false",
                    "GC reads transfer every plane page holding a valid slot, whole (false: only "
                    "the valid 4KiB slots)"),
        param::flag("multi_plane_programs", "true",
                    "GC programs as one multi-plane operation (false: one plane at a time, "
                    "planes x tPROG)"),
        param::integer("erase_backlog", "2", 1, 16, "blocks per die",
                       "victims a die may have read out and waiting for their erase"),
        param::real("credit_units", "4", 1, 1024, "program units",
                    "pacing credit a die may bank, so that an easy victim cannot bank a burst"),
        param::flag("separate_cold", "false",
                    "data moved a second time gets a write point of its own (hot/cold "
                    "separation)"),
        param::choice("pacing", "proportional", "proportional|none",
                      "proportional: while a die collects, the host takes only the space "
                      "collection frees; none: the host writes freely and stalls at the reserve"),
        param::maps("urgency",
                    "levels scaling the host's share by how few blocks are free, in falling "
                    "order of free_below (optional; proportional pacing only)"),
        param::map("background", "GC in host idle time (optional)"),
    }};

const ParamSection kUrgencySection{
    "drive.ftl.gc.urgency[]",
    "One GC urgency level: below its free_below, each slot GC moves earns the host host_share "
    "times the space it frees (above 1 the pool drains, below 1 it refills).",
    {
        param::real("free_below", nullptr, 2, 1 << 16, "blocks per die",
                    "the level applies while the drive's erased blocks (average per die) are "
                    "below this; between gc.reserved_blocks and gc.trigger_free_blocks"),
        param::real("host_share", nullptr, 0.01, 100, "",
                    "the host's share of the space each GC move frees"),
    }};

const ParamSection kBackgroundSection{
    "drive.ftl.gc.background",
    "Background GC: collection in host idle time.",
    {
        param::time("idle_after", "0", "host idle time before background GC starts (0: never)"),
        param::integer("free_blocks", "(2 x trigger_free_blocks)", 0, 1 << 20, "blocks per die",
                       "background GC collects until each die has this many erased blocks"),
    }};

const ParamSection kWearLevelingSection{
    "drive.ftl.wear_leveling",
    "Static wear levelling: a cold full block is collected when a die's erase counts spread "
    "too far.",
    {
        param::integer("static_threshold", "0", 0, 1 << 20, "erases",
                       "collect the coldest full block when the die's highest erase count "
                       "exceeds its count by more than this (0: off)"),
        param::integer("check_every", "16", 1, 1 << 20, "erases",
                       "erases of a die between looks for a cold block"),
    }};

const ParamSection kRainSection{
    "drive.ftl.rain",
    "RAIN: parity over stripes of program units, which rebuilds a read the ECC cannot correct "
    "(and with span dies a failed die).",
    {
        param::integer("stripe", "0", 0, 1024, "program units",
                       "program units per stripe, the last their parity (0: no parity, else at "
                       "least 2)"),
        param::choice("span", "block", "block|dies",
                      "block: a stripe's units lie in one block; dies: unit k of a super-block "
                      "on each of `stripe` dies, so that a stripe survives a die's loss"),
        param::real("xor_rate", "1.6e9", 1e6, 1e12, "bytes per second",
                    "the controller's XOR engine rate for rebuilds"),
        param::integer("rebuild_in_flight", "4", 1, 256, "die-pages",
                       "die-pages a failed die's rebuild has under way at once (span dies)"),
    }};

const ParamSection kReadReclaimSection{
    "drive.ftl.read_reclaim",
    "Read reclaim: relocation of a block before its data becomes unreadable.",
    {
        param::integer("reads", "0", 0, 1 << 30, "reads",
                       "relocate a block read this often since its erase (0: off)"),
        param::integer("retry_step", "0", 0, 32, "",
                       "relocate a block whose read needed this many retry steps (0: off); at "
                       "most the number of ecc.retry steps"),
    }};

const ParamSection kSlcSection{
    "drive.ftl.slc_cache",
    "The SLC write cache: blocks of the native part programmed one bit per cell, later folded "
    "into native mode. Off unless static or dynamic is given.",
    {
        param::bytes("static", "0", "SLC data capacity of dedicated blocks"),
        param::map("dynamic", "normal blocks written in SLC mode"),
        param::choice("policy", "reclaim", &slc_policy_names,
                      "the SLC cache policy (`ssdtwin policies`)"),
        param::choice("when_full", "direct", "direct|fold_first",
                      "a write finding the cache full: direct (write native) or fold_first "
                      "(wait for folding)"),
        param::map("fold", "when SLC data moves to native mode"),
    }};

const ParamSection kSlcDynamicSection{
    "drive.ftl.slc_cache.dynamic",
    "The dynamic SLC region: SLC capacity of up to a share of the free user capacity, clamped "
    "to [min, max], from the normal pool.",
    {
        param::real("share_of_free", "0", 0, 1, "", "share of the free user capacity"),
        param::bytes("min", "0", "least SLC capacity; at most max"),
        param::bytes("max", "(unlimited with share_of_free above 0, else 0)", "most SLC capacity"),
    }};

const ParamSection kSlcFoldSection{
    "drive.ftl.slc_cache.fold",
    "Folding: SLC data moved into native-mode blocks.",
    {
        param::time("idle_after", "0", "fold after the host has been idle this long (0: never)"),
        param::flag("while_writing", "false",
                    "fold while host writes go on, once a die's cache is full"),
    }};

const ParamSection kFdpSection{
    "drive.ftl.fdp",
    "NVMe Flexible Data Placement (TP4146): reclaim unit handles, each writing its own reclaim "
    "unit, selected by the host's placement identifiers. Off unless handles is given.",
    {
        param::values("handles",
                      "the handles' types, at most 16: initially_isolated (GC may mix its data "
                      "with other such handles') or persistently_isolated (its data stays apart)"),
        param::bytes("reclaim_unit", "(the erase unit: a block on each plane of a die)",
                     "size of a reclaim unit, a multiple of the erase unit"),
        param::integer("reclaim_groups", "1", 1, 1, "",
                       "reclaim groups (one group of every die; more are not modelled)"),
    }};

const ParamSection kZonedSection{
    "drive.ftl.zoned",
    "The zones of a zoned FTL (NVMe ZNS): drive.user_capacity is zones x zone_size, and a "
    "zone's flash is whole die-blocks.",
    {
        param::bytes("zone_size", nullptr, "LBA span of a zone, a whole number of 4KiB pages"),
        param::bytes("zone_capacity", nullptr,
                     "writable bytes of a zone, a whole number of 4KiB pages, at most zone_size"),
        param::integer("stripe_dies", "1", 1, kMaxDies, "dies",
                       "dies a zone's program units go round-robin over; a divisor of the "
                       "drive's dies"),
        param::integer("max_active_zones", nullptr, 1, kMaxZones, "zones",
                       "zones open or closed at once; at most the zones"),
        param::integer("max_open_zones", "(max_active_zones)", 1, kMaxZones, "zones",
                       "zones open (implicitly or explicitly) at once; at most max_active_zones"),
    }};

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

SlcCacheConfig read_slc(const Params& p, const Geometry& geo, bool slc_timing_present) {
  SlcCacheConfig s;
  if (!p.has("static") && !p.has("dynamic")) {
    // Present but empty, or absent: no cache; other keys here would be unread.
    return s;
  }
  if (geo.native_mode == CellMode::kSlc)
    p.fail("static", "an SLC part has no SLC cache: remove ftl.slc_cache");
  if (!slc_timing_present)
    p.fail(p.has("static") ? "static" : "dynamic",
           "an SLC cache needs SLC timings: add nand.timing.slc");
  s.enabled = true;
  s.policy = p.choice("policy");
  s.static_bytes = p.bytes("static");
  const std::uint64_t slc_block_bytes =
      std::uint64_t{geo.pages_in_mode(CellMode::kSlc)} * geo.slots_per_die_page() * kSectorBytes;
  const std::uint64_t per_die =
      (s.static_bytes + slc_block_bytes * geo.dies() - 1) / (slc_block_bytes * geo.dies());
  s.static_blocks_per_die = static_cast<std::uint32_t>(per_die);
  const Params dyn = p.child("dynamic", kSlcDynamicSection);
  s.dynamic_share = dyn.real("share_of_free");
  s.dynamic_min = dyn.bytes("min");
  s.dynamic_max = dyn.bytes("max", s.dynamic_share > 0 ? UINT64_MAX / 2 : 0);
  if (s.dynamic_min > s.dynamic_max) dyn.fail("min", "expected at most dynamic.max");
  if (s.static_blocks_per_die == 0 && s.dynamic_share == 0 && s.dynamic_min == 0)
    p.fail("static", "expected a static size or a dynamic share above 0");
  s.when_full = p.choice("when_full") == "direct" ? SlcCacheConfig::WhenFull::kDirect
                                                  : SlcCacheConfig::WhenFull::kFoldFirst;
  const Params fold = p.child("fold", kSlcFoldSection);
  s.fold_idle = fold.time("idle_after");
  s.fold_while_writing = fold.flag("while_writing");
  return s;
}

ReadRecoveryConfig read_recovery(const Params& ecc, const Params& rain, const Params& reclaim) {
  ReadRecoveryConfig r;
  const std::uint64_t codeword = ecc.bytes("codeword");
  r.codeword_bytes = static_cast<std::uint32_t>(codeword);
  if (codeword == 0 || codeword > 64 * 1024)
    ecc.fail("codeword", "expected 1 byte to 64 KiB of data per codeword");
  r.correctable_bits = static_cast<std::uint32_t>(ecc.integer("correctable_bits"));
  if (ecc.has("retry")) {
    for (const Params& step : ecc.children("retry", kRetrySection)) {
      ReadRecoveryConfig::RetryStep s;
      s.rber_scale = step.real("rber_scale");
      s.senses = static_cast<std::uint32_t>(step.integer("senses"));
      r.retry.push_back(s);
    }
    if (r.retry.size() > 32) ecc.fail("retry", "expected at most 32 read-retry steps");
  }
  r.xor_bytes_per_s = rain.real("xor_rate");
  r.die_rebuilds_in_flight = static_cast<std::uint32_t>(rain.integer("rebuild_in_flight"));
  r.reclaim_reads = static_cast<std::uint32_t>(reclaim.integer("reads"));
  const std::int64_t retry_step =
      reclaim.integer_within("retry_step", 0, static_cast<std::int64_t>(r.retry.size()));
  r.reclaim_retry_step = static_cast<std::uint32_t>(retry_step);
  return r;
}

// ftl.rain.span: dies. Super-blocks are allocated in lockstep over groups
// of `stripe` dies (ftl/blocks/super_blocks.h); what that layout does not model is
// refused here rather than simulated wrongly.
void check_span_dies(const Params& rain, const FtlConfig& c, const Geometry& geo) {
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

FdpConfig read_fdp(const Params& fdp, const FtlConfig& c, const Geometry& geo) {
  FdpConfig f;
  if (!fdp.has("handles")) {
    if (fdp.has("reclaim_unit"))
      fdp.fail("handles", "expected the reclaim unit handles ([initially_isolated, ...])");
    return f;
  }
  f.enabled = true;
  f.persistent.clear();
  const std::vector<std::string> types = {"initially_isolated", "persistently_isolated"};
  const std::vector<std::string> given = fdp.values("handles");
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
  const std::uint64_t ru = fdp.bytes("reclaim_unit", erase_unit);
  if (ru == 0 || ru % erase_unit != 0)
    fdp.fail("reclaim_unit", "expected a multiple of the erase unit (" +
                                 std::to_string(erase_unit) +
                                 " bytes: a block on each plane of a die)");
  f.reclaim_unit_slots = ru / kSectorBytes;
  // One reclaim group: every die. (Several would bind handles to dies.)
  fdp.integer("reclaim_groups");
  if (c.slc.enabled)
    fdp.fail("handles",
             "FDP here keeps each handle's data in native-mode blocks: remove ftl.slc_cache");
  if (c.rain_span_dies) fdp.fail("handles", "FDP is not modelled with ftl.rain.span: dies");
  return f;
}

// ftl.zoned: the zones must fit the flash with their blocks whole (a
// zone's reset erases them, so no two zones share one).
ZonedConfig read_zoned(const Params& p, const Params& drive, std::uint64_t user_bytes,
                       const Geometry& geo) {
  ZonedConfig z;
  const auto pages = [&](const char* key) {
    const std::uint64_t b = p.bytes(key);
    if (b == 0 || b % kSectorBytes != 0) p.fail(key, "expected a whole number of 4 KiB pages");
    return b / kSectorBytes;
  };
  z.zone_slots = pages("zone_size");
  z.capacity_slots = pages("zone_capacity");
  if (z.capacity_slots > z.zone_slots) p.fail("zone_capacity", "expected at most zone_size");
  const std::uint64_t user_slots = user_bytes / kSectorBytes;
  // Commands carry their first page in 32 bits (HostCommand::first_page).
  if (user_slots > 0xFFFFFFFFull) drive.fail("user_capacity", "expected less than 16 TiB");
  if (user_slots % z.zone_slots != 0)
    drive.fail("user_capacity", "expected a whole number of zones (ftl.zoned.zone_size " +
                                    std::to_string(z.zone_slots * kSectorBytes) + " bytes)");
  z.zones = static_cast<std::uint32_t>(user_slots / z.zone_slots);
  const std::int64_t stripe_dies = p.integer_within("stripe_dies", 1, geo.dies());
  z.stripe_dies = static_cast<std::uint32_t>(stripe_dies);
  if (geo.dies() % z.stripe_dies != 0)
    p.fail("stripe_dies",
           "expected a divisor of the drive's " + std::to_string(geo.dies()) + " dies");
  const std::int64_t max_active = p.integer_within("max_active_zones", 1, z.zones);
  z.max_active = static_cast<std::uint32_t>(max_active);
  const std::int64_t max_open = p.integer_within("max_open_zones", z.max_active, 1, z.max_active);
  z.max_open = static_cast<std::uint32_t>(max_open);
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

std::vector<const ParamSection*> ftl_params() {
  return {&kControllerSection, &kEccSection,          &kRetrySection,   &kNandSection,
          &kBadBlocksSection,  &kFtlSection,          &kGcSection,      &kUrgencySection,
          &kBackgroundSection, &kWearLevelingSection, &kRainSection,    &kReadReclaimSection,
          &kSlcSection,        &kSlcDynamicSection,   &kSlcFoldSection, &kFdpSection,
          &kZonedSection};
}

FtlConfig read_ftl_config(const Params& drive, const Geometry& geo, bool slc_timing_present,
                          Tick hmb_round_trip) {
  FtlConfig c;
  // Drives sell decimal capacities; the host sees whole 4 KiB logical pages.
  c.user_bytes = drive.bytes("user_capacity") / kSectorBytes * kSectorBytes;
  if (c.user_bytes == 0) drive.fail("user_capacity", "expected at least 4KiB");

  // The write buffer is declared with the controller's keys.
  const ConfigNode ctrl_node = drive.map("controller");
  const Params ctrl(ctrl_node, kControllerSection);
  const Params ctrl_buffer(ctrl_node, ControllerConfig::params());
  const std::uint64_t buffer = ctrl_buffer.bytes("write_buffer");
  if (buffer < kSectorBytes)
    ctrl.fail("write_buffer", "expected at least 4KiB (two program units)");
  c.write_buffer_slots = static_cast<std::uint32_t>(buffer / kSectorBytes);
  c.flush_idle = ctrl.time("flush_idle");

  const Params ftl = drive.child("ftl", kFtlSection);
  c.kind = ftl.choice("kind");
  if (c.kind == "zoned") {
    // No GC, SLC cache, map cache or FDP: their keys stay unread, and so
    // are refused as unknown. A zone's flash is written in order at fixed
    // places, so a partly filled program unit cannot be padded out and
    // completed later: it waits in the buffer, which must survive a power
    // cut (as on enterprise ZNS drives).
    const ConfigNode power_loss = ftl.map("power_loss");
    c.power_loss = PowerLossConfig::from_config(power_loss);
    if (!c.power_loss.protection)
      power_loss.fail("protection",
                      "expected true with ftl.kind zoned: open zones keep "
                      "partial program units in the write buffer");
    c.zoned = read_zoned(ftl.child("zoned", kZonedSection), drive, c.user_bytes, geo);
    return c;
  }
  c.programs_queued_per_die = static_cast<std::uint32_t>(ftl.integer("programs_queued_per_die"));
  const Params gc = ftl.child("gc", kGcSection);
  c.gc_policy = gc.choice("policy");
  c.gc_reserved_blocks = static_cast<std::uint32_t>(gc.integer("reserved_blocks"));
  c.gc_trigger_free_blocks = static_cast<std::uint32_t>(gc.integer("trigger_free_blocks"));
  if (c.gc_trigger_free_blocks <= c.gc_reserved_blocks)
    gc.fail("trigger_free_blocks",
            "expected more than gc.reserved_blocks (" + std::to_string(c.gc_reserved_blocks) + ")");
  c.gc_reads_in_flight = static_cast<std::uint32_t>(gc.integer("reads_in_flight"));
  c.gc_whole_page_reads = gc.flag("whole_page_reads");
  c.gc_multi_plane_programs = gc.flag("multi_plane_programs");
  c.gc_erase_backlog = static_cast<std::uint32_t>(gc.integer("erase_backlog"));
  c.gc_credit_units = gc.real("credit_units");
  c.gc_separate_cold = gc.flag("separate_cold");
  c.gc_paced = gc.choice("pacing") == "proportional";
  if (gc.has("urgency")) {
    if (!c.gc_paced)
      gc.fail("urgency", "urgency levels scale proportional pacing: set gc.pacing: proportional");
    for (const Params& lvl : gc.children("urgency", kUrgencySection)) {
      FtlConfig::GcUrgency u;
      u.free_below = lvl.real_within("free_below", static_cast<double>(c.gc_reserved_blocks),
                                     static_cast<double>(c.gc_trigger_free_blocks));
      u.host_share = lvl.real("host_share");
      if (!c.gc_urgency.empty() && u.free_below >= c.gc_urgency.back().free_below)
        lvl.fail("free_below", "expected levels in falling order of free_below (this one below " +
                                   format_number(c.gc_urgency.back().free_below) + ")");
      c.gc_urgency.push_back(u);
    }
  }
  const Params bg = gc.child("background", kBackgroundSection);
  c.gc_background_idle = bg.time("idle_after");
  c.gc_background_free_blocks = static_cast<std::uint32_t>(
      bg.integer("free_blocks", 2 * std::int64_t{c.gc_trigger_free_blocks}));
  const Params wl = ftl.child("wear_leveling", kWearLevelingSection);
  c.wl_threshold = static_cast<std::uint32_t>(wl.integer("static_threshold"));
  c.wl_interval = static_cast<std::uint32_t>(wl.integer("check_every"));
  const Params rain = ftl.child("rain", kRainSection);
  c.rain_stripe = static_cast<std::uint32_t>(rain.integer("stripe"));
  if (c.rain_stripe == 1)
    rain.fail("stripe", "expected 0 (no parity) or at least 2 units per stripe");
  c.slc = read_slc(ftl.child("slc_cache", kSlcSection), geo, slc_timing_present);
  if (rain.choice("span") == "dies") {
    c.rain_span_dies = c.rain_stripe;
    check_span_dies(rain, c, geo);
  }
  c.fdp = read_fdp(ftl.child("fdp", kFdpSection), c, geo);
  const Params bad = drive.child("nand", kNandSection).child("bad_blocks", kBadBlocksSection);
  c.bad_blocks.factory_rate = bad.real("factory");
  c.bad_blocks.erase_fail_rate = bad.real("erase_fail");
  c.bad_blocks.program_fail_rate = bad.real("program_fail");
  c.bad_blocks.seed = static_cast<std::uint64_t>(bad.integer("seed"));
  const std::int64_t reserve = ftl.integer_within("bad_block_reserve", 0, geo.blocks_per_plane / 2);
  c.bad_blocks.reserve_per_die = static_cast<std::uint32_t>(reserve);
  c.power_loss = PowerLossConfig::from_config(ftl.map("power_loss"));
  c.recovery = read_recovery(ctrl.child("ecc", kEccSection), rain,
                             ftl.child("read_reclaim", kReadReclaimSection));
  c.map = MapCacheConfig::from_config(ftl.map("map_cache"), hmb_round_trip);
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
