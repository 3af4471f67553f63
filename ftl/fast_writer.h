// Fast preconditioning: applies host writes and trims to the FTL's state
// (mapping, block validity, GC relocations and erases, wear) without NAND
// operations or simulated time, so that "fill the drive twice, then overwrite
// it randomly twice" on a whole drive takes seconds.
//
// It places data the way the timed path does: host data in native-mode
// program units rotating over the dies, GC relocations into their own
// stream, victims chosen by the configured policy through the same
// GarbageCollector::choose_victim, and GC started when a die's erased
// blocks fall below the trigger. What it leaves out is time: host writes
// bypass the SLC cache (as if it had been folded in idle time), and map-cache
// traffic (translation-page loads and write-backs) is not generated.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/ftl_core.h"

namespace ssdtwin {

class GarbageCollector;

class FastWriter {
 public:
  // The FTL must be quiescent (Ftl::quiescent) while a FastWriter runs.
  FastWriter(FtlCore& core, GarbageCollector& gc);
  void write(Lpn lpn);
  // Pads and closes the open program units; call once at the end.
  void finish();

 private:
  struct OpenUnit {
    ProgramUnit unit;
    std::uint32_t used = 0;
    bool open = false;
  };
  // Next slot of the stream's open unit on `die` (opening one, after
  // collecting if the die is short of erased blocks, when needed).
  Ppa next_slot(std::uint32_t die, Stream stream, OpenUnit& u);
  void close(OpenUnit& u);
  // Before a host unit on `die`: runs the die's collection as far as the
  // timed path would have by then (see GarbageCollector::pacing).
  void collect(std::uint32_t die, std::uint32_t unit_slots);
  // Moves valid pages of the die's victim until `slots` have been scanned
  // or `credit` host slots are earned; erases the victim when done.
  void relocate_some(std::uint32_t die, std::uint32_t slots, double credit);

  struct DieGc {
    std::uint32_t victim = kNoBlock;
    Ppa next = 0, end = 0;       // victim slots still to scan
    double credit_per_slot = 0;  // as GarbageCollector: victim's invalid / valid
    Stream dest = Stream::kGc;
  };

  FtlCore& core_;
  GarbageCollector& gc_;
  std::vector<OpenUnit> host_;   // per die
  std::vector<OpenUnit> moves_;  // per die and relocation stream: [die * 2 + cold]
  std::vector<DieGc> gcs_;       // per die
  std::uint32_t die_ = 0;        // die of the host stream's current unit
};

}  // namespace ssdtwin
