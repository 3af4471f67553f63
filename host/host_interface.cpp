#include "host/host_interface.h"

#include <stdexcept>

#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

const ParamSection& HostIfConfig::params() {
  static const ParamSection kSection{
      "drive.host",
      "The host interface: the protocol, its queues and the link to the host. The protocol "
      "reads its own blocks (nvme and pcie, or sata).",
      {
          param::choice("interface", nullptr, &host_protocol_names,
                        "the host protocol: NVMe over PCIe, or SATA (AHCI with NCQ)"),
      }};
  return kSection;
}

std::vector<Param> HostIfConfig::latency_params() {
  return {
      param::time("submission_latency", "0",
                  "from the host ringing the doorbell (or sending the command FIS) to the "
                  "controller having fetched the command"),
      param::time("completion_latency", "0",
                  "from the controller posting the completion (entry or FIS) to the host "
                  "seeing it"),
  };
}

HostIfConfig HostIfConfig::from_config(const ConfigNode& host) {
  const Params p(host, params());
  HostIfConfig c;
  c.protocol = make_host_protocol(p.choice("interface"));
  c.protocol->read_config(host, c);
  return c;
}

void HostIfConfig::read_latencies(const Params& block) {
  submission_latency = block.time("submission_latency");
  completion_latency = block.time("completion_latency");
}

HostInterface::HostInterface(EventEngine& engine, const HostIfConfig& cfg, Controller& controller)
    : engine_(engine),
      cfg_(cfg),
      protocol_(*cfg_.protocol),
      controller_(controller),
      link_(cfg.link),
      frames_(protocol_.frames_on_link()),
      has_non_queued_(protocol_.has_non_queued()),
      fetch_lane_(engine.add_lane()),
      completion_lane_(engine.add_lane()),
      arbiter_(make_arbiter(cfg_.arbitration)) {
  controller_.set_host(this);
  arbiter_->set_queues(cfg_.queues);
  sq_head_.assign(cfg_.queues, kNone);
  sq_tail_.assign(cfg_.queues, kNone);
  sq_waiting_.assign(cfg_.queues, 0);
}

void HostInterface::set_command_slots(std::uint32_t n) {
  if (in_device_ != 0 || wait_count_ != 0)
    throw std::logic_error("command table resized with commands outstanding");
  commands_.assign(n, HostCommand{});
  table_ = commands_.data();
  next_waiting_.assign(n, kNone);
  arbiter_->set_queues(cfg_.queues);
}

bool HostInterface::may_admit(std::uint32_t id) const {
  if (in_device_ >= cfg_.device_slots) return false;
  if (!has_non_queued_) return true;
  if (non_queued_in_device_) return false;
  return in_device_ == 0 || !non_queued(commands_[id].op);
}

void HostInterface::issue(std::uint32_t id) {
  // In order: a command waiting (for a slot, or behind a SATA flush) goes first.
  if (wait_count_ == 0 && may_admit(id)) {
    admit(id);
    return;
  }
  enqueue(id);
}

void HostInterface::enqueue(std::uint32_t id) {
  const std::uint32_t sq = commands_[id].sq;
  if (sq >= cfg_.queues)
    throw std::logic_error("command placed in a submission queue the drive lacks");
  next_waiting_[id] = kNone;
  if (sq_tail_[sq] == kNone)
    sq_head_[sq] = id;
  else
    next_waiting_[sq_tail_[sq]] = id;
  sq_tail_[sq] = id;
  ++sq_waiting_[sq];
  ++wait_count_;
}

std::uint32_t HostInterface::dequeue(std::uint32_t sq) {
  const std::uint32_t id = sq_head_[sq];
  sq_head_[sq] = next_waiting_[id];
  if (sq_head_[sq] == kNone) sq_tail_[sq] = kNone;
  --sq_waiting_[sq];
  --wait_count_;
  return id;
}

void HostInterface::admit(std::uint32_t id) {
  if (in_device_++ == 0) busy_since_ = engine_.now();
  if (non_queued(commands_[id].op)) non_queued_in_device_ = true;
  const Tick arrived = power_ ? power_->on_command_arrival(engine_.now()) : engine_.now();
  const Tick fetched = arrived + cfg_.submission_latency;
  const Tick at = frames_ ? protocol_.frame_command(link_, commands_[id].op, fetched) : fetched;
  engine_.schedule_at(at, this, kFetched, id, fetch_lane_);
}

Tick HostInterface::transfer_to_device(std::uint64_t bytes, Tick earliest) {
  return link_.reserve(Direction::kToDevice, bytes,
                       frames_ ? protocol_.frame_to_device(link_, bytes, earliest) : earliest);
}

Tick HostInterface::transfer_to_host(std::uint64_t bytes, Tick earliest) {
  return link_.reserve(Direction::kToHost, bytes,
                       frames_ ? protocol_.frame_to_host(link_, bytes, earliest) : earliest);
}

void HostInterface::complete(std::uint32_t id, Tick at) {
  if (frames_) at = protocol_.frame_completion(link_, commands_[id].op, at);
  engine_.schedule_at(at + cfg_.completion_latency, this, kCompleted, id, completion_lane_);
}

void HostInterface::on_event(std::uint32_t kind, std::uint64_t arg) {
  const auto id = static_cast<std::uint32_t>(arg);
  if (kind == kFetched) {
    controller_.submit(id);
    return;
  }
  on_completed(id);
}

void HostInterface::on_completed(std::uint32_t id) {
  --in_device_;
  if (non_queued(commands_[id].op)) non_queued_in_device_ = false;
  last_completed_ = engine_.now();
  // A non-queued command (SATA's FLUSH CACHE, on its one queue) at the
  // head waits for the device to drain; the arbiter's turn moves on anyway,
  // which on one queue changes nothing.
  while (wait_count_ > 0 && in_device_ < cfg_.device_slots && !non_queued_in_device_) {
    const std::uint32_t sq = arbiter_->next(sq_waiting_);
    if (!may_admit(sq_head_[sq])) break;
    admit(dequeue(sq));
  }
  if (power_ && in_device_ == 0) power_->on_device_idle(engine_.now());
  sink_->on_complete(id);
}

}  // namespace ssdtwin
