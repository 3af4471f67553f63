#include "ftl/zoned_ftl.h"

#include <algorithm>
#include <stdexcept>

namespace ssdtwin {

const char* cmd_status_name(CmdStatus s) {
  // NVMe status (SCT/SC): 0/00h, 0/01h, 0/02h, 0/80h, then the Zoned
  // Namespace Command Set's 1/B8h-BFh, in that order but for B9h-BBh.
  static constexpr const char* kNames[kCmdStatuses] = {
      "success",                        // 0/00h
      "invalid_opcode",                 // 0/01h
      "invalid_field",                  // 0/02h
      "lba_out_of_range",               // 0/80h
      "zone_boundary_error",            // 1/B8h
      "zone_is_full",                   // 1/B9h
      "zone_is_read_only",              // 1/BAh
      "zone_is_offline",                // 1/BBh
      "zone_invalid_write",             // 1/BCh
      "too_many_active_zones",          // 1/BDh
      "too_many_open_zones",            // 1/BEh
      "invalid_zone_state_transition",  // 1/BFh
  };
  return kNames[static_cast<std::size_t>(s)];
}

const char* zone_state_name(ZoneState s) {
  static constexpr const char* kNames[] = {
      "empty", "implicitly_opened", "explicitly_opened", "closed", "full", "read_only", "offline"};
  return kNames[static_cast<int>(s)];
}

ZonedFtl::ZonedFtl(NandArray& nand, const FtlConfig& cfg)
    : nand_(nand),
      geo_(nand.geometry()),
      z_(cfg.zoned),
      mode_(geo_.native_mode),
      ppp_(nand.timing().pages_per_program(geo_.native_mode)),
      unit_slots_(ppp_ * geo_.slots_per_die_page()),
      units_per_block_(geo_.pages_per_block / ppp_),
      groups_(geo_.dies() / z_.stripe_dies),
      buffer_slots_(cfg.write_buffer_slots),
      zones_(z_.zones) {
  nand_.set_sink(this);
}

FlashTxn* ZonedFtl::txn(TxnOp op, std::uint32_t die, std::uint32_t block, std::uint32_t page,
                        std::uint64_t owner) {
  FlashTxn* t = txns_.get();
  t->op = op;
  // A reset's erases are the host's doing, as its programs are.
  t->source = op == TxnOp::kRead ? TxnSource::kHostRead : TxnSource::kHostWrite;
  t->mode = mode_;
  t->die = die;
  t->block = block;
  t->page = page;
  t->owner = owner;
  ++in_flight_;
  return t;
}

bool ZonedFtl::reserve_buffer(std::uint32_t pages) {
  if (buffer_used_ + pages > buffer_slots_) return false;
  buffer_used_ += pages;
  return true;
}

void ZonedFtl::set_state(std::uint32_t zone, ZoneState to) {
  Zone& z = zones_[zone];
  open_ -= is_open(z.state);
  active_ -= is_active(z.state);
  z.state = to;
  open_ += is_open(to);
  active_ += is_active(to);
}

CmdStatus ZonedFtl::open_zone(std::uint32_t zone, bool explicitly) {
  Zone& z = zones_[zone];
  if (z.state == ZoneState::kEmpty && active_ >= z_.max_active)
    return fail(CmdStatus::kTooManyActiveZones);
  if (open_ >= z_.max_open) {
    // An implicitly opened zone may be closed to make room (ZNS 1.1,
    // 2.1.1.4.1): the one left untouched longest. Explicitly opened zones
    // stay open until the host says otherwise.
    std::uint32_t victim = z_.zones;
    for (std::uint32_t i = 0; i < z_.zones; ++i)
      if (zones_[i].state == ZoneState::kImplicitlyOpened &&
          (victim == z_.zones || zones_[i].touched < zones_[victim].touched))
        victim = i;
    if (victim == z_.zones) return fail(CmdStatus::kTooManyOpenZones);
    set_state(victim, ZoneState::kClosed);
    ++zstats_.implicit_closes;
  }
  set_state(zone, explicitly ? ZoneState::kExplicitlyOpened : ZoneState::kImplicitlyOpened);
  ++(explicitly ? zstats_.explicit_opens : zstats_.implicit_opens);
  z.touched = ++clock_;
  return CmdStatus::kSuccess;
}

CmdStatus ZonedFtl::check_command(HostCommand& c) {
  const std::uint64_t pages = c.bytes / kSectorBytes;
  const std::uint64_t end = std::uint64_t{z_.zones} * z_.zone_slots;
  if (c.op == IoOp::kFlush) return CmdStatus::kSuccess;
  if (c.op == IoOp::kTrim) return fail(CmdStatus::kInvalidOpcode);  // no deallocation inside a zone
  if (c.first_page >= end || c.first_page + pages > end) return fail(CmdStatus::kLbaOutOfRange);
  const auto zone = static_cast<std::uint32_t>(c.first_page / z_.zone_slots);
  const std::uint64_t in_zone = c.first_page % z_.zone_slots;
  switch (c.op) {
    case IoOp::kRead:
      if (c.zone != ZoneAction::kNone) return fail(CmdStatus::kInvalidField);
      // Reads may cross zones; an offline zone has no readable data.
      for (std::uint64_t z = zone; z * z_.zone_slots < c.first_page + pages; ++z)
        if (zones_[z].state == ZoneState::kOffline) return fail(CmdStatus::kZoneOffline);
      return CmdStatus::kSuccess;
    case IoOp::kZoneMgmt:
      if (in_zone != 0 || c.zone == ZoneAction::kNone || c.zone == ZoneAction::kAppend)
        return fail(CmdStatus::kInvalidField);
      return CmdStatus::kSuccess;
    case IoOp::kWrite:
      if (c.zone != ZoneAction::kNone && c.zone != ZoneAction::kAppend)
        return fail(CmdStatus::kInvalidField);
      // An append names the zone by its start (ZSLBA).
      if (c.zone == ZoneAction::kAppend && in_zone != 0) return fail(CmdStatus::kInvalidField);
      return check_write(c, zone, in_zone, pages);
    default:
      return fail(CmdStatus::kInvalidOpcode);
  }
}

CmdStatus ZonedFtl::check_write(HostCommand& c, std::uint32_t zone, std::uint64_t in_zone,
                                std::uint64_t pages) {
  Zone& z = zones_[zone];
  switch (z.state) {
    case ZoneState::kFull:
      return fail(CmdStatus::kZoneFull);
    case ZoneState::kReadOnly:
      return fail(CmdStatus::kZoneReadOnly);
    case ZoneState::kOffline:
      return fail(CmdStatus::kZoneOffline);
    default:
      break;
  }
  const bool append = c.zone == ZoneAction::kAppend;
  if (!append && in_zone != z.wp) return fail(CmdStatus::kZoneInvalidWrite);
  if (z.wp + pages > z_.capacity_slots) return fail(CmdStatus::kZoneBoundary);
  if (z.state == ZoneState::kEmpty || z.state == ZoneState::kClosed) {
    const CmdStatus s = open_zone(zone, false);
    if (s != CmdStatus::kSuccess) return s;
  }
  if (append) {
    c.first_page = static_cast<std::uint32_t>(std::uint64_t{zone} * z_.zone_slots + z.wp);
    ++zstats_.appends;
  }
  z.wp += pages;
  z.touched = ++clock_;
  // A zone written to its capacity is full: it no longer holds an open or
  // active resource.
  if (z.wp == z_.capacity_slots) set_state(zone, ZoneState::kFull);
  return CmdStatus::kSuccess;
}

void ZonedFtl::write(Lpn first, std::uint32_t count, PlacementHandle) {
  const auto zone = static_cast<std::uint32_t>(first / z_.zone_slots);
  Zone& z = zones_[zone];
  // Data for what the zone accepted; a reset since the write was accepted
  // (a host error NVMe leaves undefined) drops it.
  const std::uint64_t take = std::min<std::uint64_t>(count, z.wp - std::min(z.wp, z.arrived));
  buffer_used_ -= static_cast<std::uint32_t>(count - take);
  z.arrived += take;
  stats_.host_write_slots += take;
  program_ready(zone, false);
  if (take != count && listener_) listener_->on_buffer_space();
}

void ZonedFtl::program_ready(std::uint32_t zone, bool pad) {
  Zone& z = zones_[zone];
  // A full zone's last partial unit has all its data once everything it
  // accepted arrived: padded out, it goes too.
  pad = pad || (z.state == ZoneState::kFull && z.arrived == z.wp);
  for (;;) {
    const std::uint64_t waiting = z.arrived - std::min(z.arrived, z.units * unit_slots_);
    if (waiting == 0 || (waiting < unit_slots_ && !pad)) return;
    const auto data = static_cast<std::uint32_t>(std::min<std::uint64_t>(waiting, unit_slots_));
    FlashTxn* t = txn(TxnOp::kProgram, die_of(zone, z.units), block_of(zone, z.units),
                      page_of(z.units), zone);
    t->pages = ppp_;
    t->bytes = unit_slots_ * kSectorBytes;  // padding crosses the bus too
    t->slots = data;
    ++z.units;
    ++z.in_flight;
    ++stats_.flush_units;
    stats_.host_native_slots += data;
    stats_.flush_padding_slots += unit_slots_ - data;
    nand_.submit(t);
  }
}

ReadPlan ZonedFtl::read(std::uint64_t cmd, Lpn first, std::uint32_t count) {
  ReadPlan plan;
  stats_.host_read_slots += count;
  FlashTxn* open = nullptr;  // the die-page read being gathered
  for (std::uint32_t i = 0; i < count; ++i) {
    const Lpn lpn = first + i;
    const auto zone = static_cast<std::uint32_t>(lpn / z_.zone_slots);
    const std::uint64_t in_zone = lpn % z_.zone_slots;
    const Zone& z = zones_[zone];
    const std::uint64_t unit = in_zone / unit_slots_;
    if (in_zone >= z.wp) {  // never written since the last reset: zeroes
      ++stats_.read_unmapped;
      plan.immediate_bytes += kSectorBytes;
      open = nullptr;
      continue;
    }
    // Programs finish in about the order they went: those not yet known
    // done are read from the buffer.
    if (unit + z.in_flight >= z.units) {
      ++stats_.read_from_controller;
      plan.immediate_bytes += kSectorBytes;
      open = nullptr;
      continue;
    }
    const std::uint32_t die = die_of(zone, unit), block = block_of(zone, unit);
    const auto page = static_cast<std::uint32_t>(page_of(unit) +
                                                 in_zone % unit_slots_ / geo_.slots_per_die_page());
    if (open && open->die == die && open->block == block && open->page == page) {
      open->bytes += kSectorBytes;
      continue;
    }
    if (open) nand_.submit(open);
    open = txn(TxnOp::kRead, die, block, page, cmd);
    open->bytes = kSectorBytes;
    ++plan.flash_txns;
  }
  if (open) nand_.submit(open);
  return plan;
}

bool ZonedFtl::zone_manage(std::uint64_t cmd, ZoneAction a, Lpn first_page, CmdStatus& status) {
  const auto zone = static_cast<std::uint32_t>(first_page / z_.zone_slots);
  Zone& z = zones_[zone];
  status = CmdStatus::kSuccess;
  const auto invalid = [&] {
    status = fail(CmdStatus::kZoneInvalidTransition);
    return false;
  };
  switch (a) {
    case ZoneAction::kOpen:
      switch (z.state) {
        case ZoneState::kEmpty:
        case ZoneState::kClosed:
          status = open_zone(zone, true);
          return false;
        case ZoneState::kImplicitlyOpened:  // holds its open resource already
          set_state(zone, ZoneState::kExplicitlyOpened);
          ++zstats_.explicit_opens;
          return false;
        case ZoneState::kExplicitlyOpened:
          return false;
        default:
          return invalid();
      }
    case ZoneAction::kClose:
      if (z.state == ZoneState::kClosed) return false;
      if (!is_open(z.state)) return invalid();
      // Nothing written: the zone goes back to Empty (no resource kept).
      set_state(zone, z.wp == 0 ? ZoneState::kEmpty : ZoneState::kClosed);
      ++zstats_.closes;
      return false;
    case ZoneAction::kFinish:
      if (z.state == ZoneState::kFull) return false;
      if (z.state == ZoneState::kReadOnly || z.state == ZoneState::kOffline) return invalid();
      set_state(zone, ZoneState::kFull);
      ++zstats_.finishes;
      // The partial unit in the buffer is padded out and programmed: what
      // a finish costs on flash. The rest of the zone stays erased.
      program_ready(zone, z.arrived == z.wp);
      if (z.in_flight == 0 && z.arrived == z.wp) return false;
      z.waiting = true;
      z.waiting_cmd = cmd;
      return true;
    case ZoneAction::kReset: {
      if (z.state == ZoneState::kReadOnly || z.state == ZoneState::kOffline) return invalid();
      if (z.state == ZoneState::kEmpty) return false;
      ++zstats_.resets;
      // What waits in the buffer is dropped; every die-block the zone
      // programmed is erased (an erased block needs none).
      const std::uint64_t queued = z.arrived - std::min(z.arrived, z.units * unit_slots_);
      buffer_used_ -= static_cast<std::uint32_t>(queued);
      for (std::uint32_t k = 0; k < z_.stripe_dies && k < z.units; ++k) {
        const std::uint64_t on_die = (z.units - k + z_.stripe_dies - 1) / z_.stripe_dies;
        const std::uint64_t blocks = (on_die + units_per_block_ - 1) / units_per_block_;
        for (std::uint64_t b = 0; b < blocks; ++b) {
          ++z.erasing;
          ++zstats_.reset_erases;
          nand_.submit(txn(TxnOp::kErase, die_of(zone, k),
                           static_cast<std::uint32_t>((zone / groups_) * z_.blocks_per_die + b), 0,
                           zone));
        }
      }
      set_state(zone, ZoneState::kEmpty);
      z.wp = z.arrived = z.units = 0;
      if (queued > 0 && listener_) listener_->on_buffer_space();
      if (z.erasing == 0 && z.in_flight == 0) return false;
      z.waiting = true;
      z.waiting_cmd = cmd;
      return true;
    }
    case ZoneAction::kOffline:
      if (z.state == ZoneState::kOffline) return false;
      if (z.state != ZoneState::kReadOnly) return invalid();
      set_state(zone, ZoneState::kOffline);
      return false;
    default:
      status = fail(CmdStatus::kInvalidField);
      return false;
  }
}

void ZonedFtl::fail_zone(std::uint32_t zone, bool offline) {
  set_state(zone, offline ? ZoneState::kOffline : ZoneState::kReadOnly);
}

void ZonedFtl::maybe_done(std::uint32_t zone) {
  Zone& z = zones_[zone];
  if (!z.waiting || z.erasing != 0 || z.in_flight != 0 || z.arrived != z.wp) return;
  z.waiting = false;
  if (listener_) listener_->on_zone_done(z.waiting_cmd);
}

void ZonedFtl::on_txn_complete(FlashTxn* t) {
  --in_flight_;
  const TxnOp op = t->op;
  const std::uint64_t owner = t->owner;
  const std::uint32_t slots = t->slots, bytes = t->bytes;
  txns_.put(t);
  switch (op) {
    case TxnOp::kRead:
      if (listener_) listener_->on_read_data(owner, bytes);
      return;
    case TxnOp::kProgram: {
      const auto zone = static_cast<std::uint32_t>(owner);
      --zones_[zone].in_flight;
      buffer_used_ -= slots;
      maybe_done(zone);
      if (listener_) listener_->on_buffer_space();
      return;
    }
    case TxnOp::kErase: {
      const auto zone = static_cast<std::uint32_t>(owner);
      --zones_[zone].erasing;
      maybe_done(zone);
      return;
    }
  }
}

std::unique_ptr<FlashTranslation> make_zoned_ftl(const FtlParts& p) {
  return std::make_unique<ZonedFtl>(p.nand, p.cfg);
}

}  // namespace ssdtwin
