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

#include "ftl/ftl.h"
#include "ftl/gc_policy.h"

namespace ssdtwin {

class SlcCache;

class GarbageCollector {
 public:
  GarbageCollector(FtlCore& core, const SlcCache& slc, std::unique_ptr<GcPolicy> policy);

  // Starts or advances collection on `die` if it needs it.
  void check(std::uint32_t die);
  bool active(std::uint32_t die) const { return dies_[die].victim != kNoBlock; }

  void on_read_done(FlashTxn* txn);
  void on_program_done(FlashTxn* txn);
  void on_erase_done(FlashTxn* txn);

 private:
  struct Move {
    Owner owner;  // logical page or translation page
    Ppa from;
  };
  struct DieGc {
    std::uint32_t victim = kNoBlock;
    std::uint32_t scan_page = 0;
    std::uint32_t reads_in_flight = 0;
    bool erasing = false;
    bool fold = false;        // the victim is an SLC block being folded
    std::vector<Move> moves;  // read, waiting to be programmed
    std::size_t head = 0;
  };
  void advance(std::uint32_t die);
  void issue_reads(std::uint32_t die);
  bool program_unit(std::uint32_t die, bool pad);
  void journal_map_update(Lpn lpn);
  std::size_t pending(const DieGc& g) const { return g.moves.size() - g.head; }

  FtlCore& core_;
  const SlcCache& slc_;
  std::unique_ptr<GcPolicy> policy_;
  std::vector<DieGc> dies_;
};

}  // namespace ssdtwin
