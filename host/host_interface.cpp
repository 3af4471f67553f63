#include "host/host_interface.h"

#include <stdexcept>

#include "sim/config.h"

namespace ssdtwin {

HostIfConfig HostIfConfig::from_config(const ConfigNode& host) {
  HostIfConfig c;
  c.protocol = make_host_protocol(host.get_enum("interface", host_protocol_names()));
  c.protocol->read_config(host, c);
  return c;
}

void HostIfConfig::read_latencies(const ConfigNode& block) {
  submission_latency = block.get_time("submission_latency", 0);
  completion_latency = block.get_time("completion_latency", 0);
}

HostInterface::HostInterface(EventEngine& engine, const HostIfConfig& cfg, Controller& controller)
    : engine_(engine), cfg_(cfg), protocol_(*cfg_.protocol), controller_(controller), link_(cfg.link),
      fetch_lane_(engine.add_lane()), completion_lane_(engine.add_lane()) {
  controller_.set_host(this);
}

void HostInterface::set_command_slots(std::uint32_t n) {
  if (in_device_ != 0 || wait_count_ != 0)
    throw std::logic_error("command table resized with commands outstanding");
  commands_.assign(n, HostCommand{});
  waiting_.assign(n, 0);
  wait_head_ = wait_count_ = 0;
}

bool HostInterface::may_admit(std::uint32_t id) const {
  if (in_device_ >= cfg_.device_slots) return false;
  if (non_queued_in_device_) return false;
  return in_device_ == 0 || !protocol_.non_queued(commands_[id].op);
}

void HostInterface::issue(std::uint32_t id) {
  // In order: a command waiting (for a slot, or behind a SATA flush) goes first.
  if (wait_count_ == 0 && may_admit(id)) {
    admit(id);
    return;
  }
  waiting_[(wait_head_ + wait_count_) % waiting_.size()] = id;
  ++wait_count_;
}

void HostInterface::admit(std::uint32_t id) {
  if (in_device_++ == 0) busy_since_ = engine_.now();
  if (protocol_.non_queued(commands_[id].op)) non_queued_in_device_ = true;
  const Tick arrived = power_ ? power_->on_command_arrival(engine_.now()) : engine_.now();
  const Tick at = protocol_.frame_command(link_, commands_[id].op, arrived + cfg_.submission_latency);
  engine_.schedule_at(at, this, kFetched, id, fetch_lane_);
}

Tick HostInterface::transfer_to_device(std::uint64_t bytes, Tick earliest) {
  return link_.reserve(Direction::kToDevice, bytes, protocol_.frame_to_device(link_, bytes, earliest));
}

Tick HostInterface::transfer_to_host(std::uint64_t bytes, Tick earliest) {
  return link_.reserve(Direction::kToHost, bytes, protocol_.frame_to_host(link_, bytes, earliest));
}

void HostInterface::complete(std::uint32_t id, Tick at) {
  at = protocol_.frame_completion(link_, commands_[id].op, at);
  engine_.schedule_at(at + cfg_.completion_latency, this, kCompleted, id, completion_lane_);
}

void HostInterface::on_event(std::uint32_t kind, std::uint64_t arg) {
  const auto id = static_cast<std::uint32_t>(arg);
  if (kind == kFetched) {
    controller_.submit(id);
    return;
  }
  --in_device_;
  if (protocol_.non_queued(commands_[id].op)) non_queued_in_device_ = false;
  last_completed_ = engine_.now();
  while (wait_count_ > 0 && may_admit(waiting_[wait_head_])) {
    const std::uint32_t next = waiting_[wait_head_];
    wait_head_ = (wait_head_ + 1) % waiting_.size();
    --wait_count_;
    admit(next);
  }
  if (power_ && in_device_ == 0) power_->on_device_idle(engine_.now());
  sink_->on_complete(id);
}

}  // namespace ssdtwin
