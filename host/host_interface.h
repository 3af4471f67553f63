// The host side of the drive's front end: commands queued by the host,
// admitted into the device, framed and moved on the HostLink, completed.
//
// It bounds how many commands the device holds at once (NVMe: queues x
// (queue_depth - 1) entries, or the controller's `max_outstanding`; SATA:
// 32 NCQ tags); commands beyond that wait in their submission queue (and
// the host's software queue behind it), and their wait counts in the
// latency the workload sees, as it does for fio. When a slot frees, the
// arbiter (host/arbitration.h) picks the queue whose head enters next. Protocol latency covers
// doorbell, command fetch and completion/interrupt; data moves on the HostLink. What differs
// between protocols (the link time of each command's own framing, e.g. SATA's FISes, and commands
// that run alone, e.g. SATA's FLUSH CACHE) is the HostProtocol's (host/protocol.h,
// host/protocols/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "ftl/controller.h"
#include "ftl/host_command.h"
#include "host/arbitration.h"
#include "host/host_link.h"
#include "host/protocol.h"
#include "sim/event_engine.h"
#include "sim/power_gate.h"

namespace ssdtwin {

class ConfigNode;
class Params;
struct Param;
struct ParamSection;

class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  virtual void on_complete(std::uint32_t id) = 0;
};

struct HostIfConfig {
  // `host.interface`; shared by the copies of the config (it is stateless).
  std::shared_ptr<const HostProtocol> protocol;
  std::uint32_t queues = 1;
  std::uint32_t queue_depth = 1024;
  std::uint32_t device_slots = 1023;  // commands the device can hold
  ArbitrationConfig arbitration;      // which queue's head enters next
  Tick submission_latency = 0;        // doorbell -> command fetched by the controller
  Tick completion_latency = 0;        // completion entry/FIS -> host sees it
  LinkParams link;
  // A map lookup in the Host Memory Buffer; 0: the protocol cannot reach
  // host memory.
  Tick hmb_round_trip = 0;
  static HostIfConfig from_config(const ConfigNode& host);
  static const ParamSection& params();  // `drive.host`'s own key, declared (sim/params.h)
  // The two latencies every protocol has, from its block (`host.nvme`,
  // `host.sata`), whose section declares them with latency_params().
  void read_latencies(const Params& block);
  static std::vector<Param> latency_params();
};

class HostInterface : public HostPort, public EventTarget {
 public:
  HostInterface(EventEngine& engine, const HostIfConfig& cfg, Controller& controller);

  // Command table used by the workload: ids 0..n-1. The queues are
  // created afresh with it, all of medium priority.
  void set_command_slots(std::uint32_t n);
  // The class of submission queue `sq` (< config().queues), as the host
  // gives it when it creates the queue.
  void set_queue_priority(std::uint32_t sq, SqPriority p) { arbiter_->set_priority(sq, p); }
  void set_sink(CompletionSink* sink) { sink_ = sink; }
  // Power states: a command may wait for the drive to wake, and the drive
  // is told when it holds no command; null: always awake.
  void set_power_gate(PowerGate* gate) { power_ = gate; }
  // The workload issues command `id` (filled in); it enters the device when
  // a queue entry / tag is free.
  void issue(std::uint32_t id);

  Tick transfer_to_device(std::uint64_t bytes, Tick earliest) override;
  Tick transfer_to_host(std::uint64_t bytes, Tick earliest) override;
  void complete(std::uint32_t id, Tick at) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

  const HostIfConfig& config() const { return cfg_; }
  const HostLink& link() const { return link_; }
  std::uint32_t in_device() const { return in_device_; }
  // Commands issued but waiting on the host for a device slot.
  std::size_t waiting() const { return wait_count_; }
  // While the drive holds commands: since when it has completed none (its
  // last completion, or when it last went from idle to busy).
  Tick waiting_since() const { return std::max(last_completed_, busy_since_); }

 private:
  enum Kind : std::uint32_t { kFetched, kCompleted };
  // A completion's bookkeeping, out of line so that on_event's fetch path
  // (half the events) does not pay this path's register saves.
  [[gnu::noinline]] void on_completed(std::uint32_t id);
  void admit(std::uint32_t id);
  bool may_admit(std::uint32_t id) const;
  void enqueue(std::uint32_t id);
  std::uint32_t dequeue(std::uint32_t sq);

  EventEngine& engine_;
  HostIfConfig cfg_;
  const HostProtocol& protocol_;  // cfg_.protocol's
  Controller& controller_;
  HostLink link_;
  // The protocol's framing and non-queued commands, when it has any (NVMe
  // has neither: its per-command path then makes no protocol call).
  bool frames_, has_non_queued_;
  bool non_queued(IoOp op) const { return has_non_queued_ && protocol_.non_queued(op); }
  // Fetches follow the doorbells in time, completions the link's transfers:
  // each nearly always in time order, so each has its own engine lane.
  EventEngine::Lane fetch_lane_, completion_lane_;
  CompletionSink* sink_ = nullptr;
  PowerGate* power_ = nullptr;
  std::vector<HostCommand> commands_;
  std::unique_ptr<Arbiter> arbiter_;
  // Commands waiting for a device slot, a FIFO per submission queue linked
  // through the command ids (no allocation per command): each queue's head
  // and tail, and each waiting command's successor.
  static constexpr std::uint32_t kNone = ~0u;
  std::vector<std::uint32_t> sq_head_, sq_tail_, next_waiting_;
  std::vector<std::uint32_t> sq_waiting_;  // commands waiting per queue
  std::size_t wait_count_ = 0;
  std::uint32_t in_device_ = 0;
  bool non_queued_in_device_ = false;  // a non-queued command (SATA FLUSH CACHE) holds the device
  Tick last_completed_ = 0, busy_since_ = 0;
};

}  // namespace ssdtwin
