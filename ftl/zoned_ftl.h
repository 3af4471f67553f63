// The zoned FTL (`ftl.kind: zoned`): an NVMe Zoned Namespace (ZNS) drive.
//
// The host writes each zone sequentially at its write pointer (or appends
// and lets the drive pick the LBA), and frees space by resetting whole
// zones, so the drive maps a zone to fixed flash and needs no page table
// and no garbage collection: every page programmed is a page the host
// wrote (or a finish's padding), and device write amplification is 1.
//
// Zone to flash (ftl.zoned, ftl/ftl_config.h): zone z takes
// `blocks_per_die` die-blocks on each die of its stripe group (z modulo
// the groups of `stripe_dies` consecutive dies, which are numbered
// channel-first and so sit on different channels). Its program units (a
// die-page times the cell mode's pages per program) go round-robin over
// the group's dies: one zone writes as fast as its group programs, and N
// open zones in different groups add up until the channels or all dies
// are busy.
//
// Zone states follow the NVMe ZNS state machine (NVM Express Zoned
// Namespace Command Set 1.1, section 2.1.1): Empty, Implicitly Opened,
// Explicitly Opened, Closed, Full, Read Only, Offline. Open zones (both
// kinds of opened) are limited by max_open, active ones (opened or closed)
// by max_active. A write needing an open zone beyond max_open closes an
// implicitly opened one (the longest untouched) if the active limit allows,
// as the specification lets a controller do; errors are completion
// statuses (ftl/host_command.h), counted in ZoneStats.
//
// Write buffer: the controller's, shared by the zones. A zone's data waits
// there until it fills its next program unit (the per-zone buffers of real
// ZNS controllers, carved from the same memory), and stays there while the
// zone is closed: the power-loss protection ftl.kind zoned requires keeps it
// durable. A finish pads the partial unit out and programs it; a reset
// drops what the zone buffered and erases the die-blocks it had programmed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ftl/ftl_config.h"
#include "ftl/translation.h"
#include "nand/flash_txn.h"
#include "nand/nand_array.h"
#include "sim/event_engine.h"

namespace ssdtwin {

enum class ZoneState : std::uint8_t {
  kEmpty,
  kImplicitlyOpened,
  kExplicitlyOpened,
  kClosed,
  kFull,
  kReadOnly,
  kOffline,
};
const char* zone_state_name(ZoneState s);

// Device-side zone counters of the run (summary.json `zoned`).
struct ZoneStats {
  std::uint64_t appends = 0;                // zone appends accepted
  std::uint64_t implicit_opens = 0;         // zones opened by a write
  std::uint64_t explicit_opens = 0;         // Open Zone actions that opened a zone
  std::uint64_t implicit_closes = 0;        // implicitly opened zones closed to open another
  std::uint64_t closes = 0;                 // Close Zone actions that closed a zone
  std::uint64_t finishes = 0;               // zones finished by a Finish Zone action
  std::uint64_t resets = 0;                 // zones reset (Reset Zone on a non-empty zone)
  std::uint64_t reset_erases = 0;           // die-blocks the resets erased
  std::uint64_t errors[kCmdStatuses] = {};  // commands failed, by status
};

class ZonedFtl final : public FlashTranslation, public TxnSink {
 public:
  ZonedFtl(NandArray& nand, const FtlConfig& cfg);

  void set_listener(FtlListener* l) override { listener_ = l; }
  bool durable_buffer() const override { return true; }   // required (ftl_params.cpp)
  void set_gc_firmware(FirmwareCores*, Tick) override {}  // no GC
  // The zone map is arithmetic on the LBA, not a table: nothing to load.
  void prefetch_entries(Lpn, std::uint32_t, bool) override {}
  void prefetch_old_blocks(Lpn, std::uint32_t) const override {}
  Tick map_access_time(Lpn, std::uint32_t) const override { return 0; }

  bool reserve_buffer(std::uint32_t pages) override;
  void write(Lpn first, std::uint32_t count, PlacementHandle handle) override;
  ReadPlan read(std::uint64_t cmd, Lpn first, std::uint32_t count) override;
  // Deallocation has no meaning inside a sequentially written zone:
  // check_command refuses it, so this is never reached with pages.
  void trim(Lpn, std::uint32_t) override {}
  // The buffer is durable: the controller never waits on these.
  std::uint64_t buffered_seq() const override { return 0; }
  std::uint64_t durable_seq() const override { return 0; }
  void make_durable(std::uint64_t) override {
    if (listener_) listener_->on_durable();
  }

  const FtlStats& stats() const override { return stats_; }
  // Partial units held by open or closed zones wait for the host, not for
  // a timer: only flash operations in flight count.
  bool quiescent() const override { return in_flight_ == 0; }
  bool flush_stranded() override { return false; }

  bool zoned() const override { return true; }
  CmdStatus check_command(HostCommand& c) override;
  bool zone_manage(std::uint64_t cmd, ZoneAction a, Lpn first_page, CmdStatus& status) override;

  void on_txn_complete(FlashTxn* txn) override;

  // Inspection (tests, results).
  const ZonedConfig& layout() const { return z_; }
  const ZoneStats& zone_stats() const { return zstats_; }
  ZoneState state(std::uint32_t zone) const { return zones_[zone].state; }
  // The write pointer as an offset in the zone, 4 KiB pages.
  std::uint64_t write_pointer(std::uint32_t zone) const { return zones_[zone].wp; }
  std::uint32_t open_zones() const { return open_; }
  std::uint32_t active_zones() const { return active_; }
  std::uint32_t buffer_used() const { return buffer_used_; }
  // Media failure, as firmware reports it: the zone turns Read Only (its
  // data readable, no more writes) or Offline. For fault studies and tests.
  void fail_zone(std::uint32_t zone, bool offline);

 private:
  struct Zone {
    ZoneState state = ZoneState::kEmpty;
    std::uint64_t wp = 0;         // pages accepted (the write pointer, from the zone's start)
    std::uint64_t arrived = 0;    // pages whose data reached the buffer, from the zone's start
    std::uint64_t units = 0;      // program units issued to flash
    std::uint32_t in_flight = 0;  // of them, programs not yet complete
    std::uint32_t erasing = 0;    // a reset's erases not yet complete
    std::uint64_t touched = 0;    // when last opened or written (implicit close picks the oldest)
    std::uint64_t waiting_cmd = 0;
    bool waiting = false;  // a finish or reset waits for its flash work (waiting_cmd)
  };
  static bool is_open(ZoneState s) {
    return s == ZoneState::kImplicitlyOpened || s == ZoneState::kExplicitlyOpened;
  }
  static bool is_active(ZoneState s) { return is_open(s) || s == ZoneState::kClosed; }
  CmdStatus fail(CmdStatus s) {
    ++zstats_.errors[static_cast<std::size_t>(s)];
    return s;
  }
  // Moves `zone` to `to`, keeping the open and active counts.
  void set_state(std::uint32_t zone, ZoneState to);
  // Makes room to open `zone` (Empty or Closed) and opens it; kSuccess or
  // the resource error.
  CmdStatus open_zone(std::uint32_t zone, bool explicitly);
  CmdStatus check_write(HostCommand& c, std::uint32_t zone, std::uint64_t in_zone,
                        std::uint64_t pages);
  // Issues the zone's program units whose data is all in the buffer; with
  // `pad`, the last partial one too, padded.
  void program_ready(std::uint32_t zone, bool pad);
  // Where unit `u` of `zone` lives.
  std::uint32_t die_of(std::uint32_t zone, std::uint64_t unit) const {
    return (zone % groups_) * z_.stripe_dies + static_cast<std::uint32_t>(unit % z_.stripe_dies);
  }
  std::uint32_t block_of(std::uint32_t zone, std::uint64_t unit) const {
    return static_cast<std::uint32_t>((zone / groups_) * z_.blocks_per_die +
                                      unit / z_.stripe_dies / units_per_block_);
  }
  std::uint32_t page_of(std::uint64_t unit) const {
    return static_cast<std::uint32_t>(unit / z_.stripe_dies % units_per_block_ * ppp_);
  }
  // A flash operation of this FTL's (counted in flight until it completes).
  FlashTxn* txn(TxnOp op, std::uint32_t die, std::uint32_t block, std::uint32_t page,
                std::uint64_t owner);
  // A finish or reset waiting on `zone` completes once its flash work is done.
  void maybe_done(std::uint32_t zone);

  NandArray& nand_;
  const Geometry& geo_;
  ZonedConfig z_;
  CellMode mode_;
  std::uint32_t ppp_;              // die-pages per program
  std::uint32_t unit_slots_;       // 4 KiB pages per program unit
  std::uint32_t units_per_block_;  // program units in a die-block
  std::uint32_t groups_;           // stripe groups of dies
  std::uint32_t buffer_slots_;
  std::uint32_t buffer_used_ = 0;
  std::vector<Zone> zones_;
  std::uint32_t open_ = 0, active_ = 0;
  std::uint64_t clock_ = 0;  // orders zones by last use
  std::uint32_t in_flight_ = 0;
  TxnPool txns_;
  FtlListener* listener_ = nullptr;
  FtlStats stats_;
  ZoneStats zstats_;
};

// The `zoned` row of the FTL kinds (ftl/ftl_kinds.cpp).
std::unique_ptr<FlashTranslation> make_zoned_ftl(const FtlParts& parts);

}  // namespace ssdtwin
