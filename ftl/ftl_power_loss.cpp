// The power-loss part of the FTL facade: the cut (what the flash keeps) and
// the recovery (the mapping rebuilt from it). See ftl/recovery/power_loss.h.
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "ftl/ftl.h"
#include "ftl/gc/garbage_collector.h"
#include "ftl/recovery/power_loss.h"

namespace ssdtwin {

DurableImage Ftl::power_cut() const {
  const Verifier& v = core_.verifier;
  if (!v.enabled())
    throw std::logic_error(
        "power cuts need verification mode (--verify): it holds the sequence "
        "numbers the out-of-band areas carry");
  const PowerLossConfig& cfg = core_.cfg.power_loss;
  const Geometry& geo = core_.geo;
  const Layout& lay = core_.layout;
  const Tick now = core_.engine.now();
  DurableImage img;
  img.blocks.resize(geo.die_blocks());
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
    const BlockInfo& b = core_.blocks.info(db / geo.blocks_per_plane, db % geo.blocks_per_plane);
    DurableImage::Block& o = img.blocks[db];
    o.erase_count = b.erase_count;
    o.slc_erases = b.slc_erases;
    o.programmed = b.programmed;
    o.state = b.state;
    o.mode = b.mode;
    o.stream = b.stream;
    o.flags = b.flags & (BlockInfo::kRetire | BlockInfo::kFailed);
    o.last_program =
        core_.blocks.history(db / geo.blocks_per_plane, db % geo.blocks_per_plane).last_program;
  }
  img.owner.resize(geo.total_slots());
  for (Ppa p = 0; p < geo.total_slots(); ++p) img.owner[p] = core_.map.owner(p);
  img.version = v.slots_all();
  img.core = core_.durable;
  ++img.core.power_cycles;
  // A failed block reads as nothing.
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db)
    if (img.blocks[db].flags & BlockInfo::kFailed)
      std::fill(img.version.begin() + lay.first_slot(db, 0),
                img.version.begin() + lay.first_slot(db, 0) + lay.slots_per_block(), 0u);
  img.accepted = v.expected_all();
  img.last_version = v.last();

  // Protection: the programs under way finish, then the buffered data (and
  // programs still queued, whose data the buffer holds) and the map journal
  // go to flash in the fastest mode, all dies in parallel.
  std::uint64_t queued_slots = 0;
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
    const BlockInfo& b = core_.blocks.info(db / geo.blocks_per_plane, db % geo.blocks_per_plane);
    // Only open blocks have programs pending (a block closed by an earlier
    // recovery keeps unwritten pages it will never program).
    if (b.state == BlockState::kOpen)
      queued_slots += static_cast<std::uint64_t>(b.next_page - b.programmed) * lay.slots_per_page();
  }
  if (cfg.protection) {
    Tick drain = 0;
    for (std::uint32_t d = 0; d < geo.dies(); ++d)
      drain = std::max(
          drain, core_.nand.array_busy_until(d) > now ? core_.nand.array_busy_until(d) - now : 0);
    const CellMode fast =
        core_.nand.timing().of(CellMode::kSlc).present ? CellMode::kSlc : core_.native;
    const std::uint64_t slots = buffer_.valid_entries() + queued_slots +
                                (core_.map_journal_bytes + kSectorBytes - 1) / kSectorBytes;
    const std::uint64_t unit_slots =
        std::uint64_t{core_.nand.timing().pages_per_program(fast)} * lay.slots_per_page();
    const std::uint64_t units = (slots + unit_slots - 1) / unit_slots;
    const std::uint64_t per_die = (units + geo.dies() - 1) / geo.dies();
    const ModeTiming& mt = core_.nand.timing().of(fast);
    img.account.flush_time =
        drain + per_die * (mt.program_time(0) + core_.nand.timing().t_cmd +
                           core_.nand.timing().bus_time(unit_slots * kSectorBytes));
    img.account.protected_cut = img.account.flush_time <= cfg.hold_up;
  }
  if (img.account.protected_cut) {
    // Every program allocated (running or queued, its data in controller
    // memory) finishes on the capacitors.
    for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
      const BlockInfo& b = core_.blocks.info(db / geo.blocks_per_plane, db % geo.blocks_per_plane);
      if (b.state == BlockState::kOpen) img.blocks[db].programmed = b.next_page;
    }
  }

  // Interrupted programs: their pages never become readable; on MLC/TLC
  // programmed a page at a time, the wordline's lower pages go with them.
  auto corrupt_page = [&](std::uint32_t db, std::uint32_t page) {
    const Ppa first = lay.first_slot(db, page);
    for (std::uint32_t k = 0; k < lay.slots_per_page(); ++k) img.version[first + k] = 0;
    ++img.account.corrupted_pages;
  };
  for (std::uint32_t d = 0; d < geo.dies(); ++d) {
    const FlashTxn* t = core_.nand.programming(d);
    if (!t || t->op != TxnOp::kProgram) continue;
    const std::uint32_t db = lay.die_block(d, t->block);
    if (img.account.protected_cut) continue;  // finished on the capacitors
    ++img.account.interrupted_programs;
    const unsigned bits = bits_per_cell(t->mode);
    if (cfg.paired_page_protection || bits == 1 || core_.nand.timing().of(t->mode).one_shot)
      continue;
    for (std::uint32_t p = t->page - t->page % bits; p < t->page; ++p)
      if (p < img.blocks[db].programmed) corrupt_page(db, p);
  }

  // What the accepted writes lose: data only in the buffer, or only in
  // pages the cut left unreadable (unless another readable copy of the same
  // version survives, as a relocation's source does until its erase).
  auto durable = [&](Ppa p) {
    const std::uint32_t db = lay.die_block_of(p);
    return lay.page_of(p) < img.blocks[db].programmed && img.version[p] != 0;
  };
  // Owner -> its version and whether its copy is on failed flash (a block
  // or die that stopped working: lost whatever the power does).
  std::unordered_map<Owner, std::pair<std::uint32_t, bool>> at_risk;
  for (Lpn lpn = 0; lpn < core_.map.logical_pages(); ++lpn) {
    const std::uint32_t m = core_.map.location(lpn);
    if (m == kUnmapped || img.accepted[lpn] == Verifier::kNone) continue;
    if (is_buffered(m)) {
      // A buffered page may have a durable copy of the same version: data
      // the firmware writes again from flash (after a failed program or a
      // rebuild) whose first copy the cut left readable.
      if (img.account.protected_cut)
        img.plp_dump.emplace_back(lpn, buffer_.version_of(m));
      else
        at_risk.emplace(lpn, std::make_pair(buffer_.version_of(m), false));
    } else if (!durable(m)) {
      const bool failed = img.blocks[lay.die_block_of(m)].flags & BlockInfo::kFailed;
      at_risk.emplace(lpn, std::make_pair(v.slot(m), failed));
    }
  }
  if (!at_risk.empty()) {
    for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
      for (std::uint32_t page = 0; page < img.blocks[db].programmed; ++page) {
        const Ppa first = lay.first_slot(db, page);
        for (std::uint32_t k = 0; k < lay.slots_per_page(); ++k) {
          const auto it = at_risk.find(img.owner[first + k]);
          if (it != at_risk.end() && img.version[first + k] == it->second.first) at_risk.erase(it);
        }
      }
    }
    for (const auto& [owner, risk] : at_risk)
      ++(risk.second ? img.account.failed_pages : img.account.volatile_pages);
  }
  if (img.account.protected_cut && img.account.volatile_pages > 0)
    throw std::logic_error("power cut: a protected cut left accepted data unwritten");
  return img;
}

RecoveryReport Ftl::recover(const DurableImage& img) {
  if (!core_.verifier.enabled())
    throw std::logic_error("recovery from a power cut needs verification mode (--verify)");
  if (!quiescent() || core_.mapped_pages != 0)
    throw std::logic_error("recovery needs a freshly built drive");
  const Geometry& geo = core_.geo;
  const Layout& lay = core_.layout;
  if (img.blocks.size() != geo.die_blocks() || img.version.size() != geo.total_slots() ||
      img.accepted.size() != core_.map.logical_pages())
    throw std::invalid_argument("power-loss image from a drive of another geometry");
  RecoveryReport rep;
  const NandTiming& timing = core_.nand.timing();
  const bool checkpoint = core_.cfg.power_loss.checkpoint_every > 0 && img.core.checkpointed;
  std::vector<Tick> scan(geo.dies(), 0);
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
    const std::uint32_t die = db / geo.blocks_per_plane;
    BlockInfo& b = core_.blocks.info(die, db % geo.blocks_per_plane);
    const DurableImage::Block& o = img.blocks[db];
    b.erase_count = o.erase_count;
    b.slc_erases = o.slc_erases;
    b.mode = o.mode;
    b.stream = o.stream;
    b.valid = 0;
    BlockHistory& h = core_.blocks.history(die, db % geo.blocks_per_plane);
    h = BlockHistory{};
    b.flags = o.flags;
    b.programmed = o.programmed;
    const bool bad = o.state == BlockState::kBad || o.state == BlockState::kSpare;
    // A block with data is closed: firmware does not append to a block
    // whose last page it cannot trust.
    b.state = bad ? o.state : (o.programmed > 0 ? BlockState::kFull : BlockState::kFree);
    b.next_page =
        static_cast<std::uint16_t>(b.state == BlockState::kFull ? geo.pages_in_mode(o.mode) : 0);
    h.last_program = o.last_program;
    // The scan reads each programmed die-page's out-of-band bytes: of every
    // block, or with a checkpoint only of those programmed since.
    if (checkpoint && o.last_program <= img.core.checkpoint_seq) continue;
    const ModeTiming& mt = timing.of(o.mode);
    for (std::uint32_t p = 0; p < o.programmed; ++p)
      scan[die] += timing.t_cmd + mt.read_time(p) + timing.bus_time(8ull * lay.slots_per_page());
    rep.pages_scanned += o.programmed;
  }
  if (checkpoint) {
    // The whole map, its translation pages spread over the dies, at the
    // native mode's average read time.
    const ModeTiming& mt = timing.of(core_.native);
    Tick avg_tr = 0;
    for (const Tick tr : mt.tR) avg_tr += tr;
    avg_tr /= static_cast<Tick>(mt.tR.size());
    rep.map_pages_read = core_.map.tpages();
    const std::uint64_t per_die = (rep.map_pages_read + geo.dies() - 1) / geo.dies();
    const Tick read = timing.t_cmd + avg_tr + timing.bus_time(MapCacheConfig::kTpageBytes);
    for (Tick& s : scan) s += per_die * read;
  }
  rep.recovery_time = core_.cfg.power_loss.boot_time + *std::max_element(scan.begin(), scan.end());

  // Newest readable copy of each logical page.
  std::vector<std::uint32_t> best(core_.map.logical_pages(), Verifier::kNone);
  std::vector<Ppa> where(core_.map.logical_pages(), kUnmapped);
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
    for (std::uint32_t page = 0; page < img.blocks[db].programmed; ++page) {
      const Ppa first = lay.first_slot(db, page);
      for (std::uint32_t k = 0; k < lay.slots_per_page(); ++k) {
        const Owner o = img.owner[first + k];
        const std::uint32_t ver = img.version[first + k];
        if (o == kUnmapped || is_tpage(o) || ver == Verifier::kNone || ver <= best[o]) continue;
        best[o] = ver;
        where[o] = first + k;
      }
    }
  }
  std::vector<std::uint32_t> expected = img.accepted;
  std::vector<std::uint32_t> dumped(core_.map.logical_pages(), Verifier::kNone);
  for (const auto& [owner, ver] : img.plp_dump) dumped[owner] = ver;
  for (Lpn lpn = 0; lpn < core_.map.logical_pages(); ++lpn) {
    const std::uint32_t back = dumped[lpn] != Verifier::kNone ? dumped[lpn] : best[lpn];
    if (expected[lpn] != Verifier::kNone && back != expected[lpn]) {
      ++rep.lost_pages;
      expected[lpn] = best[lpn];  // what the host reads from now on
    }
    // A trimmed page stays trimmed: firmware journals trims with the map
    // (the model takes that journal as durable), so its old copies on
    // flash do not come back.
    if (where[lpn] == kUnmapped || img.accepted[lpn] == Verifier::kNone) continue;
    core_.map.place(lpn, where[lpn]);
    core_.place(core_.blocks.info_of(where[lpn]));
    ++core_.mapped_pages;
  }
  core_.blocks.rebuild_pools();
  core_.fdp.note_write_points_reopened(core_.stats);
  core_.durable = img.core;
  core_.refresh_flush_ready();
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db)
    if (img.blocks[db].flags & BlockInfo::kFailed) recovery_.note_failed_block();
  // Faults after power-on draw on from where the last boot left off, not
  // from the seed again.
  core_.durable.program_seq = 0;
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db)
    core_.durable.program_seq = std::max(core_.durable.program_seq, img.blocks[db].last_program);
  // The rebuilt map counts as the next checkpoint (firmware writes one at
  // power-on; that write is not simulated).
  core_.durable.checkpoint_seq = core_.durable.program_seq;
  core_.fault_rng.reseed(core_.fault_seed(img.core.power_cycles));
  recovery_.reseed(img.core.power_cycles);
  core_.verifier.restore(std::move(expected), img.version, img.last_version);

  // Power-loss protection dumped the buffer: written again at power-on.
  for (const auto& [owner, ver] : img.plp_dump) {
    if (!buffer_.reserve(1)) throw std::logic_error("power-loss dump larger than the write buffer");
    if (core_.map.lookup(owner) == kUnmapped) ++core_.mapped_pages;
    push_owner(owner, ver);
    core_.verifier.restore_expected(owner, ver);
    ++rep.replayed_pages;
  }
  // Blocks the grown-bad-block table names are emptied and retired again;
  // those the cut left partly written or emptied are reclaimed.
  for (std::uint32_t db = 0; db < geo.die_blocks(); ++db) {
    const std::uint32_t die = db / geo.blocks_per_plane, blk = db % geo.blocks_per_plane;
    const BlockInfo& b = core_.blocks.info(die, blk);
    if ((img.blocks[db].flags & BlockInfo::kRetire) && img.blocks[db].programmed > 0) {
      reclaim_on(die, blk);
    } else if (b.state == BlockState::kFull && !core_.durable.die_offline[die] &&
               (b.programmed < core_.blocks.pages_in(b) || b.valid == 0)) {
      reclaim_on(die, blk, /*power_on=*/true);
      ++rep.blocks_reclaimed;
    }
  }
  flush_.reopen_all();  // pacing and blocks were rebuilt
  // Dies below their GC trigger collect now: one at its reserve cannot
  // program host data, so no completion would ever start its GC.
  for (std::uint32_t d = 0; d < geo.dies(); ++d) gc_->check(d);
  try_flush(false);
  return rep;
}

}  // namespace ssdtwin
