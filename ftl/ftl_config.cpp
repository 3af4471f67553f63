#include "ftl/ftl_config.h"

#include <string>

#include "ftl/gc_policy.h"
#include "nand/geometry.h"
#include "sim/config.h"

namespace ssdtwin {

FtlConfig FtlConfig::from_config(const ConfigNode& drive, const Geometry& geo) {
  FtlConfig c;
  // Drives sell decimal capacities; the host sees whole 4 KiB logical pages.
  c.user_bytes = drive.get_bytes("user_capacity") / kSectorBytes * kSectorBytes;
  if (c.user_bytes == 0) drive.fail("user_capacity", "expected at least 4KiB");

  const ConfigNode ctrl = drive.child("controller");
  const std::uint64_t buffer = ctrl.get_bytes("write_buffer");
  c.write_buffer_slots = static_cast<std::uint32_t>(buffer / kSectorBytes);
  c.flush_idle = ctrl.get_time("flush_idle", 0);

  const ConfigNode ftl = drive.child("ftl");
  c.programs_queued_per_die =
      static_cast<std::uint32_t>(ftl.get_int("programs_queued_per_die", 2, 1, 64));
  const ConfigNode gc = ftl.child("gc");
  c.gc_policy = gc.get_enum("policy", gc_policy_names(), "greedy");
  c.gc_reserved_blocks = static_cast<std::uint32_t>(gc.get_int("reserved_blocks", 2, 2, 1 << 16));
  c.gc_trigger_free_blocks =
      static_cast<std::uint32_t>(gc.get_int("trigger_free_blocks", 8, 3, 1 << 16));
  if (c.gc_trigger_free_blocks <= c.gc_reserved_blocks)
    gc.fail("trigger_free_blocks", "expected more than gc.reserved_blocks (" +
                                       std::to_string(c.gc_reserved_blocks) + ")");
  c.gc_reads_in_flight = static_cast<std::uint32_t>(gc.get_int("reads_in_flight", 4, 1, 64));

  // Spare area per die must hold the GC trigger level plus the open blocks,
  // or the drive could fill up with nothing left to collect.
  const std::uint64_t block_bytes = geo.slots_per_die_block() * kSectorBytes;
  const std::uint64_t raw = geo.raw_bytes();
  if (c.user_bytes >= raw)
    drive.fail("user_capacity", "expected less than the raw flash capacity (" +
                                    std::to_string(raw) + " bytes)");
  const std::uint64_t spare_per_die = (raw - c.user_bytes) / block_bytes / geo.dies();
  if (spare_per_die < c.gc_trigger_free_blocks + 2)
    drive.fail("user_capacity",
               "leaves " + std::to_string(spare_per_die) +
                   " spare blocks per die; garbage collection needs at least "
                   "ftl.gc.trigger_free_blocks + 2 (" +
                   std::to_string(c.gc_trigger_free_blocks + 2) + ")");
  return c;
}

}  // namespace ssdtwin
