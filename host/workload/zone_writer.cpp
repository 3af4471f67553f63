#include "host/workload/zone_writer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "host/workload/workload.h"

namespace ssdtwin {

ZoneWriter::ZoneWriter(const PhaseSpec& spec, const ZoneLayout& layout, Rng& rng)
    : spec_(spec),
      rng_(rng),
      mode_(spec.rw == RwKind::kZoneReset ? Mode::kReset
            : spec.rw == RwKind::kZoneLog ? Mode::kLog
                                          : Mode::kWrite),
      zone_bytes_(layout.zone_bytes),
      capacity_(layout.capacity_bytes) {
  // The range's whole zones (a partial zone at either end is left alone).
  first_ = (spec.offset + zone_bytes_ - 1) / zone_bytes_ * zone_bytes_;
  const std::uint64_t end = spec.offset + spec.span;
  zones_ = end > first_ ? static_cast<std::uint32_t>((end - first_) / zone_bytes_) : 0;
  const std::string phase = "phase '" + spec.name + "': ";
  if (zones_ == 0)
    throw std::invalid_argument(phase + "its range holds no whole zone (zones of " +
                                std::to_string(zone_bytes_) + " bytes)");
  random_ = spec.rw == RwKind::kRandWrite;
  append_ = spec.zoned.append;
  want_open_ = spec.zoned.open_zones;
  wp_.assign(zones_, 0);
  if (mode_ != Mode::kLog) return;
  slots_ = static_cast<std::uint32_t>(capacity_ / spec.bs);
  gc_free_ = spec.zoned.gc_free_zones;
  const std::uint64_t objects = spec.zoned.logical / spec.bs;
  // The collection's copies need a zone beyond those it waits for and the
  // open heads, and the data must leave garbage to collect.
  const std::uint64_t held = std::uint64_t{gc_free_} + want_open_;
  if (objects == 0 || zones_ <= held || objects >= (zones_ - held) * slots_)
    throw std::invalid_argument(
        phase + "zoned.logical (" + std::to_string(spec.zoned.logical) +
        " bytes) must be above bs and below the capacity of the range's zones less "
        "gc_free_zones + open_zones (" +
        std::to_string(zones_) + " zones of " + std::to_string(slots_) + " objects)");
  where_.assign(objects, kNowhere);
  slot_object_.assign(std::uint64_t{zones_} * slots_, 0);
  valid_.assign(zones_, 0);
  full_.assign(zones_, 0);
  for (std::uint32_t z = 0; z < zones_; ++z) free_.push_back(z);
}

bool ZoneWriter::next(Io& io) {
  io = Io{};
  switch (mode_) {
    case Mode::kReset:
      if (next_zone_ >= zones_) return false;
      io.op = IoOp::kZoneMgmt;
      io.zone = ZoneAction::kReset;
      io.offset = zone_start(next_zone_++);
      return true;
    case Mode::kWrite:
      return next_write(io);
    case Mode::kLog:
      return next_log(io);
  }
  return false;
}

bool ZoneWriter::next_write(Io& io) {
  while (open_.size() < want_open_ && next_zone_ < zones_) open_.push_back(next_zone_++);
  if (open_.empty()) return false;
  const std::size_t k = random_ ? rng_.below(open_.size()) : rr_++ % open_.size();
  const std::uint32_t z = open_[k];
  io.op = IoOp::kWrite;
  io.zone = append_ ? ZoneAction::kAppend : ZoneAction::kNone;
  io.bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(spec_.bs, capacity_ - wp_[z]));
  io.offset = zone_start(z) + (append_ ? 0 : wp_[z]);
  wp_[z] += io.bytes;
  if (wp_[z] == capacity_) open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(k));
  return true;
}

void ZoneWriter::completed(const Io& io, std::uint64_t, bool failed) {
  if (mode_ == Mode::kWrite) {
    if (!failed) return;
    // The drive refused the zone: the host writes the others and opens
    // fewer from now on.
    const auto it = std::find(open_.begin(), open_.end(), zone_of(io.offset));
    if (it == open_.end()) return;
    open_.erase(it);
    want_open_ = std::max<std::uint32_t>(1, want_open_ - 1);
    return;
  }
  if (mode_ != Mode::kLog) return;
  if (io.op == IoOp::kRead) {
    --gc_reads_;
    if (!failed) copies_.push_back({io.object, io.from});
  } else if (io.op == IoOp::kWrite) {
    if (!io.user) --gc_writes_;
  } else if (io.op == IoOp::kZoneMgmt && !failed) {
    valid_[victim_] = 0;
    full_[victim_] = 0;
    free_.push_back(victim_);
    gc_ = resetting_ = false;
    ++resets_;
  }
}

bool ZoneWriter::log_pick_head(bool user) {
  if (heads_.size() < want_open_ && free_.size() > (user ? 1u : 0u)) {
    heads_.push_back({free_.front(), 0});
    free_.erase(free_.begin());
  }
  if (heads_.empty()) return false;
  head_ = next_head_++ % static_cast<std::uint32_t>(heads_.size());
  return true;
}

void ZoneWriter::log_place(std::uint32_t object) {
  const std::uint64_t old = where_[object];
  if (old != kNowhere) --valid_[old / slots_];
  Head& h = heads_[head_];
  const std::uint64_t at = std::uint64_t{h.zone} * slots_ + h.slot;
  where_[object] = at;
  slot_object_[at] = object;
  ++valid_[h.zone];
  if (++h.slot == slots_) {
    full_[h.zone] = 1;
    heads_.erase(heads_.begin() + head_);
  }
}

void ZoneWriter::log_start_gc() {
  // Greedy: the full zone with the fewest valid objects.
  std::uint32_t best = zones_;
  for (std::uint32_t z = 0; z < zones_; ++z)
    if (full_[z] && (best == zones_ || valid_[z] < valid_[best])) best = z;
  if (best == zones_) return;
  gc_ = true;
  victim_ = best;
  gc_slot_ = 0;
}

bool ZoneWriter::next_log(Io& io) {
  const auto write_at_head = [&](std::uint32_t object, bool user) {
    io.op = IoOp::kWrite;
    io.offset = zone_start(heads_[head_].zone) + std::uint64_t{heads_[head_].slot} * spec_.bs;
    io.bytes = spec_.bs;
    io.user = user;
    io.object = object;
    log_place(object);
  };
  // Copies whose data is read go first: the victim's reset waits on them.
  while (!copies_.empty()) {
    const Copy c = copies_.back();
    if (where_[c.object] != c.from) {  // overwritten since: nothing to copy
      copies_.pop_back();
      continue;
    }
    if (!log_pick_head(false)) return false;
    copies_.pop_back();
    ++gc_writes_;
    gc_bytes_ += spec_.bs;
    write_at_head(c.object, false);
    return true;
  }
  if (!gc_ && free_.size() <= gc_free_) log_start_gc();
  if (gc_ && !resetting_) {
    const std::uint64_t base = std::uint64_t{victim_} * slots_;
    while (gc_slot_ < slots_ && where_[slot_object_[base + gc_slot_]] != base + gc_slot_)
      ++gc_slot_;
    if (gc_slot_ < slots_) {
      io.op = IoOp::kRead;
      io.offset = zone_start(victim_) + std::uint64_t{gc_slot_} * spec_.bs;
      io.bytes = spec_.bs;
      io.user = false;
      io.object = slot_object_[base + gc_slot_];
      io.from = base + gc_slot_;
      ++gc_slot_;
      ++gc_reads_;
      return true;
    }
    if (gc_reads_ == 0) {  // every valid object read and its copy placed
      resetting_ = true;
      io.op = IoOp::kZoneMgmt;
      io.zone = ZoneAction::kReset;
      io.offset = zone_start(victim_);
      io.user = false;
      return true;
    }
  }
  // A user write; a new head zone only while another stays free for the
  // collection's copies.
  if (!log_pick_head(true)) return false;
  write_at_head(static_cast<std::uint32_t>(rng_.below(where_.size())), true);
  return true;
}

}  // namespace ssdtwin
