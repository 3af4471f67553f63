#include "ftl/ftl.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ftl/drive_failure.h"
#include "ftl/gc/garbage_collector.h"
#include "ftl/gc/relocation_engine.h"
#include "ftl/precondition/fast_writer.h"
#include "ftl/precondition/steady_layout.h"
#include "ftl/slc/slc_cache.h"
#include "sim/state_archive.h"

namespace ssdtwin {

namespace {
// Write-buffer entries beyond the host's share, for translation pages.
constexpr std::uint32_t kMapHeadroom = 64;
}  // namespace

Ftl::Ftl(EventEngine& engine, NandArray& nand, const FtlConfig& cfg, bool verify,
         const ErrorModel* errors)
    : core_(engine, nand, cfg, verify),
      map_(core_, *this),
      lanes_(cfg.fdp.enabled),
      buffer_(cfg.write_buffer_slots, kMapHeadroom, verify, cfg.fdp.handles()),
      recovery_(core_, errors),
      slc_(std::make_unique<SlcCache>(core_)),
      relocation_(std::make_unique<RelocationEngine>(core_, *slc_, make_gc_policy(cfg.gc_policy))),
      gc_(std::make_unique<GarbageCollector>(core_, *relocation_)),
      flush_(core_, *slc_, *relocation_),
      idle_flush_(engine, this, kIdleFlush),
      idle_(core_, this, kHostIdle, slc_->enabled()),
      faults_(core_, recovery_, *this),
      programs_(cfg.write_buffer_slots + kMapHeadroom) {
  nand.set_sink(this);
  core_.map_updater = &map_;
  recovery_.set_listener(this);
}

Ftl::~Ftl() = default;

void Ftl::count_by_namespace(const Namespaces& ns) {
  core_.ns_first.clear();
  core_.ns_order.clear();
  if (ns.size() < 2) return;
  std::vector<std::uint8_t> order(ns.size());
  for (std::size_t i = 0; i < ns.size(); ++i) order[i] = static_cast<std::uint8_t>(i);
  std::sort(order.begin(), order.end(), [&](std::uint8_t a, std::uint8_t b) {
    return ns.list()[a].first < ns.list()[b].first;
  });
  for (const std::uint8_t i : order) {
    core_.ns_first.push_back(ns.list()[i].first);
    core_.ns_order.push_back(i);
  }
  core_.counts_owners = true;
}

std::uint64_t Ftl::table_bytes() const {
  return core_.map.bytes() +
         std::uint64_t{core_.geo.die_blocks()} * (sizeof(BlockInfo) + sizeof(BlockHistory));
}

inline bool Ftl::front_stale() const {
  if (lanes()) {
    for (std::uint32_t k = 0; k < buffer_.lanes(); ++k)
      if (buffer_.waiting_entries(k) > 0 &&
          core_.map.location(buffer_.front_owner(k)) != buffer_.front_ref(k))
        return true;
    return false;
  }
  return buffer_.waiting_entries() > 0 &&
         core_.map.location(buffer_.front_owner()) != buffer_.front_ref();
}

inline bool Ftl::flush_due(bool pad) const {
  const std::uint32_t valid = buffer_.valid_entries();
  if (valid == 0) return false;
  if (pad) return true;
  const std::uint32_t need = flush_.need();
  if (!lanes()) return valid >= need;
  for (std::uint32_t k = 0; k < buffer_.lanes(); ++k)
    if (buffer_.valid_entries(k) >= need) return true;
  return false;
}

std::uint32_t Ftl::pick_lane(std::uint32_t unit, bool pad) const {
  std::uint32_t best = UINT32_MAX;
  for (std::uint32_t k = 0; k < buffer_.lanes(); ++k) {
    const std::uint32_t v = buffer_.valid_entries(k);
    if (v == 0 || (v < unit && !pad)) continue;
    if (best == UINT32_MAX || buffer_.front_seq(k) < buffer_.front_seq(best)) best = k;
  }
  return best;
}

std::uint64_t Ftl::lanes_programmed_seq() const {
  return programs_.oldest_unfinished(buffer_.oldest_waiting(pushed_));
}

inline void Ftl::flush_if_ready() {
  if (front_stale() || flush_due(false) || forcing()) try_flush(false);
}

inline void Ftl::drop_old_copy(std::uint32_t old) {
  if (is_flash(old))
    core_.invalidate(old);
  else if (is_buffered(old))
    buffer_.mark_stale(old);
}

inline std::uint32_t Ftl::push_to_buffer(Owner owner, std::uint32_t version) {
  const std::uint32_t ref = lanes() ? buffer_.push(owner, version, lane_of(owner), pushed_)
                                    : buffer_.push(owner, version);
  ++pushed_;
  return ref;
}

inline void Ftl::write_page(Lpn lpn, PlacementHandle handle) {
  ++core_.stats.host_write_slots;
  if (lanes()) core_.fdp.note_host(lpn, handle, core_.stats);
  core_.clear_poison(lpn);
  // push_owner() for a host page, its entry found once.
  MappingTable::Entry entry = core_.map.for_write(lpn);
  const std::uint32_t old = entry.get();
  if (old == kUnmapped) ++core_.mapped_pages;
  const std::uint32_t version = core_.verifier.enabled() ? core_.verifier.on_write(lpn) : 0;
  drop_old_copy(old);
  entry.set(push_to_buffer(lpn, version));
  map_.map_update(lpn);
  last_write_ = core_.engine.now();
  note_host_activity();
  flush_if_ready();
  if (core_.cfg.flush_idle > 0 && buffer_.valid_entries() > 0) arm_idle_flush();
  const std::uint64_t every = core_.cfg.power_loss.checkpoint_every;
  if (every > 0 && (core_.bytes_since_checkpoint += kSectorBytes) >= every) checkpoint();
}

void Ftl::write(Lpn first, std::uint32_t count, PlacementHandle handle) {
  for (std::uint32_t i = 0; i < count; ++i) write_page(first + i, handle);
}

void Ftl::checkpoint() {
  core_.stats.checkpoint_tpages += core_.dirty_list.size();
  ++core_.stats.map_checkpoints;
  core_.take_checkpoint([this](std::uint32_t tp) { write_tpage(tp); });
}

void Ftl::push_owner(Owner owner, std::uint32_t version) {
  drop_old_copy(core_.map.location(owner));
  core_.map.set_location(owner, push_to_buffer(owner, version));
}

bool Ftl::unmap(Lpn lpn) {
  ++core_.stats.trim_slots;
  const std::uint32_t old = core_.map.lookup(lpn);
  if (is_flash(old))
    core_.invalidate(old);
  else if (is_buffered(old))
    buffer_.mark_stale(old);
  if (old != kUnmapped) --core_.mapped_pages;
  core_.map.set(lpn, kUnmapped);
  core_.clear_poison(lpn);
  if (core_.verifier.enabled()) core_.verifier.on_trim(lpn);
  return old != kUnmapped;
}

void Ftl::trim(Lpn first, std::uint32_t count) {
  note_host_activity();
  const MapCache& mc = core_.map_cache;
  bool changed = false;
  for (Lpn lpn = first; lpn < first + count; ++lpn) {
    changed |= unmap(lpn);
    // One update per map segment, once its last page in the range is done.
    const bool segment_end = lpn + 1 == first + count ||
                             (!mc.whole_table() && mc.segment_of(lpn + 1) != mc.segment_of(lpn));
    if (segment_end && changed) {
      map_.map_update(lpn);
      changed = false;
    }
  }
  flush_.reopen_all();  // a larger dynamic SLC budget may open the cache again
}

bool Ftl::quiescent() const {
  return buffer_.waiting_entries() == 0 && buffer_.used() == 0 && pending_writebacks_.empty() &&
         !gc_->any_active() && core_.txns.live() == 0;
}

void Ftl::fast_write(Lpn lpn, PlacementHandle handle) {
  if (!fast_) fast_ = std::make_unique<FastWriter>(core_, *relocation_);
  fast_->write(lpn, handle);
}

std::string Ftl::steady_blocker() const {
  if (fast_ && !fast_->counted()) return "exact fast writes are still open";
  return ssdtwin::steady_blocker(core_);
}

void Ftl::fast_write_counted(Rng& rng) {
  if (!fast_) fast_ = std::make_unique<FastWriter>(core_, *relocation_);
  fast_->write_counted(rng);
}

void Ftl::fast_trim(Lpn lpn) {
  if (fast_) fast_->drain();  // the queued writes come first
  unmap(lpn);
}

bool Ftl::flush_stranded() {
  if (buffer_.valid_entries() == 0) return false;
  try_flush(true);
  return true;
}

void Ftl::end_fast(Rng& rng) {
  if (fast_) {
    fast_->finish();
    if (fast_->counted()) lay_out_owners(core_, rng);
  }
  fast_.reset();
  if (!core_.map_cache.whole_table()) map_unpersisted_ = true;
  // Fast preconditioning ends on a map checkpoint (its writes are not
  // simulated: state-only, like the rest of the fast path).
  if (core_.cfg.power_loss.checkpoint_every > 0) core_.take_checkpoint([](std::uint32_t) {});
}

void Ftl::persist_fast_map() {
  if (!map_unpersisted_) return;
  map_unpersisted_ = false;
  FastWriter w(core_, *relocation_);
  for (std::uint32_t t = 0; t < core_.map.tpages(); ++t)
    if (core_.map.location(kMapOwner | t) == kUnmapped && core_.map.tpage_maps_any(t))
      w.write_tpage(kMapOwner | t);
  w.finish();
}

void Ftl::resume_after_fast() {
  flush_.reopen_all();
  // Dies left short of erased blocks (or with an SLC cache to fold) pick up
  // where the state-only writes left them.
  for (std::uint32_t d = 0; d < core_.geo.dies(); ++d) gc_->check(d);
}

Tick Ftl::map_access_time(Lpn first, std::uint32_t count) const {
  if (count == 0) return 0;
  const MapCache& mc = core_.map_cache;
  const std::uint32_t segs = mc.segment_of(first + count - 1) - mc.segment_of(first) + 1;
  return core_.cfg.map.access_time * segs;
}

void Ftl::write_tpage(std::uint32_t tpage) { push_firmware_write(kMapOwner | tpage, kUnmapped); }

void Ftl::push_firmware_write(Owner owner, std::uint32_t from, bool rescue) {
  if (!buffer_.reserve_map()) {
    pending_writebacks_.push_back({owner, from, rescue});
    rescues_deferred_ += rescue;
    return;
  }
  push_owner(owner, from != kUnmapped && core_.verifier.enabled() ? core_.verifier.slot(from) : 0);
  if (rescue) rescue_pushed();
  try_flush(false);
}

void Ftl::rescue_pushed() {
  rescue_until_ = pushed_;
  // A Flush or FUA write already waiting now waits for this entry too.
  if (durable_wait_ != 0) force_until_ = std::max(force_until_, pushed_);
}

void Ftl::settle_rescue() {
  if (rescue_from_ == kNoRescue || rescues_deferred_ != 0) return;
  if (programmed_seq() >= rescue_until_) rescue_from_ = kNoRescue;
}

void Ftl::drain_writebacks() {
  std::size_t done = 0;
  while (done < pending_writebacks_.size()) {
    const FirmwareWrite w = pending_writebacks_[done];
    if (w.from != kUnmapped && core_.map.location(w.owner) != w.from) {
      ++done;  // overwritten or moved since: nothing to rewrite
      rescues_deferred_ -= w.rescue;
      continue;
    }
    if (!buffer_.reserve_map()) break;
    ++done;
    push_owner(w.owner,
               w.from != kUnmapped && core_.verifier.enabled() ? core_.verifier.slot(w.from) : 0);
    if (w.rescue) {
      --rescues_deferred_;
      rescue_pushed();
    }
  }
  if (done == 0) return;
  pending_writebacks_.erase(pending_writebacks_.begin(),
                            pending_writebacks_.begin() + static_cast<std::ptrdiff_t>(done));
  try_flush(false);
}

ReadPlan Ftl::read(std::uint64_t cmd, Lpn first, std::uint32_t count) {
  note_host_activity();
  const MapCache& mc = core_.map_cache;
  if (mc.whole_table()) return plan_data(cmd, first, count);
  ReadPlan plan;
  const Lpn end = first + count;
  for (Lpn a = first; a < end;) {
    const std::uint32_t seg = mc.segment_of(a);
    const Lpn b = std::min<Lpn>(end, mc.first_lpn(seg + 1));
    if (map_.ready_for_read(seg, cmd, a, b - a))
      plan.add(plan_data(cmd, a, b - a));
    else
      ++plan.deferred;
    a = b;
  }
  return plan;
}

void Ftl::resume_read(std::uint64_t cmd, Lpn first, std::uint32_t count) {
  listener_->on_read_resumed(cmd, plan_data(cmd, first, count));
}

ReadPlan Ftl::plan_data(std::uint64_t cmd, Lpn first, std::uint32_t count) {
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
    if (core_.is_poisoned(lpn)) {
      // Lost earlier: answered with an unrecovered-read error, no flash read.
      ++core_.stats.host_reads_failed;
      plan.immediate_bytes += kSectorBytes;
      continue;
    }
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
    cur = core_.read_txn(TxnSource::kHostRead, m, kSectorBytes, cmd);
    cur_block = db;
    cur_page = page;
    ++plan.flash_txns;
  }
  if (cur) core_.nand.submit(cur);
  return plan;
}

bool Ftl::pick_flush(bool pad, FlushChoice& out) {
  // The host programs in flight are tracked in the order their entries left
  // the buffer, and a finished one leaves the ring only behind every older
  // one. One program held back on a die (a survivor of a failed die, its
  // reads rebuilding the group first) keeps the ring from draining while the
  // other dies go on: no more programs start until it finishes.
  return flush_.pick(
      pad, programs_.full(),
      [&](FlushScheduler::Source& src) {
        if (!lanes()) {
          src.buffered = buffer_.valid_entries();
          return true;
        }
        // FDP: a unit holds one handle's data, in the handle's stream.
        const std::uint32_t lane = pick_lane(core_.unit_slots, pad);
        if (lane == UINT32_MAX) return false;
        src =
            FlushScheduler::Source{lane, core_.fdp.host_stream(lane), buffer_.valid_entries(lane)};
        return true;
      },
      out);
}

void Ftl::try_flush(bool pad) {
  // Entries overwritten while waiting hold buffer space for nothing.
  if (lanes()) {
    for (std::uint32_t k = 0; k < buffer_.lanes(); ++k)
      while (buffer_.waiting_entries(k) > 0 &&
             core_.map.location(buffer_.front_owner(k)) != buffer_.front_ref(k)) {
        buffer_.pop(false, k);
        buffer_.release(1);
        ++popped_;
      }
  }
  while (front_stale()) {
    buffer_.pop(false);
    buffer_.release(1);
    ++popped_;
  }
  FlushChoice c{};
  for (;;) {
    const bool p = pad || forcing();
    if (!flush_due(p) || !pick_flush(p, c)) break;
    flush_unit(c);
  }
  if (durable_wait_ != 0) check_durable();  // stale entries leave with no program
}

void Ftl::make_durable(std::uint64_t seq) {
  force_until_ = std::max(force_until_, seq);
  if (durable_wait_ == 0 || seq < durable_wait_) durable_wait_ = seq;
  try_flush(false);
}

void Ftl::check_durable() {
  settle_rescue();
  if (durable_seq() < durable_wait_) return;
  durable_wait_ = 0;
  listener_->on_durable();
}

void Ftl::flush_unit(const FlushChoice& c) {
  const bool slc = c.target != HostTarget::kNative;
  const CellMode mode = slc ? CellMode::kSlc : core_.native;
  const std::uint32_t ppp = slc ? slc_->pages_per_program() : core_.pages_per_program;
  const Stream stream = lanes() ? core_.fdp.host_stream(c.lane)
                        : slc   ? Stream::kHostSlc
                                : Stream::kHost;
  const PoolKind pool =
      c.target == HostTarget::kSlcStatic ? PoolKind::kStaticSlc : PoolKind::kNormal;
  const auto submit_parity = [&](const ProgramUnit& parity) {
    core_.nand.submit(core_.program_txn(parity, TxnSource::kHostWrite, mode));
    core_.host_program_started(c.die);
  };
  const auto unit = core_.allocate_data(c.die, stream, ppp, mode, pool, submit_parity);
  BlockInfo& block = core_.blocks.info(c.die, unit->block);
  const std::uint32_t lane = c.lane;
  const std::uint64_t first_entry = lanes() ? buffer_.front_seq(lane) : popped_;
  std::uint32_t taken = 0, stale = 0;
  const std::uint32_t slots = unit->slots;
  const Ppa first = unit->first;
  core_.map.will_place(first, slots);  // taken or padded below
  // A fill writes each die's reverse entries a unit at a time, on every
  // die in turn: more streams than the processor's prefetchers follow, so
  // a unit's first entry on a new line would come from memory while the
  // placing waits.
  core_.map.prefetch_reverse(first + slots);
  // The per-page loop, compiled twice: without per-owner counting and the
  // verifier (the common case) it is the map update and the block's count.
  const auto take = [&](auto tracked) {
    buffer_.take_front(lane, [&](Lpn lpn, std::uint32_t ref, std::uint32_t version) {
      if (taken == slots) return -1;
      const Ppa ppa = first + taken;
      if (!core_.map.place_if_at(lpn, ref, ppa)) {
        ++stale;
        return 0;
      }
      ++taken;
      if constexpr (decltype(tracked)::value) core_.note_host_placed(lpn, ppa);
      core_.place(block);
      if constexpr (decltype(tracked)::value)
        if (core_.verifier.enabled()) core_.verifier.set_slot(ppa, version);
      return 1;
    });
  };
  if (core_.counts_owners || core_.verifier.enabled())
    take(std::true_type{});
  else
    take(std::false_type{});
  popped_ += taken + stale;
  buffer_.release(stale);
  for (std::uint32_t k = taken; k < unit->slots; ++k) core_.map.clear_owner(unit->first + k);
  ++core_.stats.flush_units;
  core_.stats.flush_padding_slots += unit->slots - taken;
  (slc ? core_.stats.host_slc_slots : core_.stats.host_native_slots) += taken;

  FlashTxn* t = core_.program_txn(*unit, TxnSource::kHostWrite, mode);
  t->slots = taken;
  t->owner = programs_.started(first_entry);
  core_.nand.submit(t);
  core_.host_program_started(c.die);
  relocation_->host_programmed(c.die, unit->slots);
  core_.take_due_parity(*unit, stream, mode, pool, submit_parity);
  note_free(c.die);
  gc_->check(c.die);
  flush_.reopen(c.die);
}

std::uint32_t Ftl::min_free_blocks_seen() const {
  std::uint32_t m = min_free_seen_;
  for (std::uint32_t d = 0; d < core_.geo.dies(); ++d) m = std::min(m, core_.blocks.free_blocks(d));
  return m;
}

bool Ftl::gc_active() const { return gc_->any_active(); }

void Ftl::note_free(std::uint32_t die) {
  min_free_seen_ = std::min(min_free_seen_, core_.blocks.free_blocks(die));
}

void Ftl::arm_idle_flush() {
  if (idle_flush_.armed()) return;
  idle_flush_.arm(last_write_ + core_.cfg.flush_idle);
}

void Ftl::set_gc_firmware(FirmwareCores* cores, Tick move_time) {
  gc_->set_firmware(cores, move_time, this, kGcMovesReady);
}

void Ftl::on_event(std::uint32_t kind, std::uint64_t arg) {
  if (kind == kGcMovesReady) {
    gc_->on_moves_ready(static_cast<std::uint32_t>(arg));
    try_flush(false);  // moves programmed earn the host credit
    return;
  }
  if (kind == kHostIdle) {
    idle_.fired(arg, [&] {
      flush_.reopen_all();
      for (std::uint32_t d = 0; d < core_.geo.dies(); ++d) gc_->check(d);
    });
    return;
  }
  if (kind != kIdleFlush || !idle_flush_.fires(arg)) return;
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

void Ftl::verify_not_erased(const FlashTxn& t) {
  // Reads carry the block's erase count from when they were issued: data
  // (or a translation page) must not be read after its block was erased.
  if (!core_.verifier.enabled()) return;
  const BlockInfo& b = core_.blocks.info(t.die, t.block);
  ++core_.stats.verify_checks;
  if (b.erase_count != t.block_erases || b.state == BlockState::kFree) ++core_.stats.verify_errors;
}

void Ftl::on_txn_complete(FlashTxn* t) {
  if (t->op == TxnOp::kRead) {
    if (t->source == TxnSource::kRecovery) {
      recovery_.on_member_read(t);
      return;
    }
    if (!recovery_.on_read(t)) return;  // retried or being rebuilt: comes back later
  } else if (t->op == TxnOp::kProgram) {
    recovery_.on_programmed(*t);
    core_.blocks.history(t->die, t->block).last_program = ++core_.durable.program_seq;
    const double fail = core_.cfg.bad_blocks.program_fail_rate;
    // A program the die was still working on when it failed holds nothing
    // readable, and the die's rebuild (listed at the failure) does not know
    // it: its data, still in controller memory, is written again elsewhere.
    if (core_.durable.die_offline[t->die])
      rewrite_program(*t, /*failed_page=*/false);
    else if (fail > 0 && core_.fault_rng.uniform() < fail)
      program_failed(*t);
  }
  deliver(t);
}

void Ftl::program_failed(const FlashTxn& t) {
  // The data is still in controller memory (the buffer releases it only
  // now): it is written again elsewhere, the block takes no more units, and
  // read reclaim moves the rest of its data before it is retired.
  ++core_.stats.program_failures;
  rewrite_program(t, /*failed_page=*/true);
  core_.blocks.info(t.die, t.block).flags |= BlockInfo::kRetire;
  core_.blocks.close_early(t.die, t.block);
  reclaim_on(t.die, t.block);
}

void Ftl::rewrite_program(const FlashTxn& t, bool failed_page) {
  // A host program's entries (t.owner: its tag) stop counting as durable
  // until their rewrite is on flash.
  const bool host = t.source == TxnSource::kHostWrite && t.owner != 0;
  if (host) rescue_from_ = std::min(rescue_from_, programs_.first_entry(t.owner));
  const Ppa first = core_.layout.first_slot(core_.layout.die_block(t.die, t.block), t.page);
  for (Ppa p = first; p < first + t.pages * core_.layout.slots_per_page(); ++p) {
    const Owner o = core_.map.owner(p);
    if (o != kUnmapped && core_.map.location(o) == p) {
      ++core_.stats.rewrite_slots;
      push_firmware_write(o, p, host);
    }
    // The failed page holds nothing readable (what a scan after a power cut
    // would find there). On a failed die the slot keeps its version: a
    // rewrite deferred for buffer space takes it from there, and the die is
    // not read again.
    if (failed_page && core_.verifier.enabled()) core_.verifier.set_slot(p, Verifier::kNone);
  }
}

void Ftl::on_read_recovered(FlashTxn* t) { deliver(t); }

void Ftl::rewrite_page(std::uint32_t die, std::uint32_t block, std::uint32_t page) {
  const Ppa first = core_.layout.first_slot(core_.layout.die_block(die, block), page);
  for (std::uint32_t k = 0; k < core_.layout.slots_per_page(); ++k) {
    const Owner o = core_.map.owner(first + k);
    if (o == kUnmapped || core_.map.location(o) != first + k) continue;
    ++core_.stats.rewrite_slots;
    push_firmware_write(o, first + k);
  }
  // A failed die's page moved off: members of its super-block may now
  // erase theirs (RelocationEngine::may_erase).
  if (const std::uint32_t width = core_.cfg.rain_span_dies; width && core_.durable.die_offline[die])
    for (std::uint32_t d = die / width * width; d < (die / width + 1) * width; ++d) gc_->check(d);
}

void Ftl::reclaim_block(std::uint32_t die, std::uint32_t block) { reclaim_on(die, block); }

void Ftl::reclaim_on(std::uint32_t die, std::uint32_t block, bool power_on) {
  flush_.reopen(die);  // a victim taken up may pay the host at once
  gc_->reclaim(die, block, power_on);
}

void Ftl::check_rebuild_fits(std::uint32_t die) const {
  // What the live dies can hold once the die is gone: per die, its blocks in
  // service less GC's working space (the trigger, and a block open per
  // stream), at its group's data share ((live members - 1) / live members
  // of each stripe; parity takes the rest). The host may write its whole
  // capacity, and the flush spreads it evenly over the live dies (round
  // robin): each must hold its share, so the die with the least room
  // decides, not the sum (a group left with one member has more room per
  // die than a group still writing parity, which the sum let through: its
  // dies then ran GC-bound until no host IO completed). If that does not
  // fit, the lockstep groups run out of erased super-blocks while GC still
  // has victims to move, and real firmware reports the drive failed
  // (read-only) instead of rebuilding.
  const BlockManager& bm = core_.blocks;
  const std::uint32_t width = core_.cfg.rain_span_dies;
  const std::uint64_t per_block = core_.layout.slots_per_block();
  const std::uint32_t working = core_.cfg.gc_trigger_free_blocks + 2;
  std::uint64_t least = UINT64_MAX;
  std::uint32_t live_dies = 0;
  for (std::uint32_t d = 0; d < bm.dies(); ++d) {
    if (core_.durable.die_offline[d]) continue;
    std::uint32_t live = 0;
    for (std::uint32_t m = d / width * width; m < (d / width + 1) * width; ++m)
      live += core_.durable.die_offline[m] ? 0 : 1;
    std::uint32_t in_service = 0;
    for (std::uint32_t b = 0; b < bm.blocks_per_die(); ++b) {
      const BlockState st = bm.info(d, b).state;
      in_service += (st != BlockState::kBad && st != BlockState::kSpare) ? 1 : 0;
    }
    ++live_dies;
    // A member left alone writes no parity (nothing to protect it with).
    const std::uint64_t die_room = in_service <= working
                                       ? 0
                                       : std::uint64_t{in_service - working} * per_block *
                                             (live < 2 ? 1 : live - 1) / (live < 2 ? 1 : live);
    least = std::min(least, die_room);
  }
  const std::uint64_t room = live_dies == 0 ? 0 : least * live_dies;
  const std::uint64_t need = core_.map.logical_pages();
  if (need <= room) return;
  throw DriveFailure(
      "die " + std::to_string(die) +
      " failed and its rebuild ran out of spare: the live dies hold " + std::to_string(room) +
      " data pages after parity and GC's working space (their even shares), the user capacity is " +
      std::to_string(need) + " (ftl.rain.span: dies); a real drive goes read-only here");
}

void Ftl::die_failed(std::uint32_t die) {
  // Stripes across dies hold the die's data on the other members.
  if (core_.cfg.rain_span_dies) {
    check_rebuild_fits(die);
    recovery_.rebuild_die(die);
  }
}

void Ftl::block_failed(std::uint32_t die, std::uint32_t block) { reclaim_on(die, block); }

void Ftl::deliver(FlashTxn* t) {
  flush_.on_completion(t->die);
  switch (t->source) {
    case TxnSource::kHostRead: {
      verify_not_erased(*t);
      if (t->status == ReadStatus::kLost) {
        ++core_.stats.host_reads_failed;
        core_.for_owners_in_page(t->die, t->block, t->page, [&](Owner o) { core_.poison(o); });
      }
      const std::uint64_t cmd = t->owner;
      const std::uint32_t bytes = t->bytes;
      core_.txns.put(t);
      listener_->on_read_data(cmd, bytes);
      return;
    }
    case TxnSource::kRecovery:  // handled by recovery_
      return;
    case TxnSource::kHostWrite: {
      core_.blocks.on_programmed(t->die, t->block, t->pages);
      core_.host_program_done(t->die);
      buffer_.release(t->slots);
      if (t->owner != 0) programs_.finished(t->owner);
      const std::uint32_t die = t->die;
      core_.txns.put(t);
      gc_->check(die);
      if (!pending_writebacks_.empty()) drain_writebacks();
      try_flush(false);  // (and tells a Flush or FUA write waiting for this program)
      listener_->on_buffer_space();
      return;
    }
    case TxnSource::kGc:
      // Pages GC could not read are moved all the same (the block is being
      // emptied) but stay lost: reads of them fail until rewritten.
      if (t->op == TxnOp::kRead && t->status == ReadStatus::kLost)
        core_.for_owners_in_page(t->die, t->block, t->page, [&](Owner o) { core_.poison(o); });
      if (t->op == TxnOp::kRead) {
        gc_->on_read_done(t);
      } else if (t->op == TxnOp::kProgram) {
        gc_->on_program_done(t);
      } else {
        // With super-blocks, an erase may return one to its group's pool,
        // which every member may write.
        const std::uint32_t width = core_.cfg.rain_span_dies;
        if (width)
          for (std::uint32_t d = t->die / width * width; d < (t->die / width + 1) * width; ++d)
            flush_.reopen(d);
        gc_->on_erase_done(t);
      }
      // A die with fewer queued operations or new free blocks may take host data.
      try_flush(false);
      return;
    case TxnSource::kMapping: {
      verify_not_erased(*t);
      const std::uint64_t owner = t->owner;
      core_.txns.put(t);
      map_.on_read_done(owner);
      return;
    }
  }
}

}  // namespace ssdtwin

namespace ssdtwin {

std::unique_ptr<FlashTranslation> make_page_mapped_ftl(const FtlParts& p) {
  return std::make_unique<Ftl>(p.engine, p.nand, p.cfg, p.verify, p.errors);
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void Ftl::archive(StateArchive& ar) {
  if (!quiescent() || fast_ || !map_.idle())
    throw std::logic_error("drive-state snapshot of an FTL that is not quiescent");
  core_.archive(ar);
  buffer_.archive(ar);
  recovery_.archive(ar);
  relocation_->archive(ar);
  gc_->archive(ar);
  flush_.archive(ar);
  ar.pods(last_write_, min_free_seen_, map_unpersisted_);
  // The idle timers pending at the snapshot (sim/timer.h keeps when each
  // fires and the order they were armed in).
  idle_flush_.archive(ar);
  idle_.archive(ar);
  // Map loads, deferred reads and firmware writes are none at a quiescent
  // point (their tables hold handles only).
}

void Ftl::rearm_timers(const StateArchive& ar) {
  const Tick now = core_.engine.now();
  for (const Timer* t : {&idle_flush_, &idle_.timer()})
    if (t->armed() && t->at() < now) ar.fail("an idle timer due before the snapshot's time");
  Timer::rearm({&idle_flush_, &idle_.timer()});
}

}  // namespace ssdtwin
