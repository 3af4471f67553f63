// What the FTL's parts share in controller memory only: a power cut loses
// it (recovery rebuilds it from the flash and the durable state, or starts
// it afresh), and a drive-state snapshot keeps it whole (archive()). A
// member added here is in snapshots without a line elsewhere. The other
// volatile state belongs to the parts that own it (the forward map, the
// map cache, the block pools and write points, GC pacing), each with its
// own archive().
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/die_set.h"
#include "sim/rng.h"

namespace ssdtwin {

class StateArchive;

struct FtlVolatile {
  FtlVolatile(std::uint32_t dies, std::uint64_t seed, std::uint64_t fault_seed)
      : rng(seed),
        folding(dies, 0),
        host_programs(dies, 0),
        flush_ready(dies),
        fault_rng(fault_seed) {}
  // Every member but `flush_ready`, which the owner derives again on loading.
  void archive(StateArchive& ar);

  // Map entries changed by GC relocations, in bytes, not yet written. Firmware
  // journals them (logical page, new address) instead of rewriting one
  // translation page per moved page; GC writes the journal into its own
  // program units (ftl/gc/garbage_collector.cpp).
  std::uint64_t map_journal_bytes = 0;
  Rng rng;
  std::uint64_t mapped_pages = 0;     // logical pages holding data (not unmapped)
  std::uint64_t slc_valid_slots = 0;  // valid pages in SLC-mode blocks (cache occupancy)
  bool host_idle = false;             // no host IO for the SLC cache's fold idle time
  bool gc_idle = false;               // no host IO for the background-GC idle time
  std::vector<std::uint8_t> folding;  // per die: the relocator is folding an SLC block
  // Host programs submitted and not yet finished, per die; `flush_ready`
  // holds the dies that may take another (below ftl.programs_queued_per_die
  // and not failed). FtlCore changes them through functions that keep the
  // two in step.
  std::vector<std::uint32_t> host_programs;
  DieSet flush_ready;
  Rng fault_rng;  // program/erase failures: a stream apart from GC's and the host's
  // A failed die's data is being rebuilt from stripes across dies
  // (ReadRecovery::rebuild_die).
  bool die_rebuild_running = false;
  // Map checkpoints: host bytes since the last, and the translation pages
  // changed since it, a bitset kept only with checkpoints (the checkpoint's
  // sequence numbers are durable).
  std::uint64_t bytes_since_checkpoint = 0;
  std::vector<std::uint64_t> tpage_dirty;
  std::vector<std::uint32_t> dirty_list;  // the set bits, in order of change
};

}  // namespace ssdtwin
