// The timed executor of the relocation engine (ftl/gc/relocation_engine.h),
// per die: garbage collection and SLC-cache folding in simulated time. The
// engine decides when a die collects and which victim; this reads the
// victim's valid pages (real NAND reads, queued behind host work on the
// die), programs them into the die's native-mode relocation write point,
// then erases the victim.
//
// Data stays on its die, so the load GC puts on a die follows the host
// writes that die received. The mapping moves to the new location when the
// relocation program is issued; until it finishes, reads are served from the
// controller's memory, as firmware does.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ftl/firmware_cores.h"
#include "ftl/ftl_core.h"
#include "ftl/gc/relocation_engine.h"
#include "sim/fifo.h"

namespace ssdtwin {

class GarbageCollector {
 public:
  GarbageCollector(FtlCore& core, RelocationEngine& engine);

  // Starts or advances collection on `die` if it needs it.
  void check(std::uint32_t die);
  bool any_active() const;

  // Read reclaim (ftl/recovery/read_recovery.h): relocate `block` of `die` next,
  // ahead of the policy's victims, if it is still full when its turn comes.
  void reclaim(std::uint32_t die, std::uint32_t block, bool power_on = false);
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
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  struct Move {
    Owner owner;  // logical page or translation page
    Ppa from;
  };
  struct DieGc {
    std::uint32_t scan_page = 0;  // of the engine's victim
    std::uint32_t reads_in_flight = 0;
    bool erasing = false;  // the front of read_out is being erased
    // Victims read out, in order, each erased once its valid pages are all
    // programmed elsewhere.
    std::vector<std::uint32_t> read_out;
    std::vector<Move> moves;  // read, waiting to be programmed
    std::size_t head = 0;
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
  // Starts the die's next victim if collection or folding should go on.
  bool start_victim(std::uint32_t die);
  // The engine's free target for `die`, less the victims read out and
  // waiting for their erase.
  std::uint32_t free_target(const DieGc& g) const;
  void advance(std::uint32_t die);
  void issue_reads(std::uint32_t die, std::uint32_t victim);
  // One GC program unit of the queued moves into the victim's stream (or
  // `into`'s; the victim's is looked up only once a unit is due, as most
  // calls find none); `pad`: even if they do not fill it.
  bool program_unit(std::uint32_t die, bool pad, const Stream* into = nullptr);
  // Plane pages of the die-page starting at `first` that hold a valid slot.
  std::uint32_t plane_pages_holding_data(Ppa first) const;
  // One GC program unit to the die, as one multi-plane operation or plane by plane.
  void submit_program(const ProgramUnit& unit);
  void journal_map_update(Lpn lpn);
  std::size_t pending(const DieGc& g) const { return g.moves.size() - g.head; }
  // Drops the moves whose page the host has overwritten since it was read;
  // true if there were any.
  bool drop_stale_moves(DieGc& g);

  FtlCore& core_;
  RelocationEngine& engine_;
  std::vector<DieGc> dies_;
  FirmwareCores* cores_ = nullptr;
  Tick move_time_ = 0;
  EventTarget* wake_ = nullptr;
  std::uint32_t wake_kind_ = 0;
};

}  // namespace ssdtwin
