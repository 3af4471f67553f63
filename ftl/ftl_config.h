// FTL and controller-memory parameters read from the drive config.
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
struct Geometry;

struct FtlConfig {
  std::uint64_t user_bytes = 0;              // drive.user_capacity
  std::uint32_t write_buffer_slots = 0;      // drive.controller.write_buffer / 4 KiB
  Tick flush_idle = 0;                       // pad and flush a partial unit after this idle time (0: never)
  std::uint32_t programs_queued_per_die = 2; // host programs in flight per die before the flush moves on
  std::string gc_policy = "greedy";
  std::uint32_t gc_trigger_free_blocks = 8;  // per die
  std::uint32_t gc_reserved_blocks = 2;      // per die, never given to host writes
  std::uint32_t gc_reads_in_flight = 4;      // per die
  std::uint64_t seed = 1;

  // `drive` is the drive root node; reads user_capacity, controller.* and ftl.*.
  static FtlConfig from_config(const ConfigNode& drive, const Geometry& geo);
};

}  // namespace ssdtwin
