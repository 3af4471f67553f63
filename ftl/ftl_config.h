// FTL and controller-memory parameters read from the drive config
// (ftl/ftl_params.h reads them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ftl/mapping/map_cache.h"
#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
struct Geometry;
struct ParamSection;
class Params;

// The SLC write cache: blocks of the native part programmed one bit per cell
// (fast program, a fraction of the capacity), later folded into native mode.
struct SlcCacheConfig {
  bool enabled = false;
  std::string policy = "reclaim";  // ftl/slc/slc_policy.h
  std::uint64_t static_bytes = 0;  // SLC data capacity of dedicated blocks
  std::uint32_t static_blocks_per_die = 0;
  // Dynamic region: SLC capacity of up to `dynamic_share` of the free user
  // capacity, clamped to [dynamic_min, dynamic_max], from the normal pool.
  double dynamic_share = 0.0;
  std::uint64_t dynamic_min = 0;
  std::uint64_t dynamic_max = 0;
  enum class WhenFull : std::uint8_t { kDirect, kFoldFirst } when_full = WhenFull::kDirect;
  // Fold (SLC -> native) after the host has been idle this long (0: never).
  Tick fold_idle = 0;
  // Fold while host writes go on, once a die's cache is full.
  bool fold_while_writing = false;
};

// Power loss and recovery (ftl/recovery/power_loss.h): power-loss
// protection, and the map checkpoints recovery starts from.
struct PowerLossConfig {
  bool protection = false;  // capacitors (PLP)
  Tick hold_up = 0;         // what the capacitors hold the drive up for
  bool paired_page_protection = false;
  Tick boot_time = 0;  // firmware start before the rebuild
  // Map checkpoints: after this many bytes of host writes the firmware
  // writes the translation pages changed since the last one (0: none, and
  // recovery scans every programmed page). Recovery then reads the map and
  // scans only the blocks programmed since the last checkpoint.
  std::uint64_t checkpoint_every = 0;

  // ftl.power_loss
  static PowerLossConfig from_config(const ConfigNode& node);
  static const ParamSection& params();  // its keys, declared (sim/params.h)
};

// The controller's ECC and what the firmware does when a read fails it
// (ftl/recovery/read_recovery.h). Only used when the drive has a NAND error model.
struct ReadRecoveryConfig {
  std::uint32_t codeword_bytes = 1024;  // data bytes per ECC codeword
  std::uint32_t correctable_bits = 40;  // bit errors a codeword's decode corrects
  // Read-retry steps tried in order after the first decode fails: the RBER
  // left after the step's read-reference shift (fraction of the first
  // read's), and the array sensings the step takes (soft decode senses
  // several times at offset references).
  struct RetryStep {
    double rber_scale = 1;
    std::uint32_t senses = 1;
  };
  std::vector<RetryStep> retry;
  double xor_bytes_per_s = 1.6e9;  // RAIN rebuild: the controller's XOR engine
  // A failed die's rebuild (ftl.rain.span: dies): die-pages rebuilt at once
  // in the background (ftl.rain.rebuild_in_flight).
  std::uint32_t die_rebuilds_in_flight = 4;
  // Read reclaim: a block read this often since its erase, or whose read
  // needed this many retry steps, is relocated (0: off).
  std::uint32_t reclaim_reads = 0;
  std::uint32_t reclaim_retry_step = 0;
};

// Bad blocks: factory-marked ones and those that fail in service, and the
// reserve of spare blocks that replaces them (out of the spare area).
struct BadBlockConfig {
  double factory_rate = 0;       // nand.bad_blocks.factory: share of blocks bad from the factory
  double erase_fail_rate = 0;    // nand.bad_blocks.erase_fail: probability an erase fails
  double program_fail_rate = 0;  // nand.bad_blocks.program_fail: probability a program fails
  std::uint32_t reserve_per_die = 0;  // ftl.bad_block_reserve, in blocks
  // Spare blocks per die beyond what GC needs to work: bad blocks no spare
  // replaces eat into this; past it the drive is worn out.
  std::uint32_t slack_per_die = 0;
  std::uint64_t seed = 1;  // nand.bad_blocks.seed: a random stream of its own
};

// NVMe Flexible Data Placement (TP4146), `ftl.fdp`: reclaim unit handles
// the host's placement identifiers select, each with its own write stream,
// so that data of different handles never share an erase unit. A handle is
// initially isolated (GC may move its data into blocks shared with other
// initially isolated handles) or persistently isolated (its data stays
// apart through GC, in a GC stream of its own).
struct FdpConfig {
  bool enabled = false;
  std::uint64_t reclaim_unit_slots = 0;  // 4 KiB slots per reclaim unit
  std::vector<bool> persistent{false};   // per handle: persistently isolated
  std::uint32_t handles() const { return static_cast<std::uint32_t>(persistent.size()); }
  static constexpr std::uint32_t kMaxHandles = 16;
};

// The zoned FTL (`ftl.kind: zoned`, ftl/zoned_ftl.h), from `ftl.zoned`:
//
//   ftl:
//     kind: zoned
//     zoned: {zone_size: 2048MiB, zone_capacity: 1077MiB, max_open_zones: 14,
//             max_active_zones: 14, stripe_dies: 8}
//
// The namespace's LBA space (drive.user_capacity) is zones x zone_size; a
// zone's first zone_capacity bytes are writable. A zone's flash is whole
// die-blocks on `stripe_dies` dies (its program units go round-robin over
// them), so one zone writes at most as fast as those dies program.
struct ZonedConfig {
  std::uint64_t zone_slots = 0;      // zone size, 4 KiB pages
  std::uint64_t capacity_slots = 0;  // zone capacity, 4 KiB pages
  std::uint32_t zones = 0;
  std::uint32_t max_open = 0;    // open (implicitly or explicitly) at once
  std::uint32_t max_active = 0;  // open or closed at once
  std::uint32_t stripe_dies = 1;
  std::uint32_t blocks_per_die = 0;  // die-blocks a zone takes on each of its dies
};

struct FtlConfig {
  std::uint64_t user_bytes = 0;          // drive.user_capacity
  std::uint32_t write_buffer_slots = 0;  // drive.controller.write_buffer / 4 KiB
  Tick flush_idle = 0;  // pad and flush a partial unit after this idle time (0: never)
  std::uint32_t programs_queued_per_die =
      2;                             // host programs in flight per die before the flush moves on
  std::string kind = "page_mapped";  // ftl.kind (ftl/ftl_kinds.h)
  std::string gc_policy = "greedy";
  std::uint32_t gc_trigger_free_blocks = 8;  // per die
  std::uint32_t gc_reserved_blocks = 2;      // per die, never given to host writes
  std::uint32_t gc_reads_in_flight = 4;      // per die
  // How the controller carries GC data (issue 29's candidate costs). A GC
  // read transfers only the valid 4 KiB slots of the die-page it senses
  // (ONFI's change-read-column), or every plane page holding one, whole.
  bool gc_whole_page_reads = false;
  // GC programs as one multi-plane operation, or one plane at a time
  // (plane-count times tPROG) where the controller does not batch them.
  bool gc_multi_plane_programs = true;
  // Victims a die may have read out and waiting for their erase. One or two
  // keep the die busy; more would only hold blocks out of the pool.
  std::uint32_t gc_erase_backlog = 2;
  // Pacing credit a die may bank, in native program units, so that an easy
  // victim cannot bank a burst.
  double gc_credit_units = 4;
  // Foreground GC pacing: proportional (host programs on a die short of
  // blocks earn their space from the victim being collected) or none (the
  // host writes freely until the reserve, then waits for an erase).
  bool gc_paced = true;
  // GC urgency levels (ftl.gc.urgency), a firmware policy: while GC paces
  // the host, each slot moved earns `host_share` times the space it frees,
  // taken from the most urgent level whose `free_below` the drive's erased
  // blocks (average per die) are under. Above 1 the host outruns GC and
  // the pool drains; below 1 GC gets ahead and refills it. None: share 1.
  struct GcUrgency {
    double free_below = 0;
    double host_share = 1;
  };
  std::vector<GcUrgency> gc_urgency;  // free_below descending
  // Relocate data found in relocation blocks (moved before, so cold) into a
  // write point of its own, apart from data moved for the first time.
  bool gc_separate_cold = false;
  // Background GC: after this much host idle time (0: never), collect until
  // each die has gc_background_free_blocks erased blocks.
  Tick gc_background_idle = 0;
  std::uint32_t gc_background_free_blocks = 0;
  // Static wear levelling: when a die's highest erase count exceeds its
  // coldest full block's by more than this, that block is collected (0: off).
  std::uint32_t wl_threshold = 0;
  std::uint32_t wl_interval = 16;  // erases of a die between looks for a cold block
  // RAIN: the last of every `rain_stripe` program units of a block is their
  // parity (0: none; ftl/blocks/rain_stripes.h). Parity pages hold no data, so they
  // shrink the spare area.
  std::uint32_t rain_stripe = 0;
  // Where a stripe's units lie (ftl.rain.span): `block` (0 here), the units
  // of one block; or `dies` (the stripe width here), unit k of one
  // super-block on each of `rain_stripe` consecutive dies, so that a stripe
  // survives the loss of a whole die (ftl/blocks/super_blocks.h).
  std::uint32_t rain_span_dies = 0;
  std::uint64_t seed = 1;
  SlcCacheConfig slc;
  FdpConfig fdp;
  MapCacheConfig map;
  ReadRecoveryConfig recovery;
  BadBlockConfig bad_blocks;
  PowerLossConfig power_loss;
  ZonedConfig zoned;  // kind zoned only
};

}  // namespace ssdtwin
