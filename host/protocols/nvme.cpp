// NVMe over PCIe: submission/completion queues in host memory, commands
// fetched and completions posted by the controller as PCIe memory
// transfers the protocol latencies stand for, so no command framing
// occupies the link. Flush queues as any command. PCIe is full duplex, and
// the drive reaches host memory (the Host Memory Buffer). The controller
// arbitrates between the submission queues (host/arbitration.h).
#include <string>

#include "host/host_interface.h"
#include "host/protocols/protocols.h"
#include "sim/config.h"

namespace ssdtwin {

namespace {

// The `pcie:` block: bandwidth from the physical layer (transfer rate x
// lanes x line encoding) less the TLP overhead of each max_payload packet.
LinkParams pcie_link(const ConfigNode& pcie) {
  LinkParams p;
  const auto gen = pcie.get_int("gen", 1, 5);
  const auto lanes = pcie.get_int("lanes", 1, 16);
  if (lanes & (lanes - 1)) pcie.fail("lanes", "expected 1, 2, 4, 8 or 16 lanes");
  // Transfer rate per lane (GT/s) and line encoding by generation.
  static const double kGts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
  const double encoding = gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  p.raw_bytes_per_s = kGts[gen] * 1e9 * static_cast<double>(lanes) * encoding / 8.0;
  // Sizes are checked before narrowing (4 GiB + 256 B is not 256 B).
  const std::uint64_t payload = pcie.get_bytes("max_payload", 256);
  p.packet_payload = static_cast<std::uint32_t>(payload);
  if (payload < 128 || payload > 4096 || (p.packet_payload & (p.packet_payload - 1)))
    pcie.fail("max_payload", "expected a power of two from 128B to 4KiB");
  // 4B framing + 2B sequence + 16B header (64-bit address) + 4B LCRC,
  // the ACK/flow-control DLLP share folded in.
  const std::uint64_t tlp_overhead = pcie.get_bytes("tlp_overhead", 28);
  if (tlp_overhead > 4096) pcie.fail("tlp_overhead", "expected at most 4KiB per packet");
  p.packet_overhead = static_cast<std::uint32_t>(tlp_overhead);
  p.description = "PCIe " + std::to_string(gen) + ".0 x" + std::to_string(lanes);
  return p;
}

// A map lookup in the Host Memory Buffer is a PCIe memory read of one cache
// line: the request TLP up, the completion with the data down, plus the
// host's memory and root-complex latency.
Tick hmb_round_trip(const LinkParams& link, const ConfigNode& pcie) {
  const Tick memory = pcie.get_time("host_memory_latency", 600);
  const Tick request = transfer_time(link.packet_overhead, link.raw_bytes_per_s);
  return request + HostLink(link).duration(64) + memory;
}

class Nvme final : public HostProtocol {
 public:
  const char* name() const override { return "nvme"; }
  const char* block_device() const override { return "nvme0n1"; }

  void read_config(const ConfigNode& host, HostIfConfig& c) const override {
    const ConfigNode nvme = host.child("nvme");
    c.queues = static_cast<std::uint32_t>(nvme.get_int("queues", 1, 1, 65535));
    c.queue_depth = static_cast<std::uint32_t>(nvme.get_int("queue_depth", 2, 65536));
    // A queue of N entries holds N-1 commands (head == tail means empty).
    // The controller may take fewer at once (its command slots): then the
    // rest wait in their queues, and arbitration decides which enters next.
    const std::int64_t entries = std::int64_t{c.queues} * (c.queue_depth - 1);
    c.device_slots =
        static_cast<std::uint32_t>(nvme.get_int("max_outstanding", entries, 1, entries));
    c.arbitration = ArbitrationConfig::from_config(nvme);
    c.read_latencies(nvme);
    const ConfigNode pcie = host.child("pcie");
    c.link = pcie_link(pcie);
    c.hmb_round_trip = hmb_round_trip(c.link, pcie);
  }

  bool non_queued(IoOp) const override { return false; }
  bool has_non_queued() const override { return false; }
  bool frames_on_link() const override { return false; }
  Tick frame_command(HostLink&, IoOp, Tick at) const override { return at; }
  Tick frame_to_device(HostLink&, std::uint64_t, Tick at) const override { return at; }
  Tick frame_to_host(HostLink&, std::uint64_t, Tick at) const override { return at; }
  Tick frame_completion(HostLink&, IoOp, Tick at) const override { return at; }
};

}  // namespace

std::unique_ptr<HostProtocol> make_nvme_protocol() { return std::make_unique<Nvme>(); }

}  // namespace ssdtwin
