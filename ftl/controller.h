// The SSD controller's command processing: firmware time on the controller
// cores, write-buffer admission (backpressure), and the split of host
// commands into per-page FTL operations.
//
// The controller drives the host side through HostPort (implemented by the
// NVMe or SATA host interface) so that it does not depend on the protocol.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ftl/firmware_cores.h"
#include "ftl/host_command.h"
#include "ftl/namespaces.h"
#include "ftl/translation.h"
#include "nand/nand_array.h"
#include "sim/activity.h"
#include "sim/event_engine.h"
#include "sim/fifo.h"

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

// What the controller needs from the host interface.
class HostPort {
 public:
  virtual ~HostPort() = default;
  // Command `id` of the host's table. Not virtual: the controller looks a
  // command up several times on its way through.
  HostCommand& command(std::uint32_t id) const { return table_[id]; }
  // Reserves the link to move `bytes` of command data; returns when the
  // transfer ends. `earliest`: the data is not ready before then.
  virtual Tick transfer_to_device(std::uint64_t bytes, Tick earliest) = 0;
  virtual Tick transfer_to_host(std::uint64_t bytes, Tick earliest) = 0;
  // The command is complete once its data has moved (at `at` or later).
  virtual void complete(std::uint32_t id, Tick at) = 0;

 protected:
  // The implementation's command table, set whenever it is (re)built.
  HostCommand* table_ = nullptr;
};

struct ControllerConfig {
  std::uint32_t cores = 1;
  Tick command_time = 0;  // firmware time per command on one core
  // Firmware time per write command, where it differs (buffer allocation,
  // map update and program scheduling make the write path the heavier one).
  Tick write_command_time = 0;
  // Firmware time per NAND operation (building its command descriptor and
  // handling its completion), on the same cores as host commands: the
  // flash traffic of host programs, GC and map writes delays the commands
  // queued behind it, a source of latency spread.
  Tick flash_op_time = 0;
  // Firmware time per 4 KiB slot that GC or folding moves: checking the
  // slot is still valid, updating its map entry and queueing it for the
  // program, the work a host write repeats per page. On the same cores as
  // host commands, so moves per host write times this, over the cores,
  // bounds the host write rate under GC. Charged when a GC read's data is
  // in: its moves wait for the core before they can be programmed.
  Tick gc_move_time = 0;
  Tick page_time = 0;   // firmware time per 4 KiB page of a command (FTL lookups/updates)
  Tick ecc_decode = 0;  // LDPC decode latency per flash read, before data can leave
  // A write's data enters the write buffer in chunks of this many pages as
  // space frees, so a command larger than the buffer streams through it.
  std::uint32_t write_chunk_pages = 32;
  static ControllerConfig from_config(const ConfigNode& controller);
  static const ParamSection& params();  // its keys, declared (sim/params.h)
};

class Controller : public EventTarget, public FtlListener, public NandObserver {
 public:
  Controller(EventEngine& engine, FlashTranslation& ftl, const ControllerConfig& cfg);
  void set_host(HostPort* host) { host_ = host; }
  // Told of firmware work on the cores and ECC decodes (power); null: none.
  void set_activity(ActivityObserver* a) {
    activity_ = a;
    cores_.set_activity(a);
  }

  // The drive's namespaces: a command's offset is in the namespace its nsid
  // names, its placement an index in the namespace's placement handles
  // (checked when the workload starts). Null: the drive's whole space.
  void set_namespaces(const Namespaces* ns) { namespaces_ = ns; }

  // A command fetched from a submission queue (or NCQ tag) starts here.
  void submit(std::uint32_t id);

  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  void on_read_data(std::uint64_t cmd, std::uint32_t bytes) override;
  void on_buffer_space() override;
  void on_read_resumed(std::uint64_t cmd, const ReadPlan& plan) override;
  void on_durable() override;
  void on_zone_done(std::uint64_t cmd) override;
  // Charges the firmware time of one NAND operation to the core free first.
  void on_submit(const FlashTxn& txn) override;

  std::uint64_t buffer_waits() const { return buffer_waits_; }
  // Drive-state snapshots (sim/state_archive.h), with no command under way.
  void archive(StateArchive& ar);

 private:
  enum Kind : std::uint32_t { kProcessed, kWriteDataIn };
  // Write-buffer admission, in arrival order.
  void admit_write(std::uint32_t id);
  // Gives write `id` buffer space and the link, chunk by chunk, as far as
  // space allows; true once all of its data is on its way.
  bool admit_chunks(std::uint32_t id);
  // Pages in the chunk after the first `done` of a `pages`-page write (the
  // same split when the chunk is admitted and when its data arrives).
  std::uint32_t chunk_pages(std::uint32_t pages, std::uint32_t done) const {
    return std::min(cfg_.write_chunk_pages, pages - done);
  }
  void finish_read_part(HostCommand& c, std::uint32_t id);
  // Zoned namespaces: the FTL checks a command against its zones at fetch,
  // in submission order (HostCommand::status; an append gets its LBA);
  // false: refused.
  bool check_zoned(HostCommand& c);
  // At fetch: the command's first page in the FTL's space and its write
  // stream's handle, from its namespace (HostCommand::first_page, handle).
  void resolve(HostCommand& c) const {
    const Lpn in_ns = static_cast<Lpn>(c.offset / kSectorBytes);
    if (!namespaces_) {
      c.first_page = in_ns;
      c.handle = 0;
      return;
    }
    const Namespace& ns = *namespaces_->find(c.nsid);
    c.first_page = ns.first + in_ns;
    c.handle = ns.handles[c.placement];
  }
  // A Flush, or a FUA write whose data is in, completes once the write
  // buffer's entries up to `seq` are on flash (at once on a drive with
  // power-loss protection: its buffer is durable).
  void complete_when_durable(std::uint32_t id, std::uint64_t seq);

  EventEngine& engine_;
  FlashTranslation& ftl_;
  ControllerConfig cfg_;
  HostPort* host_ = nullptr;
  const Namespaces* namespaces_ = nullptr;
  ActivityObserver* activity_ = nullptr;
  FirmwareCores cores_;
  // Commands finish on the cores in nearly the order they came, and write
  // data arrives in the link's order: an engine lane each.
  EventEngine::Lane processed_lane_, data_lane_;
  // Writes waiting for write-buffer space, in arrival order.
  Fifo<std::uint32_t> waiting_;
  std::uint64_t buffer_waits_ = 0;
  // Flushes and FUA writes waiting for their data to reach flash, in the
  // order they came (their entry numbers rise with it).
  struct DurableWait {
    std::uint32_t id;
    std::uint64_t seq;
  };
  Fifo<DurableWait> durable_waits_;
  bool plp_ = false;    // power-loss protection: the write buffer is durable
  bool zoned_ = false;  // the FTL has zones: every command is checked at fetch
  // NAND operations submitted while a write's data-in is handled (the unit
  // it completed was flushed on the spot), and whether one is being handled.
  std::uint32_t ops_in_handler_ = 0;
  bool in_data_in_ = false;
};

}  // namespace ssdtwin
