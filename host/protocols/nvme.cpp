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
#include "sim/params.h"

namespace ssdtwin {

namespace {

const ParamSection& host_part() {
  static const ParamSection kSection{
      "drive.host",
      "",
      {
          param::map("nvme", "the NVMe queues, latencies and arbitration (interface: nvme)"),
          param::map("pcie", "the PCIe link (interface: nvme)"),
      }};
  return kSection;
}

const ParamSection& nvme_section() {
  static const ParamSection kSection = [] {
    ParamSection s{
        "drive.host.nvme",
        "NVMe submission/completion queues: how many, how deep, how many commands the "
        "controller holds, and the protocol latencies.",
        {
            param::integer("queues", "1", 1, 65535, "queues",
                           "I/O submission queues (a phase's job k issues into queue k modulo "
                           "queues)"),
            param::integer("queue_depth", nullptr, 2, 65536, "entries",
                           "entries per queue; a queue holds one command fewer (head == tail "
                           "means empty)"),
            param::integer("max_outstanding", "(queues x (queue_depth - 1))", 1,
                           std::int64_t{65535} * 65535, "commands",
                           "commands the controller holds at once, at most every queue entry; "
                           "beyond it they wait in their queues and arbitration picks which "
                           "enters next"),
        }};
    for (const Param& l : HostIfConfig::latency_params()) s.params.push_back(l);
    return s;
  }();
  return kSection;
}

const ParamSection& pcie_section() {
  static const ParamSection kSection{
      "drive.host.pcie",
      "The PCIe link: bandwidth from the physical layer (transfer rate x lanes x line "
      "encoding) less the TLP overhead of each max_payload packet.",
      {
          param::integer("gen", nullptr, 1, 5, "",
                         "PCIe generation (2.5, 5, 8, 16, 32 GT/s a lane)"),
          param::integer("lanes", nullptr, 1, 16, "lanes", "link width: 1, 2, 4, 8 or 16 lanes"),
          param::bytes("max_payload", "256B",
                       "Max Payload Size of a TLP: a power of two from 128B to 4KiB"),
          param::bytes("tlp_overhead", "28B",
                       "link bytes per TLP beyond its payload: framing, sequence number, 16B "
                       "header, LCRC, and a share of ACK/flow-control DLLPs (at most 4KiB)"),
          param::time("host_memory_latency", "600ns",
                      "host memory and root-complex latency of a read of host memory (a Host "
                      "Memory Buffer map lookup)"),
      }};
  return kSection;
}

// The `pcie:` block: bandwidth from the physical layer (transfer rate x
// lanes x line encoding) less the TLP overhead of each max_payload packet.
LinkParams pcie_link(const Params& pcie) {
  LinkParams p;
  const auto gen = pcie.integer("gen");
  const auto lanes = pcie.integer("lanes");
  if (lanes & (lanes - 1)) pcie.fail("lanes", "expected 1, 2, 4, 8 or 16 lanes");
  // Transfer rate per lane (GT/s) and line encoding by generation.
  static const double kGts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
  const double encoding = gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  p.raw_bytes_per_s = kGts[gen] * 1e9 * static_cast<double>(lanes) * encoding / 8.0;
  // Sizes are checked before narrowing (4 GiB + 256 B is not 256 B).
  const std::uint64_t payload = pcie.bytes("max_payload");
  p.packet_payload = static_cast<std::uint32_t>(payload);
  if (payload < 128 || payload > 4096 || (p.packet_payload & (p.packet_payload - 1)))
    pcie.fail("max_payload", "expected a power of two from 128B to 4KiB");
  // 4B framing + 2B sequence + 16B header (64-bit address) + 4B LCRC,
  // the ACK/flow-control DLLP share folded in.
  const std::uint64_t tlp_overhead = pcie.bytes("tlp_overhead");
  if (tlp_overhead > 4096) pcie.fail("tlp_overhead", "expected at most 4KiB per packet");
  p.packet_overhead = static_cast<std::uint32_t>(tlp_overhead);
  p.description = "PCIe " + std::to_string(gen) + ".0 x" + std::to_string(lanes);
  return p;
}

// A map lookup in the Host Memory Buffer is a PCIe memory read of one cache
// line: the request TLP up, the completion with the data down, plus the
// host's memory and root-complex latency.
Tick hmb_round_trip(const LinkParams& link, const Params& pcie) {
  const Tick memory = pcie.time("host_memory_latency");
  const Tick request = transfer_time(link.packet_overhead, link.raw_bytes_per_s);
  return request + HostLink(link).duration(64) + memory;
}

class Nvme final : public HostProtocol {
 public:
  const char* name() const override { return "nvme"; }
  const char* block_device() const override { return "nvme0n1"; }

  void read_config(const ConfigNode& host_node, HostIfConfig& c) const override {
    const Params host(host_node, host_part());
    const Params nvme = host.child("nvme", nvme_section());
    c.queues = static_cast<std::uint32_t>(nvme.integer("queues"));
    c.queue_depth = static_cast<std::uint32_t>(nvme.integer("queue_depth"));
    // A queue of N entries holds N-1 commands (head == tail means empty).
    // The controller may take fewer at once (its command slots): then the
    // rest wait in their queues, and arbitration decides which enters next.
    const std::int64_t entries = std::int64_t{c.queues} * (c.queue_depth - 1);
    c.device_slots =
        static_cast<std::uint32_t>(nvme.integer_within("max_outstanding", entries, 1, entries));
    c.arbitration = ArbitrationConfig::from_config(nvme.node());
    c.read_latencies(nvme);
    const Params pcie = host.child("pcie", pcie_section());
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

std::vector<const ParamSection*> nvme_param_sections() {
  return {&host_part(), &nvme_section(), &pcie_section()};
}

}  // namespace ssdtwin
