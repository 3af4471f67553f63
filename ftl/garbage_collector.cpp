#include "ftl/garbage_collector.h"

#include "ftl/slc_cache.h"

#include <algorithm>

namespace ssdtwin {

GarbageCollector::GarbageCollector(FtlCore& core, const SlcCache& slc,
                                   std::unique_ptr<GcPolicy> policy)
    : core_(core), slc_(slc), policy_(std::move(policy)), dies_(core.geo.dies()) {
  for (auto& g : dies_) g.moves.reserve(3 * std::size_t{core_.unit_slots});
}

void GarbageCollector::check(std::uint32_t die) {
  DieGc& g = dies_[die];
  if (g.victim == kNoBlock) {
    // GC first: running out of erased blocks stalls host writes.
    std::uint32_t v = kNoBlock;
    // In host idle time, background GC works towards a higher free target.
    const std::uint32_t target =
        core_.gc_idle ? std::max(core_.cfg.gc_trigger_free_blocks, core_.cfg.gc_background_free_blocks)
                      : core_.cfg.gc_trigger_free_blocks;
    if (core_.blocks.free_blocks(die) < target)
      v = policy_->select_victim(core_.blocks, die, core_.rng);
    g.fold = false;
    if (v == kNoBlock && slc_.needs_fold(die)) {
      v = slc_.fold_victim(die);
      g.fold = true;
    }
    if (v == kNoBlock) return;
    core_.blocks.set_victim(die, v);
    g.victim = v;
    g.scan_page = 0;
    core_.folding[die] = g.fold ? 1 : 0;
    ++(g.fold ? core_.stats.fold_victims : core_.stats.gc_victims);
  }
  advance(die);
}

void GarbageCollector::advance(std::uint32_t die) {
  DieGc& g = dies_[die];
  if (g.victim == kNoBlock || g.erasing) return;
  issue_reads(die);
  while (program_unit(die, false)) {
  }
  const BlockInfo& victim = core_.blocks.info(die, g.victim);
  if (g.scan_page < core_.blocks.pages_in(victim) || g.reads_in_flight > 0) return;
  // Everything is read: write out the remainder (padded), then erase.
  if (pending(g) > 0 && !program_unit(die, true)) return;  // no space yet: retry on the next completion
  if (victim.valid != 0) return;
  g.erasing = true;
  FlashTxn* t = core_.txns.get();
  t->op = TxnOp::kErase;
  t->source = TxnSource::kGc;
  t->mode = victim.mode;
  t->die = die;
  t->block = g.victim;
  core_.nand.submit(t);
}

void GarbageCollector::issue_reads(std::uint32_t die) {
  DieGc& g = dies_[die];
  const BlockInfo& victim = core_.blocks.info(die, g.victim);
  const std::uint32_t pages = core_.blocks.pages_in(victim);
  const std::uint32_t per_page = core_.layout.slots_per_page();
  // Read ahead no further than the relocation buffer can hold.
  const std::size_t cap = 2 * std::size_t{core_.unit_slots} + per_page;
  const std::uint32_t db = core_.layout.die_block(die, g.victim);
  while (g.scan_page < pages && g.reads_in_flight < core_.cfg.gc_reads_in_flight &&
         pending(g) + (g.reads_in_flight + 1) * std::size_t{per_page} <= cap) {
    const std::uint32_t page = g.scan_page++;
    const Ppa first = core_.layout.first_slot(db, page);
    std::uint32_t valid = 0;
    for (std::uint32_t k = 0; k < per_page; ++k) valid += core_.map.valid(first + k) ? 1 : 0;
    if (valid == 0) continue;
    FlashTxn* t = core_.txns.get();
    t->op = TxnOp::kRead;
    t->source = TxnSource::kGc;
    t->mode = victim.mode;
    t->die = die;
    t->block = g.victim;
    t->page = page;
    t->bytes = valid * kSectorBytes;
    ++g.reads_in_flight;
    core_.nand.submit(t);
  }
}

bool GarbageCollector::program_unit(std::uint32_t die, bool pad) {
  DieGc& g = dies_[die];
  // Pages overwritten by the host since they were read need no move.
  std::uint32_t current = 0;
  for (std::size_t i = g.head; i < g.moves.size(); ++i)
    current += core_.map.location(g.moves[i].owner) == g.moves[i].from ? 1 : 0;
  if (current == 0) {
    g.moves.clear();
    g.head = 0;
    return false;
  }
  if (current < core_.unit_slots && !pad) return false;
  const auto unit =
      core_.blocks.allocate_unit(die, Stream::kGc, core_.pages_per_program, core_.native);
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
    core_.invalidate(mv.from);
    core_.map.place(mv.owner, to);
    core_.place(dest);
    if (!is_tpage(mv.owner)) journal_map_update(mv.owner);
    if (core_.verifier.enabled()) core_.verifier.set_slot(to, core_.verifier.slot(mv.from));
  }
  (g.fold ? core_.stats.fold_moved_slots : core_.stats.gc_moved_slots) += k;
  core_.stats.gc_padding_slots += data_slots - k;
  for (std::uint32_t j = k; j < unit->slots; ++j) core_.map.clear_owner(unit->first + j);
  if (g.head == g.moves.size()) {
    g.moves.clear();
    g.head = 0;
  }
  FlashTxn* t = core_.txns.get();
  t->op = TxnOp::kProgram;
  t->source = TxnSource::kGc;
  t->mode = core_.native;
  t->die = die;
  t->block = unit->block;
  t->page = unit->page;
  t->pages = unit->pages;
  t->bytes = unit->slots * kSectorBytes;
  core_.nand.submit(t);
  return true;
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
  const std::uint32_t die = t->die;
  DieGc& g = dies_[die];
  --g.reads_in_flight;
  // Keep only what is still valid now: the host may have overwritten pages
  // while the read was queued.
  const Ppa first = core_.layout.first_slot(core_.layout.die_block(die, t->block), t->page);
  for (std::uint32_t k = 0; k < core_.layout.slots_per_page(); ++k)
    if (core_.map.valid(first + k)) g.moves.push_back(Move{core_.map.owner(first + k), first + k});
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
  core_.blocks.on_erased(die, t->block);
  if (core_.verifier.enabled())
    core_.verifier.erase(core_.layout.first_slot(core_.layout.die_block(die, t->block), 0),
                         core_.layout.slots_per_block());
  ++core_.stats.gc_erases;
  g.victim = kNoBlock;
  g.erasing = false;
  core_.folding[die] = 0;
  core_.txns.put(t);
  check(die);
}

}  // namespace ssdtwin
