// State the FTL's parts share: the mapping, the blocks, the map cache, the
// RAIN counters, and the small rules on them that the write
// buffer's flush, the relocator (ftl/gc/garbage_collector.h), the SLC cache
// (ftl/slc/slc_cache.h) and fast preconditioning (ftl/precondition/fast_writer.h) all apply.
// The FTL facade (ftl/ftl.h) owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ftl/address.h"
#include "ftl/blocks/block_manager.h"
#include "ftl/blocks/rain_stripes.h"
#include "ftl/die_set.h"
#include "ftl/durable_state.h"
#include "ftl/fdp_placement.h"
#include "ftl/fixed_state.h"
#include "ftl/ftl_config.h"
#include "ftl/ftl_stats.h"
#include "ftl/mapping/map_cache.h"
#include "ftl/mapping/mapping_table.h"
#include "ftl/translation.h"
#include "ftl/verifier.h"
#include "ftl/volatile_state.h"
#include "nand/flash_txn.h"
#include "nand/nand_array.h"
#include "sim/event_engine.h"
#include "sim/rng.h"

namespace ssdtwin {

// Map updates outside the host path (GC relocations) go through this.
class MapUpdater {
 public:
  virtual ~MapUpdater() = default;
  virtual void map_update(Lpn lpn) = 0;
};

// State the FTL's parts share (the GC works on the same tables), by type:
// - FtlFixed (ftl/fixed_state.h): the config, the geometry and what follows
//   from them, const;
// - FtlVolatile (ftl/volatile_state.h): shared state in controller memory,
//   which a power cut loses and a snapshot keeps whole;
// - FtlDurable (`durable`, ftl/durable_state.h): the firmware's system area,
//   which a cut's image copies whole (ftl/recovery/power_loss.h).
// The parts below own state of more than one kind and say which: per block
// (BlockManager) and per slot (the out-of-band owner in `map`, the sequence
// numbers `verifier` keeps) is durable, the rest volatile.
struct FtlCore : FtlFixed, FtlVolatile {
  FtlCore(EventEngine& e, NandArray& n, const FtlConfig& c, bool verify);
  // Drive-state snapshots (sim/state_archive.h): every durable and volatile
  // member, as a quiescent drive holds them.
  void archive(StateArchive& ar);
  BlockManager blocks;  // [durable] per-block state; [volatile] pools and write points
  MappingTable map;     // [volatile] forward map; [durable] slot owners (out-of-band)
  MapCache map_cache;   // [volatile]
  MapUpdater* map_updater = nullptr;
  Verifier verifier;  // [durable] per-slot sequence numbers; [volatile] the host's truth
  TxnPool txns;       // [volatile]
  FtlStats stats;     // counters of the run, not drive state
  // [fixed] With more than one namespace: the first logical page of each
  // (in the drive's list order), so that flash writes count by namespace.
  std::vector<Lpn> ns_first;
  std::size_t ns_of(Lpn lpn) const {
    std::size_t i = 0;
    while (i + 1 < ns_first.size() && lpn >= ns_first[i + 1]) ++i;
    return ns_order[i];
  }
  std::vector<std::uint8_t> ns_order;  // index in the list of ns_first's i-th
  // NVMe FDP: streams per handle, and writes counted by handle.
  FdpPlacement fdp;
  // [fixed] Flash writes are counted by namespace or FDP handle: one test
  // on the per-page paths instead of two.
  bool counts_owners = false;
  void note_host_placed(Lpn lpn, Ppa at) {
    if (!counts_owners) return;
    if (!ns_first.empty()) ++stats.ns_host_slots[ns_of(lpn)];
    if (fdp.enabled()) fdp.note_host_placed(lpn, layout.die_block_of(at), stats);
  }
  void note_moved(Owner o, Ppa from, Ppa to) {
    if (!counts_owners || is_tpage(o)) return;
    if (!ns_first.empty()) ++stats.ns_moved_slots[ns_of(o)];
    if (fdp.enabled())
      fdp.note_moved(o, layout.die_of(from), layout.die_block_of(from), layout.die_block_of(to),
                     stats);
  }
  // [durable] What firmware keeps in its system area (ftl/durable_state.h).
  FtlDurable durable;
  // Change host_programs and durable.die_offline through these, which keep
  // flush_ready in step with them.
  void host_program_started(std::uint32_t die) {
    ++host_programs[die];
    update_flush_ready(die);
  }
  void host_program_done(std::uint32_t die) {
    --host_programs[die];
    update_flush_ready(die);
  }
  void update_flush_ready(std::uint32_t die) {
    flush_ready.set(die,
                    host_programs[die] < cfg.programs_queued_per_die && !durable.die_offline[die]);
  }
  void refresh_flush_ready() {
    for (std::uint32_t d = 0; d < host_programs.size(); ++d) update_flush_ready(d);
  }
  void poison(Lpn lpn) {
    if (durable.poisoned.empty()) durable.poisoned.assign((map.logical_pages() + 63) / 64, 0);
    std::uint64_t& w = durable.poisoned[lpn >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (lpn & 63);
    if (!(w & bit)) ++durable.poisoned_pages;
    w |= bit;
  }
  bool is_poisoned(Lpn lpn) const {
    return !durable.poisoned.empty() && (durable.poisoned[lpn >> 6] >> (lpn & 63)) & 1;
  }
  void clear_poison(Lpn lpn) {
    if (!is_poisoned(lpn)) return;
    durable.poisoned[lpn >> 6] &= ~(std::uint64_t{1} << (lpn & 63));
    --durable.poisoned_pages;
  }
  // Every logical page whose current copy is in die-page `page` of `block`.
  template <class F>
  void for_owners_in_page(std::uint32_t die, std::uint32_t block, std::uint32_t page, F f) const {
    const Ppa first = layout.first_slot(layout.die_block(die, block), page);
    for (Ppa p = first; p < first + layout.slots_per_page(); ++p) {
      const Owner o = map.owner(p);
      if (o != kUnmapped && !is_tpage(o) && map.location(o) == p) f(o);
    }
  }
  // A checkpoint is taken: `write(tp)` for each translation page changed
  // since the last one (the timed path writes them; fast preconditioning
  // does not simulate the writes); the pages programmed from here on are
  // the journal a recovery scans.
  template <class Write>
  void take_checkpoint(Write write) {
    for (const std::uint32_t tp : dirty_list) {
      tpage_dirty[tp >> 6] &= ~(std::uint64_t{1} << (tp & 63));
      write(tp);
    }
    dirty_list.clear();
    bytes_since_checkpoint = 0;
    durable.checkpoint_seq = durable.program_seq;
    durable.checkpointed = true;
  }
  void note_map_change(Lpn lpn) {
    if (tpage_dirty.empty()) return;
    const std::uint32_t tp = map.tpage_of(lpn);
    std::uint64_t& w = tpage_dirty[tp >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (tp & 63);
    if (w & bit) return;
    w |= bit;
    dirty_list.push_back(tp);
  }

  // True when data unit `u`, just allocated in a block of `mode`, is followed
  // by its stripe's parity unit (RAIN enabled, ftl/blocks/rain_stripes.h).
  bool rain_due(const ProgramUnit& u, CellMode mode) const {
    if (!stripes.enabled()) return false;
    const std::uint32_t units = geo.pages_in_mode(mode) / u.pages;
    if (cfg.rain_span_dies)
      return u.page / u.pages + 1 < units && parity_at(u.die, u.block, u.page / u.pages + 1);
    return stripes.parity_next(u.page / u.pages, units);
  }
  // Stripes across dies (ftl.rain.span: dies): unit position `pos` of
  // `die`'s block `block` holds its super-block stripe's parity.
  bool parity_at(std::uint32_t die, std::uint32_t block, std::uint32_t pos) const {
    const SuperBlockTable& sb = blocks.super_blocks();
    return sb.parity_die(sb.group_of(die), block, pos) == die;
  }
  // A read of `bytes` from the die-page holding flash slot `where` (not yet
  // submitted).
  FlashTxn* read_txn(TxnSource source, std::uint32_t where, std::uint32_t bytes,
                     std::uint64_t owner);
  // A program of unit `u` (not yet submitted).
  FlashTxn* program_txn(const ProgramUnit& u, TxnSource source, CellMode mode);
  // Allocates the parity unit after rain_due: the stripe's XOR, programmed
  // like data but holding no logical pages, in the slot after the stripe's
  // data in the same block.
  ProgramUnit take_parity_unit(std::uint32_t die, Stream stream, std::uint32_t pages_per_program,
                               CellMode mode, PoolKind pool);
  // The next data unit of the stream on `die`: BlockManager::allocate_unit,
  // except that with stripes across dies a unit at the die's parity
  // position (a block's first, which no data unit precedes) becomes parity,
  // handed to `parity` to program, and the next unit is taken.
  template <class Parity>
  std::optional<ProgramUnit> allocate_data(std::uint32_t die, Stream stream, std::uint32_t ppp,
                                           CellMode mode, PoolKind pool, Parity parity) {
    for (;;) {
      auto u = blocks.allocate_unit(die, stream, ppp, mode, pool);
      if (!u || !cfg.rain_span_dies || !parity_at(die, u->block, u->page / u->pages)) return u;
      mark_parity(*u);
      parity(*u);
    }
  }
  // The parity units due after unit `u` (rain_due), each handed to `parity`
  // to program. In a block's stripes one follows the stripe's data; across
  // dies a die may hold several positions in a row (members missing).
  template <class Parity>
  void take_due_parity(ProgramUnit u, Stream stream, CellMode mode, PoolKind pool, Parity parity) {
    if (!cfg.rain_span_dies) {
      if (rain_due(u, mode)) parity(take_parity_unit(u.die, stream, u.pages, mode, pool));
      return;
    }
    while (rain_due(u, mode)) {
      u = take_parity_unit(u.die, stream, u.pages, mode, pool);
      parity(u);
    }
  }
  void mark_parity(const ProgramUnit& u) {
    for (std::uint32_t k = 0; k < u.slots; ++k) map.clear_owner(u.first + k);
    ++stats.rain_parity_units;
  }

  bool relocating_slc(std::uint32_t die) const { return folding[die] != 0; }
  // Takes flash slot `old_ppa` out of the valid set (overwrite, trim, move).
  void invalidate(Ppa old_ppa) {
    BlockInfo& b = blocks.info_of(old_ppa);
    --b.valid;
    if (b.mode != native) {
      --slc_valid_slots;
      if (b.valid == 0) blocks.note_emptied(layout.die_of(old_ppa), b);
    }
  }
  // Counts a page newly placed in a block of `mode`.
  void place(BlockInfo& b) {
    ++b.valid;
    if (b.mode != native) ++slc_valid_slots;
  }
  // Moves owner `o`'s page from flash slot `from` to slot `to` of block
  // `dest` (a GC relocation: the mapping follows the data).
  // (Inlined into GC's per-move loop: out of line it cost the GC row 1% more instructions.)
  [[gnu::always_inline]] void relocate(Owner o, Ppa from, Ppa to, BlockInfo& dest) {
    invalidate(from);
    map.place(o, to);
    if (!is_tpage(o)) note_map_change(o);
    note_moved(o, from, to);
    place(dest);
    if (verifier.enabled()) verifier.set_slot(to, verifier.slot(from));
  }
  // True when the slot's die-page has finished programming (else the data is
  // still in controller memory).
  bool programmed(Ppa p) const {
    const BlockInfo& b = blocks.info(layout.die_of(p), layout.block_of(p));
    return layout.page_of(p) < b.programmed;
  }
};

}  // namespace ssdtwin
