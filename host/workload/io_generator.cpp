#include "host/workload/io_generator.h"

#include <algorithm>
#include <cmath>

namespace ssdtwin {

IoGenerator::IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
                         Tick interval, std::uint64_t per_bytes, PhaseResult& result,
                         const Gauge* gauge, double offered_iops)
    : engine_(engine), hif_(hif), spec_(spec), pattern_(spec, rng), result_(result),
      gauge_(gauge), rng_(rng), offered_iops_(offered_iops) {
  result_.offered_iops = offered_iops;
  phase_start_ = engine_.now();
  measure_from_ = phase_start_ + spec.ramp_time;
  result_.start = measure_from_;
  result_.end = measure_from_;
  result_.series = std::make_unique<IntervalSeries>(measure_from_, interval);
  result_.by_bytes = std::make_unique<ByteStepSeries>(measure_from_, per_bytes);
  if (spec.report == PhaseReportKind::kLatency)
    result_.interval_latency = std::make_unique<IntervalLatencySeries>(measure_from_, interval);
  if (spec.report == PhaseReportKind::kBandwidth)
    result_.passes = std::make_unique<ByteStepSeries>(measure_from_, spec.span);
  if (spec.until_steady.round != 0)
    result_.steady = std::make_unique<SteadyStateMonitor>(measure_from_, spec.until_steady.round,
                                                          spec.until_steady.rounds,
                                                          spec.until_steady.tolerance);
}

void IoGenerator::start() {
  hif_.set_command_slots(spec_.iodepth);
  hif_.set_sink(this);
  if (offered_iops_ > 0) {
    for (std::uint32_t id = spec_.iodepth; id-- > 0;) free_ids_.push_back(id);
    engine_.schedule_at(engine_.now() + next_gap(), this, 0);
    return;
  }
  for (std::uint32_t id = 0; id < spec_.iodepth && may_issue(); ++id) issue(id);
  if (outstanding_ == 0) {
    stopped_ = true;
    finish();
  }
}

bool IoGenerator::may_issue() const {
  if (spec_.io_bytes && issued_bytes_ >= spec_.io_bytes) return false;
  if (spec_.ios && issued_ios_ >= spec_.ios) return false;
  if (spec_.runtime && engine_.now() >= measure_from_ + spec_.runtime) return false;
  if (result_.steady && result_.steady->steady()) return false;
  return true;
}

void IoGenerator::issue(std::uint32_t id) {
  HostCommand& c = hif_.command(id);
  c = HostCommand{};
  const IoPattern::Io io = pattern_.next();
  c.op = io.op;
  c.offset = io.offset;
  c.bytes = io.bytes;
  c.issued = engine_.now();
  c.in_use = true;
  if (offered_iops_ > 0 && c.issued >= measure_from_)
    result_.queue_delay[static_cast<int>(c.op)].record(c.issued - issue_arrival_);
  ++issued_ios_;
  issued_bytes_ += c.bytes;
  ++outstanding_;
  hif_.issue(id);
  result_.peak_device_qd = std::max(result_.peak_device_qd, hif_.in_device());
}

void IoGenerator::on_complete(std::uint32_t id) {
  HostCommand& c = hif_.command(id);
  const Tick now = engine_.now();
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
    }
    if (result_.interval_latency) result_.interval_latency->record(now, now - c.issued);
    if (result_.steady) result_.steady->add(now);
    result_.end = now;
  }
  c.in_use = false;
  --outstanding_;
  if (offered_iops_ > 0) {
    // Open loop: the slot goes to the oldest arrival waiting on the host.
    if (!waiting_.empty()) {
      issue_arrival_ = waiting_.pop();
      issue(id);
    } else {
      free_ids_.push_back(id);
    }
    if (stopped_ && outstanding_ == 0) finish();
    return;
  }
  if (!stopped_ && may_issue()) {
    issue(id);
  } else {
    stopped_ = true;
    if (outstanding_ == 0) finish();
  }
}

Tick IoGenerator::next_gap() {
  const double mean_ns = 1e9 / offered_iops_;
  const double gap = spec_.rate.arrival == Arrival::kPoisson
                         ? -std::log(1.0 - rng_.uniform()) * mean_ns
                         : mean_ns;
  return std::max<Tick>(1, static_cast<Tick>(std::llround(gap)));
}

void IoGenerator::on_event(std::uint32_t, std::uint64_t) {
  // An arrival. Only one is ever scheduled, and none after the stop, so no
  // event outlives the phase.
  if (!may_issue()) {
    stop_arrivals();
    return;
  }
  const Tick now = engine_.now();
  if (now >= measure_from_) ++result_.arrivals;
  if (!free_ids_.empty()) {
    const std::uint32_t id = free_ids_.back();
    free_ids_.pop_back();
    issue_arrival_ = now;
    issue(id);
  } else {
    waiting_.push(now);
  }
  engine_.schedule_at(now + next_gap(), this, 0);
}

void IoGenerator::stop_arrivals() {
  stopped_ = true;
  result_.left_on_host = waiting_.size();
  waiting_.clear();
  if (outstanding_ == 0) finish();
}

void IoGenerator::finish() {
  if (result_.interval_latency) result_.interval_latency->close();
}

double IoGenerator::progress() const {
  double p = 0;
  if (spec_.io_bytes) p = std::max(p, static_cast<double>(issued_bytes_) / static_cast<double>(spec_.io_bytes));
  if (spec_.ios) p = std::max(p, static_cast<double>(issued_ios_) / static_cast<double>(spec_.ios));
  if (spec_.runtime)
    p = std::max(p, static_cast<double>(engine_.now() - phase_start_) /
                        static_cast<double>(spec_.ramp_time + spec_.runtime));
  return std::min(p, 1.0);
}

}  // namespace ssdtwin
