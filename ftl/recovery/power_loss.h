// Power loss: what survives a cut, and how the FTL comes back.
//
// The line between durable and volatile state is the flash itself: pages
// whose program finished survive with their out-of-band area (the logical
// page they hold and a write sequence number); the write buffer, the map
// cache and the mapping held in controller memory do not. A program that
// the cut interrupts leaves its pages unreadable, and on MLC/TLC programmed
// a page at a time it also corrupts the lower pages of its wordline, unless
// the firmware protects them (paired-page protection). With power-loss
// protection the capacitors hold the drive up for `hold_up`: if the
// programs under way, the buffered data and the map journal can be written
// in that time, nothing is lost (the buffer goes to a dump the firmware
// replays at power-on).
//
// Recovery builds a fresh FTL from the durable image: the mapping is rebuilt
// from the out-of-band areas (newest sequence number wins). Its time on the
// configured NAND, all dies in parallel, is what the firmware reads: every
// programmed page's out-of-band area, or, with map checkpoints, the whole
// map plus the out-of-band areas of the blocks programmed since the last
// checkpoint (the journal those pages carry).
//
// At power-on the firmware reclaims what the cut left half done: every
// block still being written (host, SLC, relocation and map streams) is
// closed where its programs stopped, and it and every block left holding no
// valid data (a victim moved but not erased) is relocated and erased ahead
// of GC's own victims. Without that, each cut would strand a block per open
// stream out of the free pool until the victim policy happened to choose it,
// and a die down to its GC reserve would wait for a program that can never
// start.
//
// The check runs on every write the controller accepted (acknowledged or
// not, stricter than the host's view): it must read back its latest
// version, or be counted lost; a loss is allowed only for data the model
// itself accounts volatile at the cut.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ftl/address.h"
#include "ftl/blocks/block_manager.h"
#include "ftl/durable_state.h"
#include "ftl/ftl_config.h"
#include "ftl/mapping/mapping_table.h"
#include "sim/time.h"

namespace ssdtwin {

// The model's own accounting of a cut: what it loses and why.
struct CutAccount {
  std::uint64_t volatile_pages = 0;   // accepted writes whose only copy was volatile
  std::uint64_t failed_pages = 0;     // ... or on a block or die that had failed
  std::uint64_t corrupted_pages = 0;  // die-pages lost to interrupted programs' pairs
  std::uint64_t interrupted_programs = 0;
  Tick flush_time = 0;         // PLP: time the flush needed
  bool protected_cut = false;  // PLP held long enough: nothing volatile lost
  // What recovery may lose: the rest must read back.
  std::uint64_t allowed_loss() const { return volatile_pages + failed_pages; }
};

// The flash as a cut leaves it, plus what the check needs.
struct DurableImage {
  struct Block {
    std::uint32_t erase_count = 0, slc_erases = 0;
    std::uint16_t programmed = 0;  // die-pages readable after the cut
    BlockState state = BlockState::kFree;
    CellMode mode = CellMode::kTlc;
    Stream stream = Stream::kHost;
    std::uint8_t flags = 0;          // the grown-bad-block table: BlockInfo::kRetire, kFailed
    std::uint32_t last_program = 0;  // program sequence number of its last program
  };
  std::vector<Block> blocks;           // per die-block
  std::vector<Owner> owner;            // per slot: out-of-band logical page
  std::vector<std::uint32_t> version;  // per slot: sequence number, 0 = none or unreadable
  std::vector<std::pair<Owner, std::uint32_t>> plp_dump;  // buffered data PLP saved
  std::vector<std::uint32_t> accepted;  // per logical page: latest version written
  std::uint32_t last_version = 0;
  // The firmware's system area, whole (power_cycles counting this cut).
  FtlDurable core;
  CutAccount account;
};

struct RecoveryReport {
  Tick recovery_time = 0;            // boot + mapping rebuild on the configured NAND
  std::uint64_t pages_scanned = 0;   // out-of-band areas read
  std::uint64_t map_pages_read = 0;  // translation pages of the checkpoint read
  std::uint64_t lost_pages = 0;      // accepted writes that did not come back
  std::uint64_t replayed_pages = 0;  // from the PLP dump
  // Blocks found partly written (open at the cut) or holding nothing valid
  // (victims collected but not yet erased), queued to be emptied and erased.
  std::uint64_t blocks_reclaimed = 0;
};

}  // namespace ssdtwin
