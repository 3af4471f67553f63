// What the controller asks of a flash translation layer: the host-facing
// side of an FTL, whatever its kind (page-mapped today; a zoned FTL is
// another implementation of the same seam). The controller sees logical
// pages of the drive's internal space, already translated from the
// namespace's (ftl/namespaces.h), and the write stream their placement
// handle selects.
//
// Implementations register by name in ftl/ftl_kinds.cpp (`ftl.kind`).
#pragma once

#include <cstdint>

#include "ftl/address.h"
#include "ftl/ftl_stats.h"
#include "ftl/host_command.h"
#include "sim/time.h"

namespace ssdtwin {

class FirmwareCores;
class EventEngine;
class NandArray;
class ErrorModel;
struct FtlConfig;

// What every FTL kind is built from (its factory's argument).
struct FtlParts {
  EventEngine& engine;
  NandArray& nand;
  const FtlConfig& cfg;
  bool verify;
  const ErrorModel* errors;  // null: reads see no errors
};

// What an FTL tells the controller.
class FtlListener {
 public:
  virtual ~FtlListener() = default;
  // A flash read issued for host command `cmd` has its `bytes` in controller memory.
  virtual void on_read_data(std::uint64_t cmd, std::uint32_t bytes) = 0;
  // Write-buffer space was released: reservations that failed may succeed now.
  virtual void on_buffer_space() = 0;
  // A part of read `cmd` that waited for its mapping (ReadPlan::deferred)
  // has it now; `plan` is that part's flash reads and immediate data.
  virtual void on_read_resumed(std::uint64_t cmd, const struct ReadPlan& plan) = 0;
  // durable_seq() reached what make_durable last asked for.
  virtual void on_durable() {}
  // The flash work of zone management command `cmd` (a finish's padding
  // program, a reset's erases) is done.
  virtual void on_zone_done(std::uint64_t /*cmd*/) {}
};

struct ReadPlan {
  std::uint32_t flash_txns = 0;       // completions to wait for (on_read_data)
  std::uint32_t immediate_bytes = 0;  // data already in controller memory
  std::uint32_t deferred = 0;         // parts waiting for their mapping (on_read_resumed)
  void add(const ReadPlan& o) {
    flash_txns += o.flash_txns;
    immediate_bytes += o.immediate_bytes;
    deferred += o.deferred;
  }
};

// A write stream chosen by the host: the reclaim unit handle a placement
// identifier selects (NVMe FDP), 0 without placement.
using PlacementHandle = std::uint16_t;

class FlashTranslation {
 public:
  virtual ~FlashTranslation() = default;
  virtual void set_listener(FtlListener* l) = 0;
  // The write buffer survives a power cut (power-loss protection): a Flush
  // or FUA write need not wait for flash.
  virtual bool durable_buffer() const = 0;
  // Relocation moves take `move_time` per slot on the controller's cores.
  virtual void set_gc_firmware(FirmwareCores* cores, Tick move_time) = 0;

  // Loads what a command on [first, first + pages) will touch, so that the
  // work before it is processed hides the cache misses of large tables.
  virtual void prefetch_entries(Lpn first, std::uint32_t pages, bool write) = 0;
  // Once a write's first chunk has buffer space: the blocks of its old copies.
  virtual void prefetch_old_blocks(Lpn first, std::uint32_t pages) const = 0;
  // Controller time to look up the mapping of [first, first + count).
  virtual Tick map_access_time(Lpn first, std::uint32_t count) const = 0;

  // Write path: space for `pages` in the write buffer before the data
  // crosses the link, then the pages as they arrive, in the stream of
  // `handle`.
  virtual bool reserve_buffer(std::uint32_t pages) = 0;
  virtual void write(Lpn first, std::uint32_t count, PlacementHandle handle) = 0;
  // Issues the flash reads of [first, first + count) for host command `cmd`.
  virtual ReadPlan read(std::uint64_t cmd, Lpn first, std::uint32_t count) = 0;
  virtual void trim(Lpn first, std::uint32_t count) = 0;

  // Durability (host Flush and FUA): entries enter the write buffer
  // numbered in order; every one below durable_seq() is on flash.
  // make_durable(seq) forces out what waits below `seq` and calls the
  // listener's on_durable() once it is.
  virtual std::uint64_t buffered_seq() const = 0;
  virtual std::uint64_t durable_seq() const = 0;
  virtual void make_durable(std::uint64_t seq) = 0;

  // What the run loop and the results read of any kind: the counters, and
  // whether nothing is under way (nothing buffered that a timer or a write
  // will flush, no flash operation in flight); flush_stranded programs what
  // waits with nothing to flush it (false: nothing did).
  virtual const FtlStats& stats() const = 0;
  virtual bool quiescent() const = 0;
  virtual bool flush_stranded() = 0;

  // Zoned namespaces (NVMe ZNS). A kind without zones answers every zone
  // command with Invalid Opcode and has no zone layout.
  virtual bool zoned() const { return false; }
  // At fetch, in submission order (a zone's write pointer moves in the
  // order the host queued its writes): checks a command against the zone
  // state machine and applies its state change (implicit open, the write
  // pointer's advance). An append gets its LBA here: `first_page` (and the
  // caller moves `offset` with it). Returns the completion status.
  virtual CmdStatus check_command(HostCommand& c) {
    return c.zone == ZoneAction::kNone ? CmdStatus::kSuccess : CmdStatus::kInvalidOpcode;
  }
  // A Zone Management Send action on the zone starting at `first_page`,
  // for command `cmd`. true: its flash work is under way, and the
  // listener's on_zone_done(cmd) follows; false: done (or failed: `status`).
  virtual bool zone_manage(std::uint64_t /*cmd*/, ZoneAction /*a*/, Lpn /*first_page*/,
                           CmdStatus& status) {
    status = CmdStatus::kInvalidOpcode;
    return false;
  }
};

}  // namespace ssdtwin
