// Relocation, per die: garbage collection and SLC-cache folding. When a
// die's erased blocks fall below the trigger, GC picks a victim (by the
// configured policy); when the SLC cache asks for it, folding picks the
// oldest SLC block. Either way the relocator reads the victim's valid pages
// (real NAND reads, queued behind host work on the die), programs them into
// the die's native-mode relocation write point, then erases the victim.
//
// Data stays on its die, so the load GC puts on a die follows the host
// writes that die received. The mapping moves to the new location when the
// relocation program is issued; until it finishes, reads are served from the
// controller's memory, as firmware does.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ftl/ftl_core.h"
#include "ftl/firmware_cores.h"
#include "ftl/gc_policy.h"
#include "sim/fifo.h"

namespace ssdtwin {

class SlcCache;

class GarbageCollector {
 public:
  GarbageCollector(FtlCore& core, const SlcCache& slc, std::unique_ptr<GcPolicy> policy);

  // Starts or advances collection on `die` if it needs it.
  void check(std::uint32_t die);
  bool active(std::uint32_t die) const { return dies_[die].victim != kNoBlock; }
  bool any_active() const;
  // True while `die` collects a GC victim because it is short of erased
  // blocks: host programs there are paced (ftl/gc_pacing.h).
  bool pacing(std::uint32_t die) const {
    const DieGc& g = dies_[die];
    return core_.pacing.paced(die, g.victim != kNoBlock && !g.fold);
  }

  // The native-mode block to collect next on `die`: a static wear-levelling
  // victim when one is due (the die's erase counts have spread past the
  // configured threshold), else the policy's victim when the die has fewer
  // than `target` erased blocks, else kNoBlock.
  std::uint32_t choose_victim(std::uint32_t die, std::uint32_t target);
  // A static wear-levelling victim of `die` if one is due, else kNoBlock.
  std::uint32_t wear_victim(std::uint32_t die);
  // A wear-levelling look is due on `die` (every `wl_interval` erases, once
  // its most worn block has reached the threshold).
  bool wear_due(std::uint32_t die) const {
    const std::uint32_t threshold = core_.cfg.wl_threshold;
    return threshold != 0 && wl_erases_[die] >= core_.cfg.wl_interval && max_erase_[die] >= threshold;
  }
  // The relocation stream for pages of `victim`.
  Stream relocation_stream(std::uint32_t die, std::uint32_t victim) const {
    return core_.cfg.gc_separate_cold && is_relocation(core_.blocks.info(die, victim).stream)
               ? Stream::kGcCold
               : Stream::kGc;
  }
  // Read reclaim (ftl/read_recovery.h): relocate `block` of `die` next,
  // ahead of the policy's victims, if it is still full when its turn comes.
  void reclaim(std::uint32_t die, std::uint32_t block);
  // Bookkeeping of an erased victim (block pools, wear, verification).
  void erased(std::uint32_t die, std::uint32_t block);

  // Firmware time per moved slot on `cores`: a GC read's moves wait for
  // it, then an event (`kind`, the die as its argument) to `wake` hands
  // them on through on_moves_ready. Not called: moves take no firmware time.
  void set_firmware(FirmwareCores* cores, Tick move_time, EventTarget* wake, std::uint32_t kind) {
    cores_ = cores;
    move_time_ = move_time;
    wake_ = wake;
    wake_kind_ = kind;
  }
  void on_moves_ready(std::uint32_t die);

  void on_read_done(FlashTxn* txn);
  void on_program_done(FlashTxn* txn);
  void on_erase_done(FlashTxn* txn);
  void archive(StateArchive& ar);  // drive-state snapshots (ftl/snapshot.h)

 private:
  struct Move {
    Owner owner;  // logical page or translation page
    Ppa from;
  };
  struct DieGc {
    std::uint32_t victim = kNoBlock;
    std::uint32_t scan_page = 0;
    std::uint32_t reads_in_flight = 0;
    bool erasing = false;     // the front of read_out is being erased
    bool fold = false;        // the victim is an SLC block being folded
    double credit_per_slot = 0;  // host slots earned per slot moved (victim's invalid / valid)
    Stream dest = Stream::kGc;   // write point of the victim's pages
    // Victims read out, in order, each erased once its valid pages are all
    // programmed elsewhere.
    std::vector<std::uint32_t> read_out;
    std::vector<Move> moves;  // read, waiting to be programmed
    std::size_t head = 0;
    std::vector<std::uint32_t> reclaim;  // blocks read reclaim asked for, oldest first
    // GC reads whose data is in, waiting for the firmware to process their
    // moves (gc_move_time), in order, each with the time it is done.
    struct Processing {
      FlashTxn* read;
      Tick done;
    };
    Fifo<Processing> processing;
  };
  // A read's moves, once the firmware has processed them.
  void take_moves(FlashTxn* t);
  // The next block read reclaim asked for on `die` that is still full.
  std::uint32_t reclaim_victim(std::uint32_t die);
  // Picks the next victim of `die` if collection or folding should go on.
  bool start_victim(std::uint32_t die);
  // The erased blocks start_victim aims `die` at, less those read out and
  // waiting for their erase (they count as free already, or GC would run
  // ahead and collect fuller blocks than it needs to).
  std::uint32_t free_target(const DieGc& g) const;
  // Nothing to collect on `die`, the answer to nearly every call (each
  // completion on the die asks): no reclaim queued, no wear-levelling look
  // due, erased blocks enough, no SLC cache to reclaim or fold. The same
  // answer as start_search, without its calls or side effects.
  bool nothing_to_collect(std::uint32_t die, std::uint32_t target) const;
  // Its search, apart so that a call stopping at the test it nearly always
  // stops at (nothing to collect) does not pay for the search's registers
  // and stack frame.
  [[gnu::noinline]] bool start_search(std::uint32_t die, std::uint32_t target);
  void advance(std::uint32_t die);
  void issue_reads(std::uint32_t die);
  bool program_unit(std::uint32_t die, bool pad);
  void journal_map_update(Lpn lpn);
  std::size_t pending(const DieGc& g) const { return g.moves.size() - g.head; }

  FtlCore& core_;
  const SlcCache& slc_;
  std::unique_ptr<GcPolicy> policy_;
  std::vector<DieGc> dies_;
  // Static wear levelling, per die: highest erase count, and erases since
  // the last look for a cold block.
  std::vector<std::uint32_t> max_erase_;
  std::vector<std::uint32_t> wl_erases_;
  FirmwareCores* cores_ = nullptr;
  Tick move_time_ = 0;
  EventTarget* wake_ = nullptr;
  std::uint32_t wake_kind_ = 0;
};

}  // namespace ssdtwin
