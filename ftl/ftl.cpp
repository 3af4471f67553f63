#include "ftl/ftl.h"

#include <algorithm>

#include "ftl/garbage_collector.h"

namespace ssdtwin {

FtlCore::FtlCore(EventEngine& e, NandArray& n, const FtlConfig& c, bool verify)
    : engine(e), nand(n), geo(n.geometry()), cfg(c), layout(geo),
      blocks(geo, c.gc_reserved_blocks),
      map(c.user_bytes / kSectorBytes, geo.total_slots()),
      verifier(verify, c.user_bytes / kSectorBytes, geo.total_slots()), rng(c.seed),
      native(geo.native_mode), pages_per_program(n.timing().pages_per_program(geo.native_mode)),
      unit_slots(pages_per_program * geo.slots_per_die_page()) {}

Ftl::Ftl(EventEngine& engine, NandArray& nand, const FtlConfig& cfg, bool verify)
    : core_(engine, nand, cfg, verify), buffer_(cfg.write_buffer_slots, verify),
      gc_(std::make_unique<GarbageCollector>(core_, make_gc_policy(cfg.gc_policy))) {
  nand.set_sink(this);
}

Ftl::~Ftl() = default;

std::uint64_t Ftl::table_bytes() const {
  return core_.map.bytes() + std::uint64_t{core_.geo.die_blocks()} * sizeof(BlockInfo);
}

void Ftl::write(Lpn lpn) {
  ++core_.stats.host_write_slots;
  const std::uint32_t old = core_.map.lookup(lpn);
  if (is_flash(old)) core_.invalidate(old);
  else if (is_buffered(old)) buffer_.mark_stale();
  const std::uint32_t version = core_.verifier.enabled() ? core_.verifier.on_write(lpn) : 0;
  core_.map.set(lpn, buffer_.push(lpn, version));
  last_write_ = core_.engine.now();
  try_flush(false);
  if (core_.cfg.flush_idle > 0 && buffer_.valid_entries() > 0) arm_idle_flush();
}

void Ftl::trim(Lpn lpn) {
  ++core_.stats.trim_slots;
  const std::uint32_t old = core_.map.lookup(lpn);
  if (is_flash(old)) core_.invalidate(old);
  else if (is_buffered(old)) buffer_.mark_stale();
  core_.map.set(lpn, kUnmapped);
  if (core_.verifier.enabled()) core_.verifier.on_trim(lpn);
}

ReadPlan Ftl::read(std::uint64_t cmd, Lpn first, std::uint32_t count) {
  ReadPlan plan;
  FlashTxn* cur = nullptr;
  std::uint32_t cur_block = kNoBlock, cur_page = 0;
  Verifier& v = core_.verifier;
  auto check = [&](bool ok) {
    ++core_.stats.verify_checks;
    if (!ok) ++core_.stats.verify_errors;
  };
  for (Lpn lpn = first; lpn < first + count; ++lpn) {
    ++core_.stats.host_read_slots;
    const std::uint32_t m = core_.map.lookup(lpn);
    if (!is_flash(m) || !core_.programmed(m)) {
      // Unwritten pages read as zeroes; buffered or still-programming data
      // comes from controller memory.
      plan.immediate_bytes += kSectorBytes;
      if (m == kUnmapped) {
        ++core_.stats.read_unmapped;
        if (v.enabled()) check(v.expected(lpn) == Verifier::kNone);
      } else {
        ++core_.stats.read_from_controller;
        if (v.enabled())
          check(v.expected(lpn) == (is_buffered(m) ? buffer_.version_of(m) : v.slot(m)));
      }
      continue;
    }
    if (v.enabled()) check(v.expected(lpn) == v.slot(m));
    const std::uint32_t db = core_.layout.die_block_of(m);
    const std::uint32_t page = core_.layout.page_of(m);
    if (cur && db == cur_block && page == cur_page) {
      cur->bytes += kSectorBytes;
      continue;
    }
    if (cur) core_.nand.submit(cur);
    cur = core_.txns.get();
    cur->op = TxnOp::kRead;
    cur->source = TxnSource::kHostRead;
    cur->die = core_.layout.die_of(m);
    cur->block = core_.layout.block_of(m);
    const BlockInfo& b = core_.blocks.info(cur->die, cur->block);
    cur->mode = b.mode;
    cur->page = page;
    cur->bytes = kSectorBytes;
    cur->owner = cmd;
    cur->aux = b.erase_count;  // lets verification catch a read that lost a race with an erase
    cur_block = db;
    cur_page = page;
    ++plan.flash_txns;
  }
  if (cur) core_.nand.submit(cur);
  return plan;
}

int Ftl::pick_flush_die() {
  const std::uint32_t dies = core_.geo.dies();
  for (std::uint32_t i = 0; i < dies; ++i) {
    const std::uint32_t d = (next_die_ + i) % dies;
    if (core_.nand.queued_programs(d) >= core_.cfg.programs_queued_per_die) continue;
    if (!core_.blocks.can_allocate(d, Stream::kHost, core_.pages_per_program)) continue;
    next_die_ = (d + 1) % dies;
    return static_cast<int>(d);
  }
  return -1;
}

void Ftl::try_flush(bool pad) {
  // Entries overwritten while waiting hold buffer space for nothing.
  while (buffer_.waiting_entries() > 0 &&
         core_.map.lookup(buffer_.front_lpn()) != buffer_.front_ref()) {
    buffer_.pop(false);
    buffer_.release(1);
  }
  while (buffer_.valid_entries() >= core_.unit_slots || (pad && buffer_.valid_entries() > 0)) {
    const int die = pick_flush_die();
    if (die < 0) break;
    flush_unit(static_cast<std::uint32_t>(die));
  }
}

void Ftl::flush_unit(std::uint32_t die) {
  const auto unit = core_.blocks.allocate_unit(die, Stream::kHost, core_.pages_per_program,
                                               core_.native);
  BlockInfo& block = core_.blocks.info(die, unit->block);
  std::uint32_t taken = 0;
  while (taken < unit->slots && buffer_.waiting_entries() > 0) {
    const Lpn lpn = buffer_.front_lpn();
    const bool current = core_.map.lookup(lpn) == buffer_.front_ref();
    const std::uint32_t version = buffer_.front_version();
    buffer_.pop(current);
    if (!current) {
      buffer_.release(1);
      continue;
    }
    const Ppa ppa = unit->first + taken++;
    core_.map.map_to_flash(lpn, ppa);
    ++block.valid;
    if (core_.verifier.enabled()) core_.verifier.set_slot(ppa, version);
  }
  for (std::uint32_t k = taken; k < unit->slots; ++k) core_.map.clear_owner(unit->first + k);
  ++core_.stats.flush_units;
  core_.stats.flush_padding_slots += unit->slots - taken;

  FlashTxn* t = core_.txns.get();
  t->op = TxnOp::kProgram;
  t->source = TxnSource::kHostWrite;
  t->mode = core_.native;
  t->die = die;
  t->block = unit->block;
  t->page = unit->page;
  t->pages = unit->pages;
  t->bytes = unit->slots * kSectorBytes;  // padding crosses the bus too
  t->aux = taken;                         // buffer slots to release when programmed
  core_.nand.submit(t);
  note_free(die);
  gc_->check(die);
}

void Ftl::note_free(std::uint32_t die) {
  min_free_seen_ = std::min(min_free_seen_, core_.blocks.free_blocks(die));
}

void Ftl::arm_idle_flush() {
  if (idle_timer_armed_) return;
  idle_timer_armed_ = true;
  core_.engine.schedule_at(last_write_ + core_.cfg.flush_idle, this, kIdleFlush);
}

void Ftl::on_event(std::uint32_t kind, std::uint64_t) {
  if (kind != kIdleFlush) return;
  idle_timer_armed_ = false;
  if (buffer_.valid_entries() == 0) return;
  if (core_.engine.now() - last_write_ >= core_.cfg.flush_idle) {
    try_flush(true);
    if (buffer_.valid_entries() > 0) {
      // Every die was busy: look again after another idle period.
      last_write_ = core_.engine.now();
      arm_idle_flush();
    }
  } else {
    arm_idle_flush();
  }
}

void Ftl::on_txn_complete(FlashTxn* t) {
  switch (t->source) {
    case TxnSource::kHostRead: {
      if (core_.verifier.enabled()) {
        const BlockInfo& b = core_.blocks.info(t->die, t->block);
        ++core_.stats.verify_checks;
        if (b.erase_count != t->aux || b.state == BlockState::kFree) ++core_.stats.verify_errors;
      }
      const std::uint64_t cmd = t->owner;
      const std::uint32_t bytes = t->bytes;
      core_.txns.put(t);
      listener_->on_read_data(cmd, bytes);
      return;
    }
    case TxnSource::kHostWrite: {
      core_.blocks.on_programmed(t->die, t->block, t->pages);
      buffer_.release(static_cast<std::uint32_t>(t->aux));
      const std::uint32_t die = t->die;
      core_.txns.put(t);
      gc_->check(die);
      try_flush(false);
      listener_->on_buffer_space();
      return;
    }
    case TxnSource::kGc:
      if (t->op == TxnOp::kRead) gc_->on_read_done(t);
      else if (t->op == TxnOp::kProgram) gc_->on_program_done(t);
      else gc_->on_erase_done(t);
      // A die with fewer queued operations or new free blocks may take host data.
      try_flush(false);
      return;
    case TxnSource::kMapping:
      core_.txns.put(t);
      return;
  }
}

}  // namespace ssdtwin
