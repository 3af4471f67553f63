#include "nand/nand_array.h"

#include <algorithm>
#include <stdexcept>

namespace ssdtwin {

NandArray::NandArray(EventEngine& engine, const Geometry& geo, const NandTiming& timing)
    : engine_(engine),
      program_lane_(engine.add_lane()),
      geo_(geo),
      timing_(timing),
      suspend_(timing.suspend.enabled()),
      sector_bus_time_(timing.bus_time(kSectorBytes)),
      bus_in_(timing.bus_bytes_per_s),
      bus_out_(timing.bus_bytes_per_s),
      dies_(geo.dies()),
      channel_free_at_(geo.channels, 0),
      channel_cmd_end_(geo.channels, 0) {}

namespace {
// Reads a host command waits for go ahead of programs, erases and GC reads.
bool urgent(const FlashTxn& t) {
  return t.op == TxnOp::kRead &&
         (t.source == TxnSource::kHostRead || t.source == TxnSource::kMapping ||
          t.source == TxnSource::kRecovery);
}
}  // namespace

void NandArray::submit(FlashTxn* txn) {
  Die& d = dies_[txn->die];
  txn->issued = engine_.now();
  for (NandObserver* o : observers_) o->on_submit(*txn);
  if (urgent(*txn)) {
    d.hi.push(txn);
    if (suspend_ && suspends_array(*txn)) ++d.hi_hosts;
  } else {
    d.lo.push(txn);
    ++d.lo_count;
  }
  // With suspend a held die may still take a read (dispatch decides).
  if (!d.current || suspend_) dispatch(txn->die);
}

Tick NandArray::reserve_channel(std::uint32_t die, Tick duration) {
  Tick& free_at = channel_free_at_[geo_.channel_of(die)];
  const Tick start = std::max(engine_.now(), free_at);
  free_at = start + duration;
  return free_at;
}

Tick NandArray::reserve_command(std::uint32_t die) {
  // Controllers move data in codeword-sized bursts and slip the few command
  // and address cycles of another die in between, so a command waits for at
  // most one 4 KiB burst (and for commands slipped in before it). Later
  // reservations shift by t_cmd; the end of the burst sequence already under
  // way is not moved, an approximation of tens of nanoseconds.
  const std::uint32_t ch = geo_.channel_of(die);
  Tick& free_at = channel_free_at_[ch];
  Tick& cmd_end = channel_cmd_end_[ch];
  const Tick now = engine_.now();
  if (free_at <= now) {
    free_at = now + timing_.t_cmd;
    cmd_end = free_at;
    return free_at;
  }
  const Tick slot = now + std::min(free_at - now, sector_bus_time_);
  cmd_end = std::max(slot, cmd_end) + timing_.t_cmd;
  free_at += timing_.t_cmd;
  return cmd_end;
}

void NandArray::set_op_limit(std::uint32_t n) {
  working_.assign(dies_.size(), 0);
  queued_.assign(dies_.size(), 0);
  working_dies_ = 0;
  for (std::uint32_t die = 0; die < dies_.size(); ++die)
    if (dies_[die].current || dies_[die].in_array.head) working_[die] = 1, ++working_dies_;
  op_limit_ = n;
  std::vector<std::uint32_t> queued;
  while (!waiting_dies_.empty()) {
    queued.push_back(waiting_dies_.front());
    waiting_dies_.pop();
  }
  for (const std::uint32_t die : queued) dispatch(die);
}

bool NandArray::admit_die(std::uint32_t die) {
  if (working_[die]) return true;
  if (working_dies_ >= op_limit_) {
    if (!queued_[die]) {
      queued_[die] = 1;
      waiting_dies_.push(die);
    }
    return false;
  }
  working_[die] = 1;
  ++working_dies_;
  return true;
}

void NandArray::release_die(std::uint32_t die) {
  const Die& d = dies_[die];
  if (!working_[die] || d.current || d.in_array.head) return;
  working_[die] = 0;
  --working_dies_;
  while (working_dies_ < op_limit_ && !waiting_dies_.empty()) {
    const std::uint32_t next = waiting_dies_.front();
    waiting_dies_.pop();
    queued_[next] = 0;
    dispatch(next);
  }
}

// Which reads suspend: the host's data reads and the translation-page reads
// a host read's lookup waits for: latency the host sees. Not GC reads (and
// not map loads for map updates or RAIN rebuild reads): no host command
// waits on them, and suspending a program for them would only lengthen the
// writes they serve, as GC's own reads and programs share the die.
bool NandArray::suspends_array(const FlashTxn& t) const {
  return t.op == TxnOp::kRead &&
         (t.source == TxnSource::kHostRead || (t.source == TxnSource::kMapping && t.for_host_read));
}

FlashTxn* NandArray::suspendable(const Die& d, FlashTxn* holder) const {
  // The operation first in the array: the oldest program started (cache
  // programming queues the next one's data behind it), else an erase, which
  // holds the interface until it ends. A program whose data is still coming
  // in has not reached the array; suspending it puts the read first at the
  // same cost, so it is not told apart.
  FlashTxn* op = d.in_array.head;
  if (!op && holder && holder->op == TxnOp::kErase) op = holder;
  const SuspendTiming& s = timing_.suspend;
  if (!op || op->suspends >= s.max_per_operation) return nullptr;
  if (op->op == TxnOp::kProgram ? !s.program : !s.erase) return nullptr;
  return op;
}

void NandArray::resume(std::uint32_t die) {
  Die& d = dies_[die];
  // The operation lost the time from the suspend command to the end of the
  // last read, plus the resume: everything left in the array ends that much
  // later. Programs resume once the read's data is out (the register holds
  // it until then), as a controller that finishes the read before resuming.
  const Tick delay = engine_.now() - d.suspended_at + timing_.suspend.resume_latency;
  d.shift += delay;
  d.array_free_at += delay;
  d.current = d.held;
  d.held = nullptr;
  d.suspended = nullptr;
  for (std::uint32_t k = 0; k < d.deferred_count; ++k)
    schedule_array_event(die, static_cast<Kind>(d.deferred[k].kind), d.deferred[k].at + delay);
  d.deferred_count = 0;
}

void NandArray::schedule_array_event(std::uint32_t die, Kind kind, Tick at) {
  // Without suspend the shift stays 0 and the argument is the die alone.
  const std::uint64_t arg = die | std::uint64_t{static_cast<std::uint32_t>(dies_[die].shift)} << 32;
  engine_.schedule_at(at, this, kind, arg, lane_of(kind));
}

bool NandArray::array_event_due(std::uint32_t die, std::uint32_t kind, std::uint64_t arg) {
  Die& d = dies_[die];
  const auto lag = static_cast<std::uint32_t>(static_cast<std::uint32_t>(d.shift) -
                                              static_cast<std::uint32_t>(arg >> 32));
  if (lag == 0 && !d.suspended) return true;
  if (lag != 0) {
    // Scheduled before a suspension: due that much later (and checked again then).
    schedule_array_event(die, static_cast<Kind>(kind), engine_.now() + lag);
  } else {
    if (d.deferred_count == std::size(d.deferred))
      throw std::logic_error(
          "NandArray: more array events pending during a suspension than a die holds");
    d.deferred[d.deferred_count++] = {kind, engine_.now()};
  }
  return false;
}

void NandArray::dispatch(std::uint32_t die) {
  if (suspend_)
    dispatch_as<true>(die);
  else
    dispatch_as<false>(die);
}

template <bool kSuspend>
void NandArray::dispatch_as(std::uint32_t die) {
  Die& d = dies_[die];
  // Without suspend no die is ever shifted: the event's argument is the die.
  const auto schedule_array = [&](Kind kind, Tick at) {
    if constexpr (kSuspend)
      schedule_array_event(die, kind, at);
    else
      engine_.schedule_at(at, this, kind, die, lane_of(kind));
  };
  if (d.current) {
    // A program or erase holds the interface (its data coming in, or
    // waiting for the array): a read that may suspend the array's operation
    // takes it, and gives it back on resume.
    if (!kSuspend || d.current->op == TxnOp::kRead || d.hi_hosts == 0 || !suspendable(d, d.current))
      return;
    d.held = d.current;
    d.current = nullptr;
  }
  if (op_limit_ != kNoLimit && (d.hi.head || d.lo.head) && !admit_die(die)) return;
  // With suspend, a read that may not suspend (a map update's load, a GC
  // read) waits in its queue rather than on the interface while the array
  // runs an operation a host read could suspend: holding the interface, it
  // would keep the next host read waiting for the whole operation. It goes
  // in the next suspension (if urgent) or when the operation ends (finish()
  // dispatches again), which is when it would have taken the array anyway.
  if (kSuspend && d.hi_hosts == 0 && !d.suspended &&
      (d.hi.head || (d.lo.head && d.lo.head->op == TxnOp::kRead)) && suspendable(d, nullptr))
    return;
  FlashTxn* t = nullptr;
  if (d.hi.head) {
    t = d.hi.pop();
    if (kSuspend && suspends_array(*t)) --d.hi_hosts;
  } else if (d.lo.head) {
    t = d.lo.pop();
  }
  if (!t) return;
  d.current = t;
  t->issued = engine_.now();  // from here on: dispatched
  const ModeTiming& mt = timing_.of(t->mode);
  const unsigned m = bits_per_cell(t->mode);
  switch (t->op) {
    case TxnOp::kRead: {
      // Command cycles on the channel, then the array read (after any
      // program still running in the array); data-out is reserved when tR ends.
      // A read that suspends the array's operation waits for the suspend
      // latency instead (and, in a suspension, for the reads before it). A
      // host read suspends for the reads queued ahead of it too: they go
      // first, in queue order, as they would without suspend.
      if (kSuspend && !d.suspended && (suspends_array(*t) || d.hi_hosts > 0))
        if (FlashTxn* op = suspendable(d, d.held)) {
          d.suspended = op;
          ++op->suspends;
          ++(op->op == TxnOp::kProgram ? stats_.program_suspends : stats_.erase_suspends);
          d.suspended_at = engine_.now();
          d.read_free_at = engine_.now() + timing_.suspend.suspend_latency;
        }
      Tick& array_free_at = kSuspend && d.suspended ? d.read_free_at : d.array_free_at;
      if (kSuspend && d.suspended) ++stats_.suspend_reads;
      const Tick start = std::max(reserve_command(die), array_free_at);
      const Tick busy = mt.read_time(t->page) * t->senses * t->plane_ops;
      array_free_at = start + busy;
      if (activity_) activity_->on_flash_op(die, FlashActivity::kRead, m, busy);
      ++stats_.reads[m];
      stats_.page_reads[m] += geo_.planes;
      engine_.schedule_at(array_free_at, this, kArrayReadDone, die);
      break;
    }
    case TxnOp::kProgram: {
      // Data-in for every plane and page of the operation, then tPROG. With
      // cache programming the data waits in the cache register while the
      // previous program finishes, and the register is free for the next
      // program's data as soon as this one starts in the array.
      const Tick in_end = reserve_channel(die, timing_.t_cmd + bus_in_(t->bytes));
      const Tick start = std::max(in_end, d.array_free_at);
      const Tick busy = mt.program_time(t->page) * t->plane_ops;
      d.array_free_at = start + busy;
      if (activity_) {
        activity_->on_channel_bytes(geo_.channel_of(die), t->bytes);
        activity_->on_flash_op(die, FlashActivity::kProgram, m, busy);
      }
      stats_.bus_bytes += t->bytes;
      ++stats_.programs[m];
      stats_.page_programs[m] += std::uint64_t{geo_.planes} * t->pages;
      d.in_array.push(t);
      if (timing_.cache_program) schedule_array(kRegisterFree, start);
      schedule_array(kProgramDone, d.array_free_at);
      break;
    }
    case TxnOp::kErase: {
      const Tick start = std::max(reserve_command(die), d.array_free_at);
      d.array_free_at = start + mt.tBERS;
      if (activity_) activity_->on_flash_op(die, FlashActivity::kErase, m, mt.tBERS);
      ++stats_.erases[m];
      schedule_array(kEraseDone, d.array_free_at);
      break;
    }
  }
}

void NandArray::finish(std::uint32_t die, FlashTxn* t) {
  Die& d = dies_[die];
  // Busy time is the union of operation intervals (cache programs overlap).
  const Tick now = engine_.now();
  stats_.die_busy += now - std::max(t->issued, d.last_done);
  d.last_done = now;
  if (!urgent(*t)) --d.lo_count;
  dispatch(die);
  if (op_limit_ != kNoLimit) release_die(die);
  sink_->on_txn_complete(t);
}

void NandArray::on_event(std::uint32_t kind, std::uint64_t arg) {
  const auto die = static_cast<std::uint32_t>(arg);
  Die& d = dies_[die];
  if (kind >= kRegisterFree && suspend_ && !array_event_due(die, kind, arg)) return;
  switch (kind) {
    case kArrayReadDone: {
      // The page register holds the data; move the requested sectors out.
      // Each sensing's result crosses the bus (soft-decision information).
      const std::uint64_t bytes = std::uint64_t{d.current->bytes} * d.current->senses;
      const Tick out_end = reserve_channel(die, bus_out_(bytes));
      if (activity_) activity_->on_channel_bytes(geo_.channel_of(die), bytes);
      stats_.bus_bytes += bytes;
      engine_.schedule_at(out_end, this, kOpDone, die);
      return;
    }
    case kRegisterFree:
      d.current = nullptr;
      dispatch(die);
      return;
    case kProgramDone: {
      FlashTxn* t = d.in_array.pop();
      if (d.current == t) d.current = nullptr;  // no cache programming: the die was held
      finish(die, t);
      return;
    }
    case kOpDone: {  // a read's data is out
      FlashTxn* t = d.current;
      d.current = nullptr;
      // A suspension lasts while a host read waits on the die (each
      // suspension counts once against the operation's limit), serving the
      // queue in order up to it; then the operation resumes.
      if (d.suspended && d.hi_hosts == 0) resume(die);
      finish(die, t);
      return;
    }
    default: {  // kEraseDone
      FlashTxn* t = d.current;
      d.current = nullptr;
      finish(die, t);
      return;
    }
  }
}

}  // namespace ssdtwin
