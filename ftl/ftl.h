// The flash translation layer: maps 4 KiB logical pages to flash, absorbs
// writes in the controller's write buffer, flushes them to dies as whole
// program units, and runs garbage collection.
//
// The controller (ftl/controller.h) calls it per logical page; it talks to
// the NAND back end with flash transactions and gets their completions back
// as the NAND's TxnSink.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ftl/flush_scheduler.h"
#include "ftl/ftl_core.h"
#include "ftl/idle_watch.h"
#include "ftl/map_traffic.h"
#include "ftl/namespaces.h"
#include "ftl/program_ring.h"
#include "ftl/recovery/fault_injector.h"
#include "ftl/recovery/power_loss.h"
#include "ftl/recovery/read_recovery.h"
#include "ftl/translation.h"
#include "ftl/write_buffer.h"
#include "sim/timer.h"

namespace ssdtwin {

class FastWriter;
class FirmwareCores;
class GarbageCollector;
class RelocationEngine;
class SlcCache;
enum class HostTarget : std::uint8_t;

// The page-mapped FTL (`ftl.kind: page_mapped`).
// TxnSink first: the flash array's completion call (once per transaction)
// then needs no this-adjusting thunk.
class Ftl final : public TxnSink,
                  public FlashTranslation,
                  public EventTarget,
                  public MapTraffic::Client,
                  public RecoveryListener,
                  public FaultInjector::Listener {
 public:
  // Pages of a command whose old blocks prefetch_old_blocks loads (a
  // sequential write's old copies share a few blocks).
  static constexpr std::uint32_t kPrefetchPages = 4;
  // Pages of a command whose map-cache index lines it loads: a 128 KiB
  // write's, one line per 8 entries with per-entry segments; a larger
  // write's later pages are mapped long after, so loading theirs now would
  // only be evicted again (an unbounded range could issue thousands).
  static constexpr std::uint32_t kMapPrefetchPages = 64;
  // `errors`: the NAND error model reads see (nullptr: none).
  Ftl(EventEngine& engine, NandArray& nand, const FtlConfig& cfg, bool verify,
      const ErrorModel* errors = nullptr);
  ~Ftl() override;
  void set_listener(FtlListener* l) override { listener_ = l; }
  bool durable_buffer() const override { return core_.cfg.power_loss.protection; }
  // GC's moves take `move_time` per slot on the controller's firmware cores
  // (controller.gc_move_time); without this call they take none.
  void set_gc_firmware(FirmwareCores* cores, Tick move_time) override;

  std::uint64_t user_pages() const { return core_.map.logical_pages(); }
  // Counts flash writes by namespace (FtlStats::ns_host_slots and
  // ns_moved_slots) when more than one is declared.
  void count_by_namespace(const Namespaces& ns);
  bool verifying() const { return core_.verifier.enabled(); }

  // Write path: reserve buffer space for a command's pages before its data
  // crosses the link; then hand each page over.
  bool reserve_buffer(std::uint32_t pages) override { return buffer_.reserve(pages); }
  // Start loading what a command on [first, first + pages) will touch, so
  // that the work between its arrival and its processing hides the cache
  // misses of a large drive's tables: on arrival, the forward map's first
  // level and a read's map-cache index entries; then, for a write (once
  // those are in), the blocks holding its old copies and the map-cache
  // index entries its map updates probe. (These are loaded at admission,
  // as the data starts crossing the link, not on arrival: a write that
  // waits for buffer space would find them evicted.)
  void prefetch_entries(Lpn first, std::uint32_t pages, bool write) override {
    core_.map.prefetch_first_level(first);
    if (pages > 1) core_.map.prefetch_first_level(first + pages - 1);
    if (!write) prefetch_map_cache(first, pages);
  }
  void prefetch_old_blocks(Lpn first, std::uint32_t pages) const override {
    for (std::uint32_t i = 0; i < pages && i < kPrefetchPages; ++i) {
      const std::uint32_t old = core_.map.lookup(first + i);
      if (is_flash(old)) core_.blocks.prefetch_info_of(old);
    }
    prefetch_map_cache(first, pages);
  }
  void write(Lpn first, std::uint32_t count, PlacementHandle handle) override;
  // Durability (host Flush and FUA writes). Entries enter the write buffer
  // numbered in order: buffered_seq() have so far. Every entry numbered
  // below durable_seq() is on flash (its program finished) or was dropped
  // stale. make_durable(seq) forces out what waits below `seq`, padding a
  // partly filled program unit as the idle flush does (a unit is
  // programmed whole: TLC one-shot programs take all of a wordline's pages,
  // and firmware does not reopen a programmed page), and calls the
  // listener's on_durable() once durable_seq() reaches the lowest `seq`
  // asked for since the last call.
  std::uint64_t buffered_seq() const override { return pushed_; }
  std::uint64_t durable_seq() const override { return std::min(programmed_seq(), rescue_from_); }
  void make_durable(std::uint64_t seq) override;
  // Deallocates [first, first+count): the pages read as zeroes after, their
  // flash copies become invalid (GC reclaims them for free), and each map
  // segment touched is updated once, as firmware marks a range.
  void trim(Lpn first, std::uint32_t count) override;

  // Fast preconditioning (ftl/precondition/fast_writer.h). While the FTL is quiescent
  // (nothing buffered, no NAND operation or relocation in flight), writes
  // and trims may be applied to its state alone, taking no simulated time;
  // end_fast() closes the open units, leaving the FTL quiescent (a snapshot
  // may be taken there); resume_after_fast() then lets the timed path go
  // on, starting the collection the state calls for.
  bool quiescent() const override;
  void fast_write(Lpn lpn, PlacementHandle handle = 0);
  void fast_trim(Lpn lpn);
  // Steady-state mode (fast: steady, ftl/precondition/steady_layout.h): a 4 KiB write
  // to a uniformly drawn page, on block counts alone. steady_blocker says
  // why the state does not allow it (empty: it does).
  std::string steady_blocker() const;
  void fast_write_counted(Rng& rng);
  // `rng` draws the page layout when counted writes were made.
  void end_fast(Rng& rng);
  void resume_after_fast();
  // After the last of a run of fast phases, before resume_after_fast (the
  // FTL quiescent): the translation pages that map what fast writes placed
  // go to flash (state-only, in the host stream, as the timed path's
  // write-backs), so that a map-cache miss then reads flash as it would
  // after a timed fill. Not at each fast
  // phase's end, so that counted writes (which refuse translation pages on
  // flash) can follow exact ones. No-op when the whole table is cached.
  void persist_fast_map();
  // Programs what waits in the write buffer with no timer to flush it
  // (translation pages written back after the host's last write wait for
  // the next write); false when nothing waits. For settling a drive that
  // nothing else will write to (app/runner.cpp).
  bool flush_stranded() override;
  // Power loss (ftl/recovery/power_loss.h): the flash as a cut now would leave it,
  // with the model's account of what the cut loses (needs verification
  // mode); and, on a freshly built drive, the mapping rebuilt from such an
  // image, checked against every accepted write.
  DurableImage power_cut() const;
  RecoveryReport recover(const DurableImage& image);
  // Drive-state snapshots (sim/state_archive.h): unlike a power cut, the whole
  // state of a quiescent FTL, volatile parts included, so that a drive
  // built anew and given it runs on exactly as this one would. After
  // loading, with the clock set, rearm_timers() schedules the idle timers
  // that were pending (one due before the clock is damage `ar` reports).
  void archive(StateArchive& ar);
  void rearm_timers(const StateArchive& ar);
  // Idle timers pending in the engine (a quiescent FTL's only events).
  std::size_t armed_timers() const {
    return std::size_t{idle_flush_.armed()} + idle_.timer().armed();
  }
  // A workload fault: `block` of `die` stops working at `at`: its reads fail
  // (RAIN cannot rebuild them: stripes stay in the block), read reclaim
  // moves what it can, and the block is retired. A die-block index past the
  // geometry is a logic error (workloads are checked first).
  void fail_block_at(Tick at, std::uint32_t die, std::uint32_t block) {
    faults_.fail_block_at(at, die, block);
  }
  // A whole die stops working at `at`: every block of it fails as above,
  // and the FTL stops writing there; what it held is lost (RAIN stripes do
  // not cross dies), the other dies carry on with less spare area.
  void fail_die_at(Tick at, std::uint32_t die) { faults_.fail_die_at(at, die); }
  // ftl.rain.span: dies: throws DriveFailure when the live dies cannot hold
  // the user capacity once `die` is gone (its rebuild has no spare to go to).
  void check_rebuild_fits(std::uint32_t die) const;
  // Every die has failed: nothing can be read or written any more.
  bool all_dies_failed() const { return core_.stats.failed_dies >= core_.geo.dies(); }
  // Injected read faults (ftl/recovery/read_recovery.h), and those not yet hit.
  void inject_faults(ReadRecovery::Injected faults) { recovery_.inject(std::move(faults)); }
  const ReadRecovery::Injected& injected_faults() const { return recovery_.injected(); }

  // Read path: issues flash reads for [first, first+count) on behalf of
  // host command `cmd`.
  ReadPlan read(std::uint64_t cmd, Lpn first, std::uint32_t count) override;
  // Time the controller spends looking up the mapping of [first, first+count)
  // in its map cache's memory (SRAM/DRAM latency, or HMB round trips).
  Tick map_access_time(Lpn first, std::uint32_t count) const override;

  const FtlStats& stats() const override { return core_.stats; }
  const BlockManager& blocks() const { return core_.blocks; }
  const MappingTable& map() const { return core_.map; }
  const FtlConfig& config() const { return core_.cfg; }
  const WriteBuffer& buffer() const { return buffer_; }
  const SlcCache& slc() const { return *slc_; }
  bool map_cache_whole_table() const { return core_.map_cache.whole_table(); }
  // Bytes of valid data currently in SLC-mode blocks.
  std::uint64_t slc_cache_bytes() const { return core_.slc_valid_slots * kSectorBytes; }
  // Fewest erased blocks any die had so far: at block allocations, and now
  // (a run that has allocated nothing yet still has a real figure).
  std::uint32_t min_free_blocks_seen() const;
  // GC has a victim, moves or an erase under way on some die.
  bool gc_active() const;
  // Bytes of simulator memory held by the FTL's tables.
  std::uint64_t table_bytes() const;

  void on_txn_complete(FlashTxn* txn) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;
  void on_read_recovered(FlashTxn* txn) override;
  void rewrite_page(std::uint32_t die, std::uint32_t block, std::uint32_t page) override;
  void reclaim_block(std::uint32_t die, std::uint32_t block) override;

 private:
  enum Kind : std::uint32_t { kIdleFlush, kHostIdle, kGcMovesReady };
  using FlushChoice = FlushScheduler::Choice;
  // FDP: one write-buffer lane per reclaim unit handle (else one lane).
  bool lanes() const { return lanes_; }
  std::uint32_t lane_of(Owner o) const {
    return lanes() && !is_tpage(o) ? core_.fdp.handle_of(o) : 0;
  }
  // FDP: the lane a unit of `unit` slots is taken from: the one whose oldest
  // entry is oldest among those holding a unit (any data when padding);
  // UINT32_MAX for none.
  std::uint32_t pick_lane(std::uint32_t unit, bool pad) const;
  // FDP: the oldest entry number still waiting or in flight.
  std::uint64_t lanes_programmed_seq() const;
  // The map-cache index entries of a command's first kMapPrefetchPages pages.
  void prefetch_map_cache(Lpn first, std::uint32_t pages) const {
    if (pages == 0) return;  // (the range end below would wrap to the drive's last page)
    const MapCache& mc = core_.map_cache;
    mc.prefetch(mc.segment_of(first),
                mc.segment_of(first + std::min(pages, kMapPrefetchPages) - 1));
  }
  // Inlined into write()'s per-page loop: GCC otherwise keeps it apart,
  // a call per host page.
  [[gnu::always_inline]] void write_page(Lpn lpn, PlacementHandle handle);
  // A trim's effect on the mapping; true when the page held data.
  bool unmap(Lpn lpn);
  void try_flush(bool pad);
  // A Flush or FUA write waits for entries still in the buffer: flushes pad.
  bool forcing() const {
    return (lanes() ? buffer_.oldest_waiting(pushed_) : popped_) < force_until_;
  }
  // Writes a program's still-current data again elsewhere from controller
  // memory (a failed program, or one on a die that failed under it).
  void rewrite_program(const FlashTxn& t, bool failed_page);
  void check_durable();
  // The oldest waiting entry of the buffer was overwritten while it waited.
  bool front_stale() const;
  // A search for a die may flush: data buffered and, unless padding, at
  // least what the scheduler needs (tested here, not in its search: most
  // calls stop at it).
  bool flush_due(bool pad) const;
  // try_flush(false) on the write path, which calls it for every page: the
  // tests that nearly always end it, inline.
  void flush_if_ready();
  bool pick_flush(bool pad, FlushChoice& out);
  void flush_unit(const FlushChoice& c);
  void arm_idle_flush();
  void note_host_activity() { idle_.note_host_activity(); }
  void note_free(std::uint32_t die);
  // Reads of pages whose mapping is at hand.
  ReadPlan plan_data(std::uint64_t cmd, Lpn first, std::uint32_t count);
  void push_owner(Owner owner, std::uint32_t version);
  // An owner's previous copy, on flash or in the buffer, stops being current.
  void drop_old_copy(std::uint32_t old);
  // Appends `owner`'s new copy to the write buffer (its lane, under FDP):
  // the buffer reference its mapping takes.
  std::uint32_t push_to_buffer(Owner owner, std::uint32_t version);
  // MapTraffic's client: a write-back enters the write buffer; a read that
  // waited for a map load goes on.
  void write_tpage(std::uint32_t tpage) override;
  void resume_read(std::uint64_t cmd, Lpn first, std::uint32_t count) override;
  // Firmware's own writes (translation pages, rebuilt data) take the write
  // buffer's headroom; those that find it full wait here.
  void push_firmware_write(Owner owner, std::uint32_t from, bool rescue = false);
  void drain_writebacks();
  // Writes the translation pages changed since the last map checkpoint.
  void checkpoint();
  // A program reported failure: its data is written again, the block retired.
  void program_failed(const FlashTxn& t);
  // Hands a finished flash operation to the part that issued it.
  void deliver(FlashTxn* txn);
  void verify_not_erased(const FlashTxn& t);

  FtlCore core_;
  MapTraffic map_;  // map-cache loads and write-backs (ftl/map_traffic.h)
  bool lanes_;      // FDP: a write-buffer lane per reclaim unit handle
  WriteBuffer buffer_;
  ReadRecovery recovery_;
  std::unique_ptr<SlcCache> slc_;
  std::unique_ptr<RelocationEngine> relocation_;  // every GC decision
  std::unique_ptr<GarbageCollector> gc_;          // its timed executor
  std::unique_ptr<FastWriter> fast_;
  FlushScheduler flush_;  // which die takes the next unit (ftl/flush_scheduler.h)
  bool map_unpersisted_ =
      false;  // fast writes mapped pages whose translation pages are not on flash
  FtlListener* listener_ = nullptr;
  // GC empties a block at risk (or, `power_on`, one recovery found partly
  // written or emptied).
  void reclaim_on(std::uint32_t die, std::uint32_t block, bool power_on = false);
  Tick last_write_ = 0;
  // The write buffer's idle flush, and the watch for host idleness (SLC
  // folding, background GC).
  Timer idle_flush_;
  IdleWatch idle_;
  FaultInjector faults_;  // workload faults: failing blocks and dies
  void block_failed(std::uint32_t die, std::uint32_t block) override;
  void die_failed(std::uint32_t die) override;
  std::uint32_t min_free_seen_ = 0xFFFFFFFFu;
  // Firmware writes waiting for buffer room: the owner, and the flash slot
  // its data is copied from (kUnmapped: a translation page, written from the
  // map cache). A copy whose owner moved on meanwhile is dropped.
  struct FirmwareWrite {
    Owner owner;
    std::uint32_t from;
    bool rescue;  // data of a failed host program (see rescue_from_)
  };
  std::vector<FirmwareWrite> pending_writebacks_;
  // Durability bookkeeping (make_durable): entries pushed and popped so far,
  // the entry number flushes pad up to, the one on_durable waits for (0:
  // none). Quiescent (as snapshots are taken) pushed_ == popped_ and no
  // program is in flight, so a drive built anew starts them all at 0.
  std::uint64_t pushed_ = 0, popped_ = 0, force_until_ = 0, durable_wait_ = 0;
  ProgramRing programs_;  // host programs in flight (ftl/program_ring.h)
  // A host program that fails leaves its data in the buffer again, under new
  // entry numbers: until those are on flash, nothing from the failed
  // program's first entry on counts as durable (a Flush or FUA write
  // waiting on it waits for the rewrite). rescue_until_: entries below it
  // hold every rescue pushed; rescues_deferred_: rescues still waiting for
  // buffer room. kNoRescue: none under way.
  static constexpr std::uint64_t kNoRescue = ~std::uint64_t{0};
  std::uint64_t rescue_from_ = kNoRescue, rescue_until_ = 0;
  std::uint32_t rescues_deferred_ = 0;
  void rescue_pushed();
  void settle_rescue();
  // Entries below it are on flash or were dropped stale (a failed program's
  // rescue aside): the oldest host program in flight's first entry.
  std::uint64_t programmed_seq() const {
    if (lanes()) return lanes_programmed_seq();
    return programs_.oldest(popped_);
  }
};

// The `page_mapped` row of the FTL kinds (ftl/ftl_kinds.cpp).
std::unique_ptr<FlashTranslation> make_page_mapped_ftl(const FtlParts& parts);

}  // namespace ssdtwin
