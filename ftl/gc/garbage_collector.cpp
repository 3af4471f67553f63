#include "ftl/gc/garbage_collector.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ftl/drive_failure.h"
#include "sim/state_archive.h"

namespace ssdtwin {

GarbageCollector::GarbageCollector(FtlCore& core, RelocationEngine& engine)
    : core_(core), engine_(engine), dies_(core.geo.dies()) {
  for (auto& g : dies_) {
    g.moves.reserve(3 * std::size_t{core_.unit_slots});
    g.read_out.reserve(core_.cfg.gc_erase_backlog);
  }
}

bool GarbageCollector::any_active() const {
  for (std::uint32_t d = 0; d < dies_.size(); ++d) {
    const DieGc& g = dies_[d];
    if (engine_.collecting(d) || !g.read_out.empty() || pending(g) > 0) return true;
  }
  return false;
}

void GarbageCollector::reclaim(std::uint32_t die, std::uint32_t block, bool power_on) {
  if (engine_.queue_reclaim(die, block, power_on)) check(die);
}

void GarbageCollector::check(std::uint32_t die) {
  if (core_.durable.die_offline[die]) return;  // nothing on a failed die can be read or written
  DieGc& g = dies_[die];
  if (!engine_.collecting(die)) {
    // Nothing under way (no victim, no moves, nothing to erase) and nothing
    // to start: advance would only ask start_victim again, with the same
    // answer.
    if (g.head == g.moves.size() && g.read_out.empty() &&
        engine_.nothing_to_collect(die, free_target(g))) {
      g.moves.clear();
      g.head = 0;
      return;
    }
    start_victim(die);
  }
  advance(die);
}

std::uint32_t GarbageCollector::free_target(const DieGc& g) const {
  return engine_.free_target(static_cast<std::uint32_t>(g.read_out.size()));
}

bool GarbageCollector::start_victim(std::uint32_t die) {
  DieGc& g = dies_[die];
  if (g.read_out.size() >= core_.cfg.gc_erase_backlog) return false;
  // Folding goes one block at a time: whether the cache needs more of it
  // is known only once the last folded block is erased. Pages still
  // buffered from the last victim count with the new one.
  if (!engine_.start(die, free_target(g), RelocationEngine::Sources::kAll, g.read_out.empty()))
    return false;
  g.scan_page = 0;
  // A super-block victim (ftl.rain.span: dies) is collected by every member
  // of the group: the idle ones start on it now.
  if (const std::uint32_t width = engine_.group_width())
    for (std::uint32_t d = die / width * width; d < (die / width + 1) * width; ++d)
      if (d != die && !engine_.collecting(d) && engine_.victim_pending(d)) check(d);
  return true;
}

void GarbageCollector::advance(std::uint32_t die) {
  DieGc& g = dies_[die];
  for (;;) {
    const std::uint32_t victim = engine_.victim(die).block;
    if (victim != kNoBlock) issue_reads(die, victim);
    while (program_unit(die, false)) {
    }
    if (victim != kNoBlock) {
      const bool scanned = g.scan_page >= core_.blocks.pages_in(core_.blocks.info(die, victim));
      // Read-ahead stops at the relocation buffer's capacity, and moves the
      // host has overwritten since their read still fill it; with no read in
      // flight nothing else would make room, and the die would stall (its
      // host writes paced out, so its data drifts to the other dies). Drop
      // them and read on.
      if (!scanned && g.reads_in_flight == 0 && drop_stale_moves(g)) continue;
      if (!scanned || g.reads_in_flight > 0) break;
      // Read out: the victim is erased once its last pages are programmed.
      g.read_out.push_back(engine_.read_out(die));
    }
    // The next victim's pages fill the unit the last one left partial, as
    // firmware does; only when collection stops is the remainder padded.
    // Not across relocation streams under NVMe FDP: a persistently
    // isolated handle's data never shares an erase block with another
    // handle's, so the partial unit is padded into the last victim's
    // stream first.
    const Stream last = engine_.victim(die).dest;
    if (start_victim(die)) {
      if (pending(g) > 0 && core_.fdp.enabled() && last != engine_.victim(die).dest)
        program_unit(die, true, &last);
      continue;
    }
    if (pending(g) > 0) program_unit(die, true);  // no space yet: retried on the next completion
    break;
  }
  if (g.erasing || g.read_out.empty()) return;
  const std::uint32_t block = g.read_out.front();
  const BlockInfo& b = core_.blocks.info(die, block);
  if (b.valid != 0 || !engine_.may_erase(die, block)) return;
  g.erasing = true;
  FlashTxn* t = core_.txns.get();
  t->op = TxnOp::kErase;
  t->source = TxnSource::kGc;
  t->mode = b.mode;
  t->die = die;
  t->block = block;
  core_.nand.submit(t);
  // The members of a super-block waiting for this one's data to move erase
  // theirs too.
  if (const std::uint32_t width = engine_.group_width())
    for (std::uint32_t d = die / width * width; d < (die / width + 1) * width; ++d) {
      const DieGc& o = dies_[d];
      if (d != die && !o.erasing && !o.read_out.empty() && o.read_out.front() == block &&
          !core_.durable.die_offline[d])
        advance(d);
    }
}

bool GarbageCollector::drop_stale_moves(DieGc& g) {
  std::size_t kept = 0;
  for (std::size_t i = g.head; i < g.moves.size(); ++i)
    if (core_.map.location(g.moves[i].owner) == g.moves[i].from) g.moves[kept++] = g.moves[i];
  const bool dropped = kept < g.moves.size() - g.head;
  g.moves.resize(kept);
  g.head = 0;
  return dropped;
}

void GarbageCollector::issue_reads(std::uint32_t die, std::uint32_t block) {
  DieGc& g = dies_[die];
  const BlockInfo& victim = core_.blocks.info(die, block);
  const std::uint32_t pages = core_.blocks.pages_in(victim);
  const std::uint32_t per_page = core_.layout.slots_per_page();
  // Read ahead no further than the relocation buffer can hold.
  const std::size_t cap = 2 * std::size_t{core_.unit_slots} + per_page;
  const std::uint32_t db = core_.layout.die_block(die, block);
  while (g.scan_page < pages && g.reads_in_flight < core_.cfg.gc_reads_in_flight &&
         pending(g) + (g.reads_in_flight + 1) * std::size_t{per_page} <= cap) {
    const std::uint32_t page = g.scan_page++;
    const Ppa first = core_.layout.first_slot(db, page);
    // The owners' map entries of a page scanned two reads from now: the
    // validity test below otherwise waits on a cache miss per slot.
    if (page + 2 < pages)
      for (std::uint32_t k = 0; k < per_page; ++k)
        core_.map.prefetch_owner(first + 2 * per_page + k);
    std::uint32_t valid = 0;
    for (std::uint32_t k = 0; k < per_page; ++k) valid += core_.map.valid(first + k) ? 1 : 0;
    if (valid == 0) continue;
    FlashTxn* t = core_.txns.get();
    t->op = TxnOp::kRead;
    t->source = TxnSource::kGc;
    t->mode = victim.mode;
    t->die = die;
    t->block = block;
    t->page = page;
    t->slots = valid;
    t->bytes = valid * kSectorBytes;
    if (core_.cfg.gc_whole_page_reads)
      t->bytes = plane_pages_holding_data(first) * core_.geo.page_size;
    ++g.reads_in_flight;
    core_.nand.submit(t);
  }
}

std::uint32_t GarbageCollector::plane_pages_holding_data(Ppa first) const {
  const std::uint32_t per_plane = core_.geo.sectors_per_page();
  std::uint32_t n = 0;
  for (Ppa plane = first; plane < first + core_.layout.slots_per_page(); plane += per_plane)
    for (Ppa p = plane; p < plane + per_plane; ++p)
      if (core_.map.valid(p)) {
        ++n;
        break;
      }
  return n;
}

bool GarbageCollector::program_unit(std::uint32_t die, bool pad, const Stream* into) {
  DieGc& g = dies_[die];
  // Pages overwritten by the host since they were read need no move. The
  // count stops at what a unit needs (one page when padding): each look is
  // a map access, and the queue may hold several units.
  const std::uint32_t need = pad ? 1 : core_.unit_slots;
  std::uint32_t current = 0;
  for (std::size_t i = g.head; i < g.moves.size() && current < need; ++i)
    current += core_.map.location(g.moves[i].owner) == g.moves[i].from ? 1 : 0;
  if (current == 0) {
    g.moves.clear();
    g.head = 0;
    return false;
  }
  if (current < need) return false;
  const Stream dest_stream = into ? *into : engine_.victim(die).dest;
  const auto parity = [&](const ProgramUnit& p) { submit_program(p); };
  const auto unit = core_.allocate_data(die, dest_stream, core_.pages_per_program, core_.native,
                                        PoolKind::kNormal, parity);
  if (!unit) return false;
  BlockInfo& dest = core_.blocks.info(die, unit->block);
  // Whole 4 KiB pages of map journal ride along with the relocated data.
  std::uint32_t journal = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(core_.map_journal_bytes / kSectorBytes, unit->slots / 2));
  core_.map_journal_bytes -= std::uint64_t{journal} * kSectorBytes;
  core_.stats.map_journal_slots += journal;
  std::uint32_t k = 0;
  const std::uint32_t data_slots = unit->slots - journal;
  while (g.head < g.moves.size() && k < data_slots) {
    const Move mv = g.moves[g.head++];
    if (core_.map.location(mv.owner) != mv.from) continue;
    const Ppa to = unit->first + k++;
    core_.relocate(mv.owner, mv.from, to, dest);
    if (!is_tpage(mv.owner)) journal_map_update(mv.owner);
  }
  engine_.moved(die, k);
  core_.stats.gc_padding_slots += data_slots - k;
  for (std::uint32_t j = k; j < unit->slots; ++j) core_.map.clear_owner(unit->first + j);
  if (g.head == g.moves.size()) {
    g.moves.clear();
    g.head = 0;
  }
  submit_program(*unit);
  core_.take_due_parity(*unit, dest_stream, core_.native, PoolKind::kNormal, parity);
  return true;
}

void GarbageCollector::submit_program(const ProgramUnit& unit) {
  FlashTxn* t = core_.program_txn(unit, TxnSource::kGc, core_.native);
  if (!core_.cfg.gc_multi_plane_programs)
    t->plane_ops = static_cast<std::uint8_t>(core_.geo.planes);
  core_.nand.submit(t);
}

void GarbageCollector::journal_map_update(Lpn lpn) {
  // A cached map entry is simply updated (its page is written back when
  // evicted); one not cached goes to the journal: an 8-byte record.
  MapCache& mc = core_.map_cache;
  if (mc.whole_table()) return;
  const std::uint32_t seg = mc.segment_of(lpn);
  if (mc.resident(seg)) {
    mc.set_dirty(seg);
    return;
  }
  core_.map_journal_bytes += 2 * std::uint64_t{core_.cfg.map.entry_bytes};
}

void GarbageCollector::on_read_done(FlashTxn* t) {
  if (cores_ == nullptr) {
    take_moves(t);
    return;
  }
  // The firmware checks each slot read, updates its map entry and queues it
  // for the program, on the cores host commands also need; the moves are
  // ready in the order their reads came back.
  DieGc& g = dies_[t->die];
  const Tick now = core_.engine.now();
  Tick done = cores_->run(now, move_time_ * t->slots);
  if (!g.processing.empty()) done = std::max(done, g.processing.back().done);
  g.processing.push({t, done});
  if (g.processing.size() == 1) core_.engine.schedule_at(done, wake_, wake_kind_, t->die);
}

void GarbageCollector::on_moves_ready(std::uint32_t die) {
  DieGc& g = dies_[die];
  const Tick now = core_.engine.now();
  while (!g.processing.empty() && g.processing.front().done <= now) {
    FlashTxn* t = g.processing.front().read;
    g.processing.pop();
    take_moves(t);
  }
  if (!g.processing.empty())
    core_.engine.schedule_at(g.processing.front().done, wake_, wake_kind_, die);
}

void GarbageCollector::take_moves(FlashTxn* t) {
  const std::uint32_t die = t->die;
  DieGc& g = dies_[die];
  --g.reads_in_flight;
  // Keep only what is still valid now: the host may have overwritten pages
  // while the read was queued.
  const Ppa first = core_.layout.first_slot(core_.layout.die_block(die, t->block), t->page);
  const MapCache& mc = core_.map_cache;
  for (std::uint32_t k = 0; k < core_.layout.slots_per_page(); ++k) {
    if (!core_.map.valid(first + k)) continue;
    const Lpn owner = core_.map.owner(first + k);
    g.moves.push_back(Move{owner, first + k});
    // The move's program asks whether its map entry is cached
    // (journal_map_update): a cold probe of the cache's index otherwise.
    if (!is_tpage(owner)) mc.prefetch(mc.segment_of(owner));
  }
  core_.txns.put(t);
  advance(die);
}

void GarbageCollector::on_program_done(FlashTxn* t) {
  const std::uint32_t die = t->die;
  core_.blocks.on_programmed(die, t->block, t->pages);
  core_.txns.put(t);
  advance(die);
}

void GarbageCollector::on_erase_done(FlashTxn* t) {
  const std::uint32_t die = t->die;
  DieGc& g = dies_[die];
  // A failed erase retires the block (its data was moved off already); a
  // spare from the bad-block reserve takes its place.
  const double fail = core_.cfg.bad_blocks.erase_fail_rate;
  const bool failed_program = core_.blocks.info(die, t->block).flags & BlockInfo::kRetire;
  if (failed_program || (fail > 0 && core_.fault_rng.uniform() < fail)) {
    core_.blocks.retire(die, t->block);
    ++core_.stats.grown_bad_blocks;
    // With the reserve spent, every new bad block shrinks the spare area;
    // past the slack GC needs, real firmware turns the drive read-only.
    if (core_.blocks.unreplaced_bad_blocks(die) > core_.cfg.bad_blocks.slack_per_die)
      throw DriveFailure(
          "die " + std::to_string(die) +
          " is worn out: " + std::to_string(core_.blocks.unreplaced_bad_blocks(die)) +
          " bad blocks with no spare left to replace them leave garbage collection too few "
          "blocks (ftl.bad_block_reserve, nand.bad_blocks); a real drive goes read-only here");
  } else {
    engine_.erased(die, t->block);
  }
  g.read_out.erase(g.read_out.begin());
  g.erasing = false;
  core_.txns.put(t);
  check(die);
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void GarbageCollector::archive(StateArchive& ar) {
  for (DieGc& g : dies_) {
    ar.pods(g.scan_page, g.reads_in_flight, g.erasing);
    ar.vec(g.read_out);
    ar.vec(g.moves);
    std::uint64_t head = g.head;
    ar.pod(head);
    if (head > g.moves.size()) ar.fail("a relocation queue position past its end");
    g.head = static_cast<std::size_t>(head);
  }
}

}  // namespace ssdtwin
