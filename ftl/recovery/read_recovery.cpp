#include "ftl/recovery/read_recovery.h"

#include <algorithm>
#include <cmath>

#include "sim/state_archive.h"

namespace ssdtwin {

namespace {
constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr double kDay = 86400.0 * 1e9;  // ticks (ns) per day
}  // namespace

ReadRecovery::ReadRecovery(FtlCore& core, const ErrorModel* model)
    : core_(core), model_(model), cfg_(core.cfg.recovery), rng_(seed(0)) {}

double decode_fail_probability(const ReadRecoveryConfig& ecc, double rber, std::uint32_t bytes) {
  if (rber <= 0) return 0;
  const double bits = 8.0 * ecc.codeword_bytes;
  const double lambda = bits * std::min(rber, 1.0);
  // P(errors <= t) for Poisson(lambda), summed in log space so that large
  // lambda does not underflow the first term.
  const double log_lambda = std::log(lambda);
  double log_term = -lambda, ok = 0;
  for (std::uint32_t i = 0; i <= ecc.correctable_bits; ++i) {
    ok += std::exp(log_term);
    log_term += log_lambda - std::log(static_cast<double>(i + 1));
  }
  const double codeword_fail = std::clamp(1.0 - ok, 0.0, 1.0);
  const double codewords = std::ceil(static_cast<double>(bytes) / ecc.codeword_bytes);
  // 1 - (1 - p)^c without losing small p.
  return -std::expm1(codewords * std::log1p(-std::min(codeword_fail, 1.0 - 1e-16)));
}

void ReadRecovery::inject(Injected faults) {
  std::sort(faults.pages.begin(), faults.pages.end());
  faults.pages.erase(std::unique(faults.pages.begin(), faults.pages.end()), faults.pages.end());
  injected_ = std::move(faults);
}

bool ReadRecovery::injected_failure(const FlashTxn& t) {
  if (injected_.rate > 0 && rng_.uniform() < injected_.rate) return true;
  if (injected_.pages.empty()) return false;
  // The page fails if it holds the current copy of a chosen logical page.
  bool hit = false;
  const Ppa first = core_.layout.first_slot(core_.layout.die_block(t.die, t.block), t.page);
  for (Ppa p = first; p < first + core_.layout.slots_per_page(); ++p) {
    const Owner o = core_.map.owner(p);
    if (o == kUnmapped || is_tpage(o) || core_.map.location(o) != p) continue;
    const auto it = std::lower_bound(injected_.pages.begin(), injected_.pages.end(), o);
    if (it == injected_.pages.end() || *it != o) continue;
    injected_.pages.erase(it);
    hit = true;
  }
  return hit;
}

double ReadRecovery::rber_of(const FlashTxn& t) const {
  if (!model_) return 0;
  const BlockInfo& b = core_.blocks.info(t.die, t.block);
  CellWear w;
  w.pe_cycles = b.erase_count;
  const Tick now = core_.engine.now();
  const BlockHistory& h = core_.blocks.history(t.die, t.block);
  w.retention_days = now > h.programmed_at ? static_cast<double>(now - h.programmed_at) / kDay : 0;
  w.reads = h.reads;
  w.mode = t.mode;
  w.die = t.die;
  w.block = t.block;
  w.page = t.page;
  return model_->rber(w);
}

bool ReadRecovery::decode(FlashTxn* t) {
  BlockInfo& b = core_.blocks.info(t->die, t->block);
  ++core_.blocks.history(t->die, t->block).reads;
  const auto steps = static_cast<std::uint32_t>(cfg_.retry.size());
  if (t->retry_need == FlashTxn::kUndecided) {
    const double rber = rber_of(*t);
    const double u = rng_.uniform();
    const bool dead = b.flags & BlockInfo::kFailed;
    std::uint32_t need = dead || (injecting() && injected_failure(*t)) ? steps + 1 : 0;
    while (need <= steps) {
      const double scale = need == 0 ? 1.0 : cfg_.retry[need - 1].rber_scale;
      if (u >= decode_fail_probability(cfg_, rber * scale, t->bytes)) break;
      ++need;
    }
    t->retry_need = static_cast<std::uint8_t>(need);
    if (need > 0) ++core_.stats.reads_retried;
  }
  const std::uint32_t need = t->retry_need;
  if (t->retry < std::min(need, steps)) {
    // The next step: a re-read at shifted read references.
    const std::uint32_t step = ++t->retry;
    t->senses = static_cast<std::uint8_t>(cfg_.retry[step - 1].senses);
    ++core_.stats.retry_reads_by_step[std::min<std::size_t>(step, FtlStats::kRetryBuckets - 1)];
    core_.nand.submit(t);
    return false;
  }
  t->senses = 1;
  if (need == 0) {
    t->status = ReadStatus::kClean;
  } else if (need <= steps) {
    t->status = ReadStatus::kRetried;
  } else {
    t->status = ReadStatus::kLost;
    ++core_.stats.reads_uncorrectable;
  }
  check_reclaim(*t, b);
  return true;
}

void ReadRecovery::check_reclaim(const FlashTxn& t, const BlockInfo& b) {
  if (!listener_) return;
  const bool disturbed =
      cfg_.reclaim_reads && core_.blocks.history(t.die, t.block).reads == cfg_.reclaim_reads;
  const bool weak = cfg_.reclaim_retry_step && t.retry_need >= cfg_.reclaim_retry_step &&
                    t.retry_need != FlashTxn::kUndecided;
  if ((disturbed || weak) && b.state == BlockState::kFull) listener_->reclaim_block(t.die, t.block);
}

bool ReadRecovery::on_read(FlashTxn* t) {
  if (!enabled()) return true;
  if (!decode(t)) return false;
  if (t->status != ReadStatus::kLost || !core_.stripes.enabled()) {
    if (t->status == ReadStatus::kLost) ++core_.stats.reads_lost;
    return true;
  }
  start_rebuild(t);
  return false;
}

void ReadRecovery::start_rebuild(FlashTxn* t) {
  if (core_.cfg.rain_span_dies) {
    if (rebuild_across(t) != kNone) return;
    t->status = ReadStatus::kLost;
    ++core_.stats.reads_lost;
    listener_->on_read_recovered(t);
    return;
  }
  const BlockInfo& b = core_.blocks.info(t->die, t->block);
  const std::uint32_t ppp = core_.nand.timing().pages_per_program(t->mode);
  const std::uint32_t units = core_.geo.pages_in_mode(t->mode) / ppp;
  const std::uint32_t unit = t->page / ppp;
  // The stripe's parity: on flash, or (block still open) the controller's
  // running XOR. A block closed before its stripe's parity was written
  // (a failed program, a power cut) has none, nor has a stripe of one unit.
  const std::uint32_t parity = core_.stripes.end(unit, units) - 1;
  if (parity == unit || (parity * ppp >= b.programmed && b.state != BlockState::kOpen)) {
    t->status = ReadStatus::kLost;
    ++core_.stats.reads_lost;
    listener_->on_read_recovered(t);
    return;
  }
  const std::uint32_t ctx = new_rebuild(t);
  // The stripe's other members: the same page position in each other
  // program unit of the stripe. Members not yet programmed are still in the
  // controller's running parity, so they need no read.
  for (std::uint32_t v = core_.stripes.first(unit); v < core_.stripes.end(unit, units); ++v) {
    const std::uint32_t page = v * ppp + t->page % ppp;
    if (v == unit || page >= b.programmed) continue;
    read_member(ctx, *t, t->die, page);
  }
  if (rebuilds_[ctx].pending == 0) member_done(ctx);
}

std::uint32_t ReadRecovery::rebuild_across(FlashTxn* t) {
  // Stripes across dies (ftl/blocks/super_blocks.h): the members are the same page
  // of the same block on the other member dies of the super-block.
  const SuperBlockTable& sb = core_.blocks.super_blocks();
  const std::uint32_t ppp = core_.nand.timing().pages_per_program(t->mode);
  const std::uint32_t g = sb.group_of(t->die);
  const std::uint32_t holder = sb.parity_die(g, t->block, t->page / ppp);
  // The parity: on flash, or (its block still being written) the
  // controller's running XOR; none when its die failed or closed the block
  // before writing it. Once GC chose the super-block, members may have been
  // erased already (each collects its block in its own time): what is left
  // of a victim has no parity. Data members not yet written are not in it.
  bool whole =
      holder != UINT32_MAX && !core_.durable.die_offline[holder] && sb.in_use(t->die, t->block);
  if (whole) {
    const BlockInfo& p = core_.blocks.info(holder, t->block);
    whole = t->page < p.programmed || p.state == BlockState::kOpen || p.state == BlockState::kFree;
  }
  if (!whole) return kNone;
  const std::uint32_t ctx = new_rebuild(t);
  for (std::uint32_t k = 0; k < sb.width; ++k) {
    const std::uint32_t d = g * sb.width + k;
    if (d == t->die || !sb.member(d, t->block)) continue;
    if (t->page < core_.blocks.info(d, t->block).programmed) read_member(ctx, *t, d, t->page);
  }
  if (rebuilds_[ctx].pending == 0) member_done(ctx);
  return ctx;
}

void ReadRecovery::rebuild_die(std::uint32_t die) {
  // Die-pages still being programmed when the die failed are in controller
  // memory (the buffer, or GC's): their data is written again from there.
  // GC victims first: their other members wait for them to erase.
  const SuperBlockTable& sb = core_.blocks.super_blocks();
  for (const bool victims : {true, false})
    for (std::uint32_t b = 0; b < core_.geo.blocks_per_plane; ++b) {
      const BlockInfo& info = core_.blocks.info(die, b);
      if (info.valid == 0 || sb.in_use(die, b) == victims) continue;
      for (std::uint32_t page = 0; page < info.programmed; ++page) {
        bool valid = false;
        core_.for_owners_in_page(die, b, page, [&](Owner) { valid = true; });
        if (!valid) continue;
        die_pages_.push_back(DiePage{die, b, page});
        ++core_.stats.die_rebuild_pages;
      }
    }
  while (die_rebuilds_ < cfg_.die_rebuilds_in_flight && !die_pages_.empty()) next_die_rebuild();
  core_.die_rebuild_running = !die_pages_.empty() || die_rebuilds_ > 0;
}

void ReadRecovery::next_die_rebuild() {
  while (!die_pages_.empty()) {
    const DiePage p = die_pages_.front();
    die_pages_.pop_front();
    bool valid = false;
    core_.for_owners_in_page(p.die, p.block, p.page, [&](Owner) { valid = true; });
    if (!valid) {  // overwritten, or rebuilt by a read, since the failure
      ++core_.stats.die_pages_skipped;
      continue;
    }
    FlashTxn* t = core_.txns.get();
    t->op = TxnOp::kRead;
    t->source = TxnSource::kRecovery;
    t->mode = core_.blocks.info(p.die, p.block).mode;
    t->die = p.die;
    t->block = p.block;
    t->page = p.page;
    t->bytes = core_.layout.slots_per_page() * kSectorBytes;
    const std::uint32_t ctx = rebuild_across(t);
    if (ctx == kNone) {
      core_.for_owners_in_page(p.die, p.block, p.page, [&](Owner o) { core_.poison(o); });
      ++core_.stats.die_pages_lost;
      core_.txns.put(t);
      continue;
    }
    rebuilds_[ctx].background = true;
    ++die_rebuilds_;
    return;
  }
}

void ReadRecovery::die_rebuild_done(const Rebuild& r) {
  FlashTxn* t = r.read;
  if (r.lost) {
    core_.for_owners_in_page(t->die, t->block, t->page, [&](Owner o) { core_.poison(o); });
    ++core_.stats.die_pages_lost;
  } else {
    ++core_.stats.pages_rebuilt;
    ++core_.stats.die_pages_rebuilt;
    listener_->rewrite_page(t->die, t->block, t->page);
  }
  core_.txns.put(t);
  --die_rebuilds_;
  next_die_rebuild();
  core_.die_rebuild_running = !die_pages_.empty() || die_rebuilds_ > 0;
}

std::uint32_t ReadRecovery::new_rebuild(FlashTxn* t) {
  std::uint32_t ctx = free_;
  if (ctx != kNone) {
    free_ = rebuilds_[ctx].next_free;
  } else {
    ctx = static_cast<std::uint32_t>(rebuilds_.size());
    rebuilds_.emplace_back();
  }
  Rebuild& r = rebuilds_[ctx];
  r = Rebuild{};
  r.read = t;
  return ctx;
}

void ReadRecovery::read_member(std::uint32_t ctx, const FlashTxn& t, std::uint32_t die,
                               std::uint32_t page) {
  Rebuild& r = rebuilds_[ctx];
  FlashTxn* m = core_.txns.get();
  m->op = TxnOp::kRead;
  m->source = TxnSource::kRecovery;
  m->mode = t.mode;
  m->die = die;
  m->block = t.block;
  m->page = page;
  m->bytes = t.bytes;
  m->owner = ctx;
  ++r.pending;
  ++r.members;
  ++core_.stats.rain_member_reads;
  core_.nand.submit(m);
}

void ReadRecovery::on_member_read(FlashTxn* t) {
  if (!decode(t)) return;  // retrying
  const auto ctx = static_cast<std::uint32_t>(t->owner);
  if (t->status == ReadStatus::kLost) rebuilds_[ctx].lost = true;
  core_.txns.put(t);
  --rebuilds_[ctx].pending;
  if (rebuilds_[ctx].pending == 0) member_done(ctx);
}

void ReadRecovery::member_done(std::uint32_t ctx) {
  // XOR of the members' data in the controller's parity engine.
  const Rebuild& r = rebuilds_[ctx];
  const Tick xor_time =
      transfer_time(std::uint64_t{r.members} * r.read->bytes, cfg_.xor_bytes_per_s);
  core_.engine.schedule_at(core_.engine.now() + xor_time, this, 0, ctx);
}

void ReadRecovery::on_event(std::uint32_t, std::uint64_t arg) {
  const auto ctx = static_cast<std::uint32_t>(arg);
  Rebuild& r = rebuilds_[ctx];
  FlashTxn* t = r.read;
  if (r.background) {
    const Rebuild done = r;
    r.read = nullptr;
    r.next_free = free_;
    free_ = ctx;
    die_rebuild_done(done);
    return;
  }
  if (r.lost) {
    t->status = ReadStatus::kLost;
    ++core_.stats.reads_lost;
  } else {
    t->status = ReadStatus::kRebuilt;
    ++core_.stats.pages_rebuilt;
  }
  r.read = nullptr;
  r.next_free = free_;
  free_ = ctx;
  if (t->status == ReadStatus::kRebuilt) listener_->rewrite_page(t->die, t->block, t->page);
  listener_->on_read_recovered(t);
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void ReadRecovery::archive(StateArchive& ar) {
  // Rebuilds in flight are none at a quiescent point; their free list holds
  // handles only, so a fresh one behaves the same.
  ar.pods(rng_, injected_.rate, failed_blocks_);
  ar.vec(injected_.pages);
}

}  // namespace ssdtwin
