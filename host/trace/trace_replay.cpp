#include "host/trace/trace_replay.h"

#include <algorithm>
#include <cmath>

namespace ssdtwin {

namespace {

using u128 = unsigned __int128;

constexpr u128 round_up(u128 v) {
  return (v + kTracePageBytes - 1) / kTracePageBytes * kTracePageBytes;
}

IoOp io_op(TraceOp op) {
  switch (op) {
    case TraceOp::kRead:
      return IoOp::kRead;
    case TraceOp::kWrite:
      return IoOp::kWrite;
    case TraceOp::kTrim:
      return IoOp::kTrim;
    case TraceOp::kFlush:
      return IoOp::kFlush;
  }
  return IoOp::kTrim;
}

std::string range(u128 lo, u128 hi) {
  return "[" + std::to_string(static_cast<std::uint64_t>(lo)) + ", " +
         std::to_string(static_cast<std::uint64_t>(hi)) + ")";
}

}  // namespace

const char* replay_mode_name(ReplayMode m) { return m == ReplayMode::kOpen ? "open" : "closed"; }

const char* map_mode_name(MapMode m) {
  switch (m) {
    case MapMode::kError:
      return "error";
    case MapMode::kWrap:
      return "wrap";
    case MapMode::kScale:
      return "scale";
  }
  return "?";
}

// ---- AddressMap ---------------------------------------------------------------

AddressMap::AddressMap(const TraceMapping& map, std::uint64_t capacity)
    : map_(map), capacity_(capacity) {
  if (capacity_ == 0 || capacity_ % kTracePageBytes != 0)
    throw ConfigError("trace replay: the drive's user capacity " + std::to_string(capacity_) +
                      " is not a positive multiple of 4 KiB");
  if (map_.offset % kTracePageBytes != 0 || map_.offset >= capacity_)
    throw ConfigError("trace replay: offset " + std::to_string(map_.offset) +
                      " must be a multiple of 4 KiB below the user capacity " +
                      std::to_string(capacity_));
  if (map_.mode == MapMode::kScale && map_.trace_span == 0)
    throw ConfigError(
        "trace replay: map: scale needs the trace's address span (give it, or scan "
        "the trace first)");
}

void AddressMap::fail(const TraceRecord& r, const std::string& source,
                      const std::string& what) const {
  throw TraceError(source + ":" + std::to_string(r.line) + ": " + trace_op_name(r.op) + " of " +
                   std::to_string(r.bytes) + " bytes at trace offset " + std::to_string(r.offset) +
                   " " + what);
}

bool AddressMap::place(const TraceRecord& r, const std::string& source, MappedIo& out) const {
  out = MappedIo{};
  out.op = r.op;
  const bool trim = r.op == TraceOp::kTrim;
  // The IO's first byte on the drive, before page alignment.
  u128 s = u128{map_.offset} + r.offset;
  if (map_.mode == MapMode::kWrap) {
    out.wrapped = s + r.bytes > capacity_;
    if (s >= capacity_) s %= capacity_;  // a 128-bit division is a call: only when needed
  } else if (map_.mode == MapMode::kScale) {
    if (r.offset >= map_.trace_span)
      fail(r, source,
           "is beyond the trace span " + std::to_string(map_.trace_span) + " given for map: scale");
    // Scaled by whole pages, keeping the IO's place within its page, so
    // scaling does not make an aligned IO unaligned (and a read-modify-write).
    const u128 scaled = u128{r.offset} * (capacity_ - map_.offset) / map_.trace_span;
    s = map_.offset + scaled / kTracePageBytes * kTracePageBytes + r.offset % kTracePageBytes;
  }
  const u128 e = s + r.bytes;
  out.unaligned = s % kTracePageBytes != 0 || e % kTracePageBytes != 0;
  u128 lo, hi;
  if (trim) {
    lo = round_up(s);
    hi = e / kTracePageBytes * kTracePageBytes;
    if (hi <= lo) return false;
  } else {
    lo = s / kTracePageBytes * kTracePageBytes;
    hi = round_up(e);
    if (r.op == TraceOp::kWrite && out.unaligned) {
      const bool head = s % kTracePageBytes != 0, tail = e % kTracePageBytes != 0;
      out.rmw_pages = (hi - lo == kTracePageBytes) ? 1 : static_cast<std::uint32_t>(head + tail);
      out.rmw = static_cast<std::uint8_t>((head ? 1 : 0) | (tail ? 2 : 0));
    }
  }
  u128 bytes = hi - lo;
  // Room from where the mapping may place the IO to the end of the drive.
  const u128 room = capacity_ - (map_.mode == MapMode::kScale ? map_.offset : 0);
  switch (map_.mode) {
    case MapMode::kError:
      if (hi > capacity_)
        fail(r, source,
             "lands at drive bytes " + range(lo, hi) + ", past the user capacity " +
                 std::to_string(capacity_) +
                 " (map: error; use map: wrap or map: scale, or a smaller offset)");
      break;
    case MapMode::kWrap:
    case MapMode::kScale:
      if (bytes > room) {
        if (!trim)
          fail(r, source,
               "is larger than the " + std::to_string(static_cast<std::uint64_t>(room)) +
                   " bytes of the drive it can be mapped onto");
        bytes = room;  // a whole-device discard of a bigger disk: the whole drive
        if (map_.mode == MapMode::kScale) lo = map_.offset;
      }
      if (map_.mode == MapMode::kScale && lo + bytes > capacity_) lo = capacity_ - bytes;
      break;
  }
  out.start = static_cast<std::uint64_t>(lo);
  out.bytes = static_cast<std::uint64_t>(bytes);
  return true;
}

// ---- CommandSplitter ----------------------------------------------------------

CommandSplitter::CommandSplitter(std::uint64_t capacity, std::uint32_t max_transfer)
    : capacity_(capacity), max_transfer_(max_transfer) {
  if (max_transfer_ == 0 || max_transfer_ % kTracePageBytes != 0 || max_transfer_ > kMaxTrimCommand)
    throw ConfigError("trace replay: max_transfer " + std::to_string(max_transfer_) +
                      " must be a multiple of 4 KiB from 4 KiB to 2 GiB");
}

void CommandSplitter::start(const MappedIo& io) {
  pos_ = io.start;
  left_ = io.bytes;
  limit_ = io.op == TraceOp::kTrim ? kMaxTrimCommand : max_transfer_;
}

bool CommandSplitter::next(std::uint64_t& offset, std::uint32_t& bytes) {
  if (left_ == 0) return false;
  if (pos_ == capacity_) pos_ = 0;  // wrap mode: the IO continues at the start of the drive
  const std::uint64_t n = std::min({left_, limit_, capacity_ - pos_});
  offset = pos_;
  bytes = static_cast<std::uint32_t>(n);
  pos_ += n;
  left_ -= n;
  return true;
}

// ---- TraceReplay --------------------------------------------------------------

double TraceReplayStats::mean_outstanding() const {
  const Tick span = outstanding_to - outstanding_from;
  return span ? outstanding_ns / static_cast<double>(span) : 0.0;
}

std::uint64_t TraceReplayStats::total_records() const {
  std::uint64_t n = 0;
  for (const std::uint64_t r : records) n += r;
  return n;
}

TraceReplay::TraceReplay(EventEngine& engine, HostInterface& hif, const TraceReplaySpec& spec,
                         TraceReader& reader, std::uint64_t capacity, Tick interval,
                         std::uint64_t per_bytes, PhaseResult& result, TraceReplayStats& stats,
                         const Gauge* gauge)
    : engine_(engine),
      hif_(hif),
      spec_(spec),
      reader_(reader),
      result_(result),
      stats_(stats),
      gauge_(gauge),
      map_(spec.map, capacity),
      splitter_(capacity, spec.max_transfer) {
  if (!(spec_.time_scale > 0) || !std::isfinite(spec_.time_scale))
    throw ConfigError("trace replay: time_scale must be a positive number, got " +
                      std::to_string(spec_.time_scale));
  const std::uint32_t device_slots = hif_.config().device_slots;
  if (open()) {
    slots_ = spec_.iodepth ? std::min(spec_.iodepth, device_slots) : device_slots;
  } else {
    if (spec_.iodepth == 0)
      throw ConfigError("trace replay: closed loop needs an iodepth of at least 1");
    slots_ = spec_.iodepth;
  }
  phase_start_ = engine_.now();
  result_.start = result_.end = phase_start_;
  result_.series = std::make_unique<IntervalSeries>(phase_start_, interval);
  result_.by_bytes = std::make_unique<ByteStepSeries>(phase_start_, per_bytes);
}

void TraceReplay::start() {
  hif_.set_command_slots(slots_);
  hif_.set_sink(this);
  free_.resize(slots_);
  // Highest id at the bottom, so ids are taken from 0 up.
  for (std::uint32_t i = 0; i < slots_; ++i) free_[i] = slots_ - 1 - i;
  pump();
}

Tick TraceReplay::replay_time(Tick trace_time) const {
  if (spec_.time_scale == 1.0) return trace_time;
  // long double keeps whole nanoseconds exact for any realistic trace length.
  return static_cast<Tick>(std::llround(static_cast<long double>(trace_time) / spec_.time_scale));
}

bool TraceReplay::load_next() {
  TraceRecord r;
  MappedIo io;
  while (reader_.next(r)) {
    ++stats_.records[static_cast<int>(r.op)];
    if (r.op == TraceOp::kFlush) {  // no data: no placement, one command
      start_record(r);
      return true;
    }
    if (!map_.place(r, reader_.source(), io)) {
      ++stats_.trims_dropped;
      continue;
    }
    stats_.unaligned_records += io.unaligned;
    stats_.wrapped_records += io.wrapped;
    if (io.rmw_pages) {
      ++stats_.partial_page_writes;
      stats_.rmw_pages += io.rmw_pages;
    }
    start_record(r);
    cur_rmw_ = io.rmw;
    splitter_.start(io);
    return true;
  }
  return false;
}

void TraceReplay::start_record(const TraceRecord& r) {
  cur_op_ = r.op;
  cur_rmw_ = 0;
  cur_placement_ = 0;
  if (spec_.placement != TracePlacement::kNone && r.op == TraceOp::kWrite) {
    const bool device = spec_.placement == TracePlacement::kDevice;
    const std::uint32_t id = device ? r.device : r.stream;
    if (id >= spec_.placement_handles)
      throw TraceError(
          reader_.source() + ":" + std::to_string(r.line) + ": " +
          (device ? "device " : "stream ") + std::to_string(id) +
          " as a placement identifier (trace.placement: " + (device ? "device" : "stream") +
          "): expected one below " + std::to_string(spec_.placement_handles) + " (namespace " +
          std::to_string(spec_.nsid) + "'s placement handles)");
    cur_placement_ = static_cast<std::uint16_t>(id);
  }
  cur_arrival_ = phase_start_ + replay_time(r.time);
  cur_commands_ = 0;
  if (open()) {
    if (!any_arrival_) stats_.first_arrival = cur_arrival_;
    stats_.last_arrival = cur_arrival_;
    any_arrival_ = true;
  }
  have_cur_ = true;
}

void TraceReplay::pump() {
  while (!free_.empty()) {
    if (!have_cur_ && !load_next()) {
      exhausted_ = true;
      return;
    }
    if (open() && cur_arrival_ > engine_.now()) {
      if (!arrival_pending_) {
        arrival_pending_ = true;
        engine_.schedule_at(cur_arrival_, this, kArrival);
      }
      return;
    }
    if (cur_op_ == TraceOp::kFlush) {
      issue(0, 0, 0);
      have_cur_ = false;
      continue;
    }
    std::uint64_t offset = 0;
    std::uint32_t bytes = 0;
    splitter_.next(offset, bytes);
    if (++cur_commands_ == 2) ++stats_.split_records;
    // A split record's partial first page is in its first command, its
    // partial last page in its last.
    const std::uint8_t rmw = static_cast<std::uint8_t>((cur_commands_ == 1 ? cur_rmw_ & 1 : 0) |
                                                       (splitter_.done() ? cur_rmw_ & 2 : 0));
    issue(offset, bytes, rmw);
    if (splitter_.done()) have_cur_ = false;
  }
}

void TraceReplay::note_outstanding(Tick now) {
  stats_.outstanding_ns +=
      static_cast<double>(outstanding_) * static_cast<double>(now - stats_.outstanding_to);
  stats_.outstanding_to = now;
}

void TraceReplay::issue(std::uint64_t offset, std::uint32_t bytes, std::uint8_t rmw) {
  const Tick now = engine_.now();
  const std::uint32_t id = free_.back();
  free_.pop_back();
  HostCommand& c = hif_.command(id);
  c = HostCommand{};
  c.op = io_op(cur_op_);
  c.nsid = spec_.nsid;
  c.placement = cur_placement_;
  c.offset = offset;
  c.bytes = bytes;
  c.rmw = rmw;
  c.issued = now;
  c.in_use = true;
  const int op = static_cast<int>(c.op);
  if (c.op == IoOp::kFlush) {
    ++stats_.flushes;
  } else {
    if (open()) stats_.queue_delay[op].record(now - cur_arrival_);
    ++stats_.commands[op];
  }
  if (!any_issue_) stats_.first_issue = stats_.outstanding_from = stats_.outstanding_to = now;
  any_issue_ = true;
  stats_.last_issue = now;
  note_outstanding(now);
  ++outstanding_;
  stats_.max_outstanding = std::max(stats_.max_outstanding, outstanding_);
  hif_.issue(id);
  result_.peak_device_qd = std::max(result_.peak_device_qd, hif_.in_device());
}

void TraceReplay::on_complete(std::uint32_t id) {
  HostCommand& c = hif_.command(id);
  const Tick now = engine_.now();
  const int op = static_cast<int>(c.op);
  if (c.status != CmdStatus::kSuccess) {  // a zoned drive refused it (e.g. off a write pointer)
    ++result_.errors[static_cast<std::size_t>(c.status)];
  } else if (c.op == IoOp::kFlush) {
    ++result_.flushes;
    result_.flush_latency.record(now - c.issued);
  } else {
    result_.latency[op].record(now - c.issued);
    ++result_.ios[op];
    result_.bytes[op] += c.bytes;
    result_.series->add(now, op, c.bytes);
    if (gauge_) result_.series->set_gauge(now, gauge_->value());
    if (c.op == IoOp::kWrite) result_.by_bytes->add(now, c.bytes);
  }
  result_.end = now;
  c.in_use = false;
  note_outstanding(now);
  --outstanding_;
  free_.push_back(id);
  pump();
}

void TraceReplay::on_event(std::uint32_t kind, std::uint64_t /*arg*/) {
  if (kind == kArrival) {
    arrival_pending_ = false;
    pump();
  }
}

}  // namespace ssdtwin
