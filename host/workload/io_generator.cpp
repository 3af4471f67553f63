#include "host/workload/io_generator.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ssdtwin {

IologWriter::IologWriter(const std::string& path, const std::string& device)
    : path_(path), device_(device), buf_(1 << 20) {
  // fio appends when several jobs name the same log; so do we.
  f_ = std::fopen(path.c_str(), "a");
  if (!f_)
    throw std::runtime_error("write_iolog: cannot write '" + path + "': " + std::strerror(errno));
  // Unbuffered by stdio: each flush of whole lines is one append, so
  // streams sharing the log never split each other's lines.
  std::setvbuf(f_, nullptr, _IONBF, 0);
  used_ =
      static_cast<std::size_t>(std::snprintf(buf_.data(), buf_.size(), "fio version 3 iolog\n"));
  line(0, "add", 0, 0, false);
  line(0, "open", 0, 0, false);
}

IologWriter::~IologWriter() {
  if (f_) std::fclose(f_);
}

void IologWriter::line(Tick since_start, const char* action, std::uint64_t offset,
                       std::uint64_t bytes, bool io) {
  if (buf_.size() - used_ < 256) flush();
  // fio stamps v3 lines with utime_since_now(): microseconds.
  const auto us = static_cast<unsigned long long>(since_start / kUs);
  const int n = io ? std::snprintf(buf_.data() + used_, buf_.size() - used_,
                                   "%llu %s %s %" PRIu64 " %" PRIu64 "\n", us, device_.c_str(),
                                   action, offset, bytes)
                   : std::snprintf(buf_.data() + used_, buf_.size() - used_, "%llu %s %s\n", us,
                                   device_.c_str(), action);
  used_ += static_cast<std::size_t>(std::max(n, 0));
}

void IologWriter::io(Tick since_start, IoOp op, std::uint64_t offset, std::uint32_t bytes) {
  static constexpr const char* kAction[] = {"read", "write", "trim", "sync"};
  line(since_start, kAction[static_cast<int>(op)], offset, bytes, true);
}

void IologWriter::flush() {
  if (used_ && std::fwrite(buf_.data(), 1, used_, f_) != used_)
    throw std::runtime_error("write_iolog: cannot write '" + path_ + "'");
  used_ = 0;
}

void IologWriter::close(Tick since_start) {
  line(since_start, "close", 0, 0, false);
  flush();
  if (std::fclose(f_) != 0) {
    f_ = nullptr;
    throw std::runtime_error("write_iolog: cannot write '" + path_ + "'");
  }
  f_ = nullptr;
}

struct IoGenerator::Stream {
  Stream(const PhaseSpec& s, Rng& shared)
      : spec(s), own_rng(s.seed), rng(s.seed ? own_rng : shared), pattern(s, rng) {}
  const PhaseSpec& spec;
  Rng own_rng;
  Rng& rng;
  IoPattern pattern;
  std::size_t index = 0;
  std::uint32_t first_id = 0;
  std::uint64_t issued_ios = 0, issued_bytes = 0, writes = 0;
  std::uint64_t next_placement = 0;  // round-robin over spec.placements
  std::uint16_t sq = 0;              // its submission queue
  std::uint32_t outstanding = 0;
  Tick start = 0, measure_from = 0;
  bool begun = false, stopped = false, thinking = false, done = false;
  // A flush is due (after flush_every writes, or the stream's end flush),
  // or out (the stream waits for it); the end flush was issued.
  bool flush_due = false, flushing = false, end_flushed = false;
  std::uint32_t since_think = 0;
  double offered_iops = 0;
  std::vector<std::uint32_t> free_ids;  // command slots not in use (open loop, thinking)
  Fifo<Tick> waiting;                   // arrival times waiting on the host
  Tick issue_arrival = 0;               // arrival time of the command being issued
  StreamResult* result = nullptr;
  std::unique_ptr<IologWriter> iolog;
  // Zoned streams: the host's zone writer, and each command slot's IO.
  std::unique_ptr<ZoneWriter> zones;
  std::vector<ZoneWriter::Io> zone_io;
};

IoGenerator::IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
                         Tick interval, std::uint64_t per_bytes, PhaseResult& result,
                         const Gauge* gauge, double offered_iops, const Gauge* gc_work)
    : engine_(&engine), hif_(&hif), result_(result), gauge_(gauge) {
  result_.offered_iops = offered_iops;
  phase_start_ = engine_->now();
  // The phase measures from the first stream's end of ramp (one stream: the
  // phase's own ramp).
  Tick first_measure = ~Tick{0};
  for (std::size_t k = 0; k < spec.streams(); ++k) {
    const PhaseSpec& s = spec.stream(k);
    first_measure = std::min(first_measure, s.start_delay + s.ramp_time);
  }
  measure_from_ = phase_start_ + first_measure;
  result_.start = measure_from_;
  result_.end = measure_from_;
  result_.series = std::make_unique<IntervalSeries>(measure_from_, interval);
  result_.by_bytes = std::make_unique<ByteStepSeries>(measure_from_, per_bytes);
  if (spec.report == PhaseReportKind::kLatency)
    result_.interval_latency = std::make_unique<IntervalLatencySeries>(measure_from_, interval);
  if (spec.report == PhaseReportKind::kBandwidth)
    result_.passes = std::make_unique<ByteStepSeries>(measure_from_, spec.span);
  if (spec.until_steady.round != 0) {
    const UntilSteady& u = spec.until_steady;
    if (u.while_gc && gc_work == nullptr)
      throw std::invalid_argument("until_steady.while_gc: this run counts no GC moves");
    result_.steady = std::make_unique<SteadyStateMonitor>(
        measure_from_, u.round, u.rounds, u.tolerance, u.slope_tolerance,
        SteadyEarned{u.after, gc_work, u.while_gc});
  }
  if (spec.stream_results) result_.streams.resize(spec.streams());
  std::uint32_t next_id = 0;
  for (std::size_t k = 0; k < spec.streams(); ++k) {
    const PhaseSpec& s = spec.stream(k);
    auto st = std::make_unique<Stream>(s, rng);
    st->index = k;
    st->sq = static_cast<std::uint16_t>(k % hif.config().queues);
    st->first_id = next_id;
    next_id += s.iodepth;
    st->start = phase_start_ + s.start_delay;
    st->measure_from = st->start + s.ramp_time;
    st->offered_iops = k == 0 ? offered_iops : s.rate.iops;
    if (spec.stream_results) {
      StreamResult& r = result_.streams[k];
      r.start = r.end = st->measure_from;
      r.samples.start = r.log.start = st->measure_from;
      r.samples.interval = s.sample_interval;
      r.log.interval = s.log_interval;
      st->result = &r;
    }
    if (!s.iolog_out.empty())
      st->iolog = std::make_unique<IologWriter>(s.iolog_out, s.iolog_device);
    streams_.push_back(std::move(st));
  }
  stream_of_id_.resize(next_id);
  for (const auto& st : streams_)
    std::fill_n(stream_of_id_.begin() + st->first_id, st->spec.iodepth,
                static_cast<std::uint32_t>(st->index));
}

IoGenerator::~IoGenerator() = default;

void IoGenerator::open_queues() {
  hif_->set_command_slots(static_cast<std::uint32_t>(stream_of_id_.size()));
  hif_->set_sink(this);
  for (const auto& st : streams_) hif_->set_queue_priority(st->sq, st->spec.priority);
}

void IoGenerator::start() {
  for (const auto& st : streams_) {
    if (!st->spec.zoned.enabled) continue;
    if (zone_layout_.zone_bytes == 0)
      throw std::invalid_argument("phase '" + st->spec.name +
                                  "': zoned IO needs a drive with ftl.kind zoned");
    st->zones = std::make_unique<ZoneWriter>(st->spec, zone_layout_, st->rng);
    st->zone_io.resize(st->spec.iodepth);
  }
  open_queues();
  for (const auto& st : streams_) {
    if (st->spec.start_delay > 0)
      engine_->schedule_at(st->start, this, kStart, st->index);
    else
      begin(*st);
  }
}

void IoGenerator::begin(Stream& s) {
  s.begun = true;
  if (s.offered_iops > 0) {
    for (std::uint32_t id = s.spec.iodepth; id-- > 0;) s.free_ids.push_back(s.first_id + id);
    engine_->schedule_at(engine_->now() + next_gap(s), this, kArrival, s.index);
    return;
  }
  for (std::uint32_t id = 0; id < s.spec.iodepth && !blocked(s) && has_next(s); ++id)
    issue_next(s, s.first_id + id);
  // Slots left unissued by a think pause wait in the free list.
  for (std::uint32_t id = s.spec.iodepth; id-- > 0;)
    if (!hif_->command(s.first_id + id).in_use) s.free_ids.push_back(s.first_id + id);
  if (s.outstanding == 0) stream_stopped(s);
}

bool IoGenerator::may_issue(const Stream& s) const {
  const PhaseSpec& p = s.spec;
  if (p.io_bytes && s.issued_bytes >= p.io_bytes) return false;
  if (p.ios && s.issued_ios >= p.ios) return false;
  if (p.runtime && engine_->now() >= s.measure_from + p.runtime) return false;
  if (result_.steady && result_.steady->steady()) return false;
  return true;
}

bool IoGenerator::blocked(const Stream& s) { return s.thinking || s.flushing; }

bool IoGenerator::has_next(const Stream& s) const { return s.flush_due || may_issue(s); }

bool IoGenerator::issue_next(Stream& s, std::uint32_t id) {
  if (!s.flush_due) return issue(s, id);
  issue_flush(s, id);
  return true;
}

void IoGenerator::issue_flush(Stream& s, std::uint32_t id) {
  HostCommand& c = hif_->command(id);
  c = HostCommand{};
  c.op = IoOp::kFlush;
  c.sq = s.sq;
  c.nsid = s.spec.nsid;
  c.issued = engine_->now();
  c.in_use = true;
  s.flush_due = false;
  s.flushing = true;
  if (outstanding_ == 0) busy_since_ = c.issued;
  ++outstanding_;
  ++s.outstanding;
  if (s.iolog) s.iolog->io(c.issued - s.start, c.op, 0, 0);
  hif_->issue(id);
  result_.peak_device_qd = std::max(result_.peak_device_qd, hif_->in_device());
}

void IoGenerator::flush_done(Stream& s, std::uint32_t id) {
  HostCommand& c = hif_->command(id);
  const Tick now = engine_->now();
  if (now >= measure_from_ && c.issued >= measure_from_) {
    ++result_.flushes;
    result_.flush_latency.record(now - c.issued);
  }
  if (s.result && now >= s.measure_from && c.issued >= s.measure_from) {
    ++s.result->syncs;
    s.result->sync_latency.record(now - c.issued);
  }
  c.in_use = false;
  if (--outstanding_ == 0) result_.busy += now - busy_since_;
  --s.outstanding;
  s.flushing = false;
  s.free_ids.push_back(id);
  if (s.stopped) {
    if (s.outstanding == 0) stream_stopped(s);
    return;
  }
  fill(s);
}

bool IoGenerator::issue(Stream& s, std::uint32_t id) {
  HostCommand& c = hif_->command(id);
  IoPattern::Io io;
  const ZoneWriter::Io* zio =
      nullptr;  // a zoned stream's IO (its zone action; counted toward io_size?)
  if (s.zones) [[unlikely]] {
    ZoneWriter::Io& z = s.zone_io[id - s.first_id];
    if (!s.zones->next(z)) return false;
    io = IoPattern::Io{z.op, z.offset, z.bytes};
    zio = &z;
  } else {
    io = s.pattern.next();
  }
  c = HostCommand{};
  if (zio) c.zone = zio->zone;
  // A stream bounded by bytes moves exactly them: its last IO takes what is
  // left. (A sequential stream's wrap at the range end already lands there;
  // a random one's blocks need not divide the range, and mixed sizes
  // overshoot. trimwrite's trim and write of a block go in pairs.)
  if (s.spec.io_bytes != 0 && s.spec.rw != RwKind::kTrimWrite && !zio &&
      io.bytes > s.spec.io_bytes - s.issued_bytes) {
    const std::uint64_t left = s.spec.io_bytes - s.issued_bytes;
    io.bytes = static_cast<std::uint32_t>((left + kSectorBytes - 1) / kSectorBytes * kSectorBytes);
  }
  c.op = io.op;
  c.sq = s.sq;
  c.nsid = s.spec.nsid;
  c.placement = s.spec.placement;
  if (!s.spec.placements.empty()) {
    const std::size_t n = s.spec.placements.size();
    const std::size_t k = s.spec.placement_random ? s.rng.below(n) : s.next_placement++ % n;
    c.placement = s.spec.placements[k];
  }
  c.offset = io.offset;
  c.bytes = io.bytes;
  c.issued = engine_->now();
  c.in_use = true;
  c.fua = s.spec.fua && c.op == IoOp::kWrite;
  if (c.op == IoOp::kWrite && s.spec.flush_every != 0 && ++s.writes % s.spec.flush_every == 0)
    s.flush_due = true;
  if (s.offered_iops > 0 && c.issued >= measure_from_)
    result_.queue_delay[static_cast<int>(c.op)].record(c.issued - s.issue_arrival);
  ++s.issued_ios;
  if (!zio || zio->user) s.issued_bytes += c.bytes;  // zone_log: the user's writes only
  if (outstanding_ == 0) busy_since_ = c.issued;
  ++outstanding_;
  ++s.outstanding;
  if (s.result) {
    int level = 0;
    while (level < 6 && (1u << level) < s.outstanding) ++level;
    ++s.result->depth_levels[level];
  }
  if (s.iolog && c.op != IoOp::kZoneMgmt) s.iolog->io(c.issued - s.start, c.op, c.offset, c.bytes);
  if (s.spec.thinktime > 0 && ++s.since_think >= s.spec.thinktime_blocks) {
    // fio's think time: after thinktime_blocks IOs the job waits for its
    // commands to complete, then pauses.
    s.since_think = 0;
    s.thinking = true;
  }
  hif_->issue(id);
  result_.peak_device_qd = std::max(result_.peak_device_qd, hif_->in_device());
  return true;
}

void IoGenerator::fill(Stream& s) {
  while (!s.free_ids.empty() && !blocked(s) && has_next(s)) {
    const std::uint32_t id = s.free_ids.back();
    s.free_ids.pop_back();
    if (!issue_next(s, id)) {  // a zone writer waits for a completion
      s.free_ids.push_back(id);
      break;
    }
  }
  if (!blocked(s) && s.outstanding == 0) stream_stopped(s);
}

// Inlined into on_complete, the per-IO path (a call there costs more than
// the zoned path's copy).
[[gnu::always_inline]] inline void IoGenerator::record(Stream& s, const HostCommand& c, Tick now) {
  const int op = static_cast<int>(c.op);
  if (now >= measure_from_ && c.issued >= measure_from_) {
    result_.latency[op].record(now - c.issued);
    ++result_.ios[op];
    result_.bytes[op] += c.bytes;
    result_.series->add(now, op, c.bytes);
    if (gauge_) result_.series->set_gauge(now, gauge_->value());
    if (c.op == IoOp::kWrite) {
      result_.by_bytes->add(now, c.bytes);
      if (result_.passes) result_.passes->add(now, c.bytes);
      if (c.fua) {
        ++result_.fua_writes;
        result_.fua_latency.record(now - c.issued);
      }
    }
    if (result_.interval_latency) result_.interval_latency->record(now, now - c.issued);
    if (result_.steady) result_.steady->add(now);
    result_.end = now;
  }
  if (s.result && now >= s.measure_from && c.issued >= s.measure_from) {
    StreamResult& r = *s.result;
    r.latency[op].record(now - c.issued);
    ++r.ios[op];
    r.bytes[op] += c.bytes;
    r.samples.add(now, op, c.bytes, now - c.issued);
    r.log.add(now, op, c.bytes, now - c.issued);
    r.end = now;
  }
}

void IoGenerator::on_complete(std::uint32_t id) {
  HostCommand& c = hif_->command(id);
  Stream& s = *streams_[stream_of_id_[id]];
  if (c.op == IoOp::kFlush) {
    flush_done(s, id);
    return;
  }
  if (s.zones) {
    zone_completed(s, id);
    return;
  }
  const Tick now = engine_->now();
  record(s, c, now);
  c.in_use = false;
  if (--outstanding_ == 0) result_.busy += now - busy_since_;
  --s.outstanding;
  if (s.offered_iops > 0) {
    // Open loop: the slot goes to the oldest arrival waiting on the host.
    if (!s.waiting.empty()) {
      s.issue_arrival = s.waiting.pop();
      issue(s, id);
    } else {
      s.free_ids.push_back(id);
    }
    if (s.stopped && s.outstanding == 0) stream_stopped(s);
    return;
  }
  if (s.thinking) {
    s.free_ids.push_back(id);
    if (s.outstanding == 0) {
      // As fio's, the job ends with its last IO or at its runtime, not
      // after one more pause: the phase's time is the job's.
      if (!may_issue(s)) {
        s.thinking = false;
        stream_stopped(s);
      } else {
        Tick wake = now + s.spec.thinktime;
        if (s.spec.runtime) wake = std::min(wake, s.measure_from + s.spec.runtime);
        engine_->schedule_at(wake, this, kThinkDone, s.index);
      }
    }
    return;
  }
  if (s.flushing) {  // the stream waits for its flush
    s.free_ids.push_back(id);
    return;
  }
  if (!s.stopped && has_next(s)) {
    issue_next(s, id);
  } else {
    s.free_ids.push_back(id);
    s.stopped = true;
    if (s.outstanding == 0) stream_stopped(s);
  }
}

void IoGenerator::zone_completed(Stream& s, std::uint32_t id) {
  HostCommand& c = hif_->command(id);
  const Tick now = engine_->now();
  const bool failed = c.status != CmdStatus::kSuccess;
  const bool measured = now >= measure_from_ && c.issued >= measure_from_;
  const ZoneWriter::Io& io = s.zone_io[id - s.first_id];
  if (measured) {
    if (failed) {
      ++result_.errors[static_cast<std::size_t>(c.status)];
    } else if (c.op == IoOp::kZoneMgmt) {
      ++result_.zone_mgmt;
      result_.zone_mgmt_latency.record(now - c.issued);
    } else {
      if (c.zone == ZoneAction::kAppend && result_.append_lbas.size() < PhaseResult::kAppendLog)
        result_.append_lbas.push_back(c.offset);
      if (c.op == IoOp::kWrite)
        (io.user ? result_.log_user_bytes : result_.log_gc_bytes) += c.bytes;
    }
    if (c.op == IoOp::kZoneMgmt && s.spec.rw == RwKind::kZoneLog && !failed)
      ++result_.log_zone_resets;
    result_.end = now;
  }
  if (!failed && c.op != IoOp::kZoneMgmt) record(s, c, now);
  s.zones->completed(io, c.offset, failed);
  c.in_use = false;
  if (--outstanding_ == 0) result_.busy += now - busy_since_;
  --s.outstanding;
  s.free_ids.push_back(id);
  if (s.thinking) {
    if (s.outstanding == 0) {
      if (may_issue(s)) {
        engine_->schedule_at(now + s.spec.thinktime, this, kThinkDone, s.index);
      } else {
        s.thinking = false;
        stream_stopped(s);
      }
    }
    return;
  }
  if (s.flushing) return;
  fill(s);
}

Tick IoGenerator::next_gap(Stream& s) {
  const double mean_ns = 1e9 / s.offered_iops;
  const double gap = s.spec.rate.arrival == Arrival::kPoisson
                         ? -std::log(1.0 - s.rng.uniform()) * mean_ns
                         : mean_ns;
  return std::max<Tick>(1, static_cast<Tick>(std::llround(gap)));
}

void IoGenerator::on_event(std::uint32_t kind, std::uint64_t arg) {
  Stream& s = *streams_[arg];
  if (kind == kStart) {
    begin(s);
    return;
  }
  if (kind == kThinkDone) {
    s.thinking = false;
    fill(s);
    return;
  }
  // An arrival. Only one is ever scheduled per stream, and none after its
  // stop, so no event outlives the phase.
  if (!may_issue(s)) {
    stop_arrivals(s);
    return;
  }
  const Tick now = engine_->now();
  if (now >= measure_from_) ++result_.arrivals;
  if (!s.free_ids.empty()) {
    const std::uint32_t id = s.free_ids.back();
    s.free_ids.pop_back();
    s.issue_arrival = now;
    issue(s, id);
  } else {
    s.waiting.push(now);
  }
  engine_->schedule_at(now + next_gap(s), this, kArrival, s.index);
}

void IoGenerator::stop_arrivals(Stream& s) {
  s.stopped = true;
  result_.left_on_host += s.waiting.size();
  s.waiting.clear();
  if (s.outstanding == 0) stream_stopped(s);
}

void IoGenerator::stream_stopped(Stream& s) {
  s.stopped = true;
  if (s.done || s.flushing) return;
  // The flush its last writes made due, then the end flush, before it ends
  // (its commands are all complete: every slot is free).
  if (s.spec.end_flush && !s.end_flushed) {
    s.end_flushed = true;
    s.flush_due = true;
  }
  if (s.flush_due) {
    const std::uint32_t id = s.free_ids.back();
    s.free_ids.pop_back();
    issue_flush(s, id);
    return;
  }
  s.done = true;
  if (s.iolog) s.iolog->close(engine_->now() - s.start);
  if (++done_streams_ == streams_.size()) finish();
}

void IoGenerator::finish() {
  // The phase ends when its last job does: with a think pause or an open
  // loop's quiet tail that is after the last completion, and the drive's
  // figures (power states, energy) are taken here.
  if (engine_->now() >= measure_from_ && result_.end > 0) result_.end = engine_->now();
  if (result_.interval_latency) result_.interval_latency->close();
}

void IoGenerator::drive_lost() {
  const Tick now = engine_->now();
  if (outstanding_ > 0) result_.busy += now - busy_since_;
  outstanding_ = 0;
  for (const auto& st : streams_) {
    Stream& s = *st;
    // A command the drive held fails with it; its IO is issued again, so
    // that a phase bounded by size or count still completes all of it.
    for (std::uint32_t id = s.first_id; id < s.first_id + s.spec.iodepth; ++id) {
      HostCommand& c = hif_->command(id);
      if (!c.in_use) continue;
      c.in_use = false;
      ++result_.lost_to_power_cuts;
      if (c.op == IoOp::kFlush) {  // sent again: the writes before it are still to be made durable
        s.flushing = false;
        s.flush_due = true;
        continue;
      }
      --s.issued_ios;
      s.issued_bytes -= c.bytes;
    }
    s.outstanding = 0;
    s.thinking = false;
    s.free_ids.clear();
    for (std::uint32_t id = s.spec.iodepth; id-- > 0;) s.free_ids.push_back(s.first_id + id);
  }
}

void IoGenerator::attach(EventEngine& engine, HostInterface& hif, Tick down) {
  engine_ = &engine;
  hif_ = &hif;
  // Runtime and ramp count powered time, as the cut times do.
  phase_start_ += down;
  measure_from_ += down;
  open_queues();
  const Tick now = engine_->now();
  for (const auto& st : streams_) {
    Stream& s = *st;
    s.start += down;
    s.measure_from += down;
    if (s.done) continue;
    if (!s.begun) {  // its start event went with the old engine
      engine_->schedule_at(std::max(now, s.start), this, kStart, s.index);
    } else if (s.stopped) {
      stream_stopped(s);
    } else if (s.offered_iops > 0) {
      while (!s.free_ids.empty() && !s.waiting.empty()) {
        const std::uint32_t id = s.free_ids.back();
        s.free_ids.pop_back();
        s.issue_arrival = s.waiting.pop();
        issue(s, id);
      }
      engine_->schedule_at(now + next_gap(s), this, kArrival, s.index);
    } else {
      fill(s);
    }
  }
}

double IoGenerator::progress() const {
  double most = 0;
  for (const auto& st : streams_) {
    const PhaseSpec& p = st->spec;
    double d = 0;
    if (p.io_bytes)
      d = std::max(d, static_cast<double>(st->issued_bytes) / static_cast<double>(p.io_bytes));
    if (p.ios) d = std::max(d, static_cast<double>(st->issued_ios) / static_cast<double>(p.ios));
    if (p.runtime)
      d = std::max(d, static_cast<double>(engine_->now() - phase_start_) /
                          static_cast<double>(p.start_delay + p.ramp_time + p.runtime));
    most = std::max(most, d);
  }
  return std::min(most, 1.0);
}

}  // namespace ssdtwin
