#include "host/io_generator.h"

#include <algorithm>

namespace ssdtwin {

IoGenerator::IoGenerator(EventEngine& engine, HostInterface& hif, const PhaseSpec& spec, Rng& rng,
                         Tick interval, std::uint64_t per_bytes, PhaseResult& result,
                         const Gauge* gauge)
    : engine_(engine), hif_(hif), spec_(spec), rng_(rng), result_(result), gauge_(gauge),
      blocks_in_span_(spec.span / spec.bs) {
  phase_start_ = engine_.now();
  measure_from_ = phase_start_ + spec.ramp_time;
  result_.start = measure_from_;
  result_.end = measure_from_;
  result_.series = std::make_unique<IntervalSeries>(measure_from_, interval);
  result_.by_bytes = std::make_unique<ByteStepSeries>(measure_from_, per_bytes);
}

void IoGenerator::start() {
  hif_.set_command_slots(spec_.iodepth);
  hif_.set_sink(this);
  for (std::uint32_t id = 0; id < spec_.iodepth && may_issue(); ++id) issue(id);
  if (outstanding_ == 0) stopped_ = true;
}

bool IoGenerator::may_issue() const {
  if (spec_.io_bytes && issued_bytes_ >= spec_.io_bytes) return false;
  if (spec_.ios && issued_ios_ >= spec_.ios) return false;
  if (spec_.runtime && engine_.now() >= measure_from_ + spec_.runtime) return false;
  return true;
}

void IoGenerator::issue(std::uint32_t id) {
  HostCommand& c = hif_.command(id);
  c = HostCommand{};
  c.bytes = spec_.bs;
  bool random = true;
  switch (spec_.rw) {
    case RwKind::kRead: c.op = IoOp::kRead; random = false; break;
    case RwKind::kWrite: c.op = IoOp::kWrite; random = false; break;
    case RwKind::kTrim: c.op = IoOp::kTrim; random = false; break;
    case RwKind::kRandRead: c.op = IoOp::kRead; break;
    case RwKind::kRandWrite: c.op = IoOp::kWrite; break;
    case RwKind::kRandRw: c.op = rng_.uniform() < spec_.read_share ? IoOp::kRead : IoOp::kWrite; break;
  }
  if (random) {
    c.offset = spec_.offset + rng_.below(blocks_in_span_) * spec_.bs;
  } else {
    // Sequential jobs wrap at the end of their range, as fio does.
    if (next_seq_offset_ + spec_.bs > spec_.span) next_seq_offset_ = 0;
    c.offset = spec_.offset + next_seq_offset_;
    next_seq_offset_ += spec_.bs;
  }
  c.issued = engine_.now();
  c.in_use = true;
  ++issued_ios_;
  issued_bytes_ += c.bytes;
  ++outstanding_;
  hif_.issue(id);
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
    if (c.op == IoOp::kWrite) result_.by_bytes->add(now, c.bytes);
    result_.end = now;
  }
  c.in_use = false;
  --outstanding_;
  if (!stopped_ && may_issue()) {
    issue(id);
  } else {
    stopped_ = true;
  }
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
