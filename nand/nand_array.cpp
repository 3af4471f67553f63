#include "nand/nand_array.h"

#include <algorithm>

namespace ssdtwin {

NandArray::NandArray(EventEngine& engine, const Geometry& geo, const NandTiming& timing)
    : engine_(engine),
      program_lane_(engine.add_lane()),
      geo_(geo),
      timing_(timing),
      dies_(geo.dies()),
      channel_free_at_(geo.channels, 0), channel_cmd_end_(geo.channels, 0) {}

namespace {
// Reads a host command waits for go ahead of programs, erases and GC reads.
bool urgent(const FlashTxn& t) {
  return t.op == TxnOp::kRead && (t.source == TxnSource::kHostRead ||
                                  t.source == TxnSource::kMapping ||
                                  t.source == TxnSource::kRecovery);
}
}  // namespace

void NandArray::submit(FlashTxn* txn) {
  Die& d = dies_[txn->die];
  txn->issued = engine_.now();
  for (NandObserver* o : observers_) o->on_submit(*txn);
  if (urgent(*txn)) {
    d.hi.push(txn);
  } else {
    d.lo.push(txn);
    ++d.lo_count;
  }
  if (!d.current) dispatch(txn->die);
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
  const Tick slot = now + std::min(free_at - now, timing_.bus_time(kSectorBytes));
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

void NandArray::dispatch(std::uint32_t die) {
  Die& d = dies_[die];
  if (d.current) return;
  if (op_limit_ != kNoLimit && (d.hi.head || d.lo.head) && !admit_die(die)) return;
  FlashTxn* t = nullptr;
  if (d.hi.head) t = d.hi.pop();
  else if (d.lo.head) t = d.lo.pop();
  if (!t) return;
  d.current = t;
  t->issued = engine_.now();  // from here on: dispatched
  const ModeTiming& mt = timing_.of(t->mode);
  const unsigned m = bits_per_cell(t->mode);
  switch (t->op) {
    case TxnOp::kRead: {
      // Command cycles on the channel, then the array read (after any
      // program still running in the array); data-out is reserved when tR ends.
      const Tick start = std::max(reserve_command(die), d.array_free_at);
      const Tick busy = mt.read_time(t->page) * t->senses * t->plane_ops;
      d.array_free_at = start + busy;
      if (activity_) activity_->on_flash_op(die, FlashActivity::kRead, m, busy);
      ++stats_.reads[m];
      stats_.page_reads[m] += geo_.planes;
      engine_.schedule_at(d.array_free_at, this, kArrayReadDone, die);
      break;
    }
    case TxnOp::kProgram: {
      // Data-in for every plane and page of the operation, then tPROG. With
      // cache programming the data waits in the cache register while the
      // previous program finishes, and the register is free for the next
      // program's data as soon as this one starts in the array.
      const Tick in_end = reserve_channel(die, timing_.t_cmd + timing_.bus_time(t->bytes));
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
      if (timing_.cache_program) engine_.schedule_at(start, this, kRegisterFree, die);
      engine_.schedule_at(d.array_free_at, this, kProgramDone, die, program_lane_);
      break;
    }
    case TxnOp::kErase: {
      const Tick start = std::max(reserve_command(die), d.array_free_at);
      d.array_free_at = start + mt.tBERS;
      if (activity_) activity_->on_flash_op(die, FlashActivity::kErase, m, mt.tBERS);
      ++stats_.erases[m];
      engine_.schedule_at(d.array_free_at, this, kOpDone, die);
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
  switch (kind) {
    case kArrayReadDone: {
      // The page register holds the data; move the requested sectors out.
      // Each sensing's result crosses the bus (soft-decision information).
      const std::uint64_t bytes = std::uint64_t{d.current->bytes} * d.current->senses;
      const Tick out_end = reserve_channel(die, timing_.bus_time(bytes));
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
    default: {
      FlashTxn* t = d.current;
      d.current = nullptr;
      finish(die, t);
      return;
    }
  }
}

}  // namespace ssdtwin
