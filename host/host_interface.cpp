#include "host/host_interface.h"

#include <stdexcept>

#include "sim/config.h"

namespace ssdtwin {

HostIfConfig HostIfConfig::from_config(const ConfigNode& host) {
  HostIfConfig c;
  const std::string iface = host.get_enum("interface", {"nvme", "sata"});
  if (iface == "nvme") {
    c.kind = LinkKind::kPcie;
    const ConfigNode nvme = host.child("nvme");
    c.queues = static_cast<std::uint32_t>(nvme.get_int("queues", 1, 1, 65535));
    c.queue_depth = static_cast<std::uint32_t>(nvme.get_int("queue_depth", 2, 65536));
    // A queue of N entries holds N-1 commands (head == tail means empty).
    c.device_slots = c.queues * (c.queue_depth - 1);
    c.submission_latency = nvme.get_time("submission_latency", 0);
    c.completion_latency = nvme.get_time("completion_latency", 0);
  } else {
    c.kind = LinkKind::kSata;
    const ConfigNode sata = host.child("sata");
    c.queues = 1;
    c.queue_depth = static_cast<std::uint32_t>(sata.get_int("ncq_depth", 32, 1, 32));
    c.device_slots = c.queue_depth;
    c.submission_latency = sata.get_time("submission_latency", 0);
    c.completion_latency = sata.get_time("completion_latency", 0);
  }
  c.link = LinkParams::from_config(host, c.kind);
  return c;
}

HostInterface::HostInterface(EventEngine& engine, const HostIfConfig& cfg, Controller& controller)
    : engine_(engine), cfg_(cfg), controller_(controller), link_(cfg.link),
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
  if (cfg_.kind != LinkKind::kSata) return true;
  if (non_queued_in_device_) return false;
  return commands_[id].op != IoOp::kFlush || in_device_ == 0;
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

namespace {
// SATA FIS sizes (SATA 3.x, section 10.5): Register Host-to-Device and
// Device-to-Host 5 dwords, DMA Setup 7, DMA Activate 1, Set Device Bits 2.
constexpr std::uint64_t kRegisterFis = 20, kDmaSetupFis = 28, kDmaActivateFis = 4, kSdbFis = 8;
}  // namespace

void HostInterface::admit(std::uint32_t id) {
  if (in_device_++ == 0) busy_since_ = engine_.now();
  if (cfg_.kind == LinkKind::kSata && commands_[id].op == IoOp::kFlush) non_queued_in_device_ = true;
  const Tick arrived = power_ ? power_->on_command_arrival(engine_.now()) : engine_.now();
  Tick at = arrived + cfg_.submission_latency;
  if (cfg_.kind == LinkKind::kSata) {
    // The command's Register FIS, and the device's Register FIS taking it.
    at = link_.reserve(Direction::kToDevice, kRegisterFis, at);
    at = link_.reserve(Direction::kToHost, kRegisterFis, at);
  }
  engine_.schedule_at(at, this, kFetched, id, fetch_lane_);
}

Tick HostInterface::transfer_to_device(std::uint64_t bytes, Tick earliest) {
  if (cfg_.kind == LinkKind::kSata) {
    earliest = link_.reserve(Direction::kToHost, kDmaSetupFis, earliest);
    // The device asks for each Data FIS of a write with a DMA Activate.
    const std::uint64_t fises = (bytes + cfg_.link.packet_payload - 1) / cfg_.link.packet_payload;
    for (std::uint64_t k = 0; k < fises; ++k)
      earliest = link_.reserve(Direction::kToHost, kDmaActivateFis, earliest);
  }
  return link_.reserve(Direction::kToDevice, bytes, earliest);
}

Tick HostInterface::transfer_to_host(std::uint64_t bytes, Tick earliest) {
  if (cfg_.kind == LinkKind::kSata) earliest = link_.reserve(Direction::kToHost, kDmaSetupFis, earliest);
  return link_.reserve(Direction::kToHost, bytes, earliest);
}

void HostInterface::complete(std::uint32_t id, Tick at) {
  // NCQ commands complete with a Set Device Bits FIS, a non-queued one
  // (FLUSH CACHE) with a Register FIS.
  if (cfg_.kind == LinkKind::kSata)
    at = link_.reserve(Direction::kToHost,
                       commands_[id].op == IoOp::kFlush ? kRegisterFis : kSdbFis, at);
  engine_.schedule_at(at + cfg_.completion_latency, this, kCompleted, id, completion_lane_);
}

void HostInterface::on_event(std::uint32_t kind, std::uint64_t arg) {
  const auto id = static_cast<std::uint32_t>(arg);
  if (kind == kFetched) {
    controller_.submit(id);
    return;
  }
  --in_device_;
  if (commands_[id].op == IoOp::kFlush) non_queued_in_device_ = false;
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
