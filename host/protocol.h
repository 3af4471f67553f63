// The host protocol a drive speaks (NVMe over PCIe, SATA): a named,
// pluggable kind. It holds what differs between protocols: its config
// blocks (queues, latencies, the physical link), which commands run alone
// in the device, the link time each command's own framing takes, and what
// the host sees of the drive (its block device name).
//
// To add a protocol: implement HostProtocol in host/protocols/<name>.cpp,
// expose a factory in host/protocols/protocols.h, and add one line to the
// table in host/protocol.cpp. Drive configs choose it with
// `host.interface: <name>`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ftl/host_command.h"
#include "sim/policy_table.h"
#include "sim/time.h"

namespace ssdtwin {

class ConfigNode;
class HostLink;
struct HostIfConfig;

// Stateless: one instance serves every command of a drive. The framing
// calls are made once per command (and per data transfer), so they take
// the link and return the time the framing ends, allocating nothing.
class HostProtocol {
 public:
  virtual ~HostProtocol() = default;
  virtual const char* name() const = 0;
  // The block device fio reports for the drive (disk_util).
  virtual const char* block_device() const = 0;

  // Reads the protocol's blocks of `host` into `c`: queues, queue depth,
  // device slots, submission/completion latency, the link (and whether it
  // is half duplex), and the Host Memory Buffer round trip (0: the drive
  // cannot reach host memory).
  virtual void read_config(const ConfigNode& host, HostIfConfig& c) const = 0;

  // A non-queued command enters only an idle device, and nothing enters
  // while it runs.
  virtual bool non_queued(IoOp op) const = 0;
  // False when no command is ever non-queued / no framing ever takes link
  // time: the host interface then skips those calls on its per-command path.
  virtual bool has_non_queued() const { return true; }
  virtual bool frames_on_link() const { return true; }

  // Link time of the command's own framing, reserved on `link` from `at`;
  // each returns when it ends. At admission (after the submission latency):
  virtual Tick frame_command(HostLink& link, IoOp op, Tick at) const = 0;
  // Before `bytes` of data move to the device / to the host:
  virtual Tick frame_to_device(HostLink& link, std::uint64_t bytes, Tick at) const = 0;
  virtual Tick frame_to_host(HostLink& link, std::uint64_t bytes, Tick at) const = 0;
  // When the device completes the command (before the completion latency):
  virtual Tick frame_completion(HostLink& link, IoOp op, Tick at) const = 0;
};

using HostProtocolInfo = PolicyInfo<HostProtocol>;

const std::vector<HostProtocolInfo>& host_protocols();
std::vector<std::string> host_protocol_names();
std::unique_ptr<HostProtocol> make_host_protocol(
    const std::string& name);  // name must be registered

}  // namespace ssdtwin
