// SATA (AHCI with NCQ): up to 32 tags, over a half-duplex link on which
// the command's own FISes also travel: each NCQ command sends a Register
// FIS and gets one back, each data transfer is preceded by a DMA Setup FIS
// (and, for writes, a DMA Activate per Data FIS), and the completion is a
// Set Device Bits FIS. That is why SATA drives top out near 100k IOPS of
// 4 KiB, well below the link's payload rate. FLUSH CACHE is not an NCQ
// command: it enters only an idle device and nothing enters while it runs.
// The drive cannot reach host memory (no Host Memory Buffer).
#include <cstdio>
#include <string>

#include "host/host_interface.h"
#include "host/protocols/protocols.h"
#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

namespace {

// SATA FIS sizes (SATA 3.x, section 10.5): Register Host-to-Device and
// Device-to-Host 5 dwords, DMA Setup 7, DMA Activate 1, Set Device Bits 2.
constexpr std::uint64_t kRegisterFis = 20, kDmaSetupFis = 28, kDmaActivateFis = 4, kSdbFis = 8;

const ParamSection& host_part() {
  static const ParamSection kSection{
      "drive.host", "", {param::map("sata", "the SATA link and NCQ (interface: sata)")}};
  return kSection;
}

const ParamSection& sata_section() {
  static const ParamSection kSection = [] {
    ParamSection s{
        "drive.host.sata",
        "SATA (AHCI with NCQ): the tags, the half-duplex link whose FISes carry commands and "
        "data, and the protocol latencies.",
        {
            param::integer("ncq_depth", "32", 1, 32, "tags", "NCQ tags: commands the drive holds"),
            param::real("line_rate_gbps", "6", 1.5, 6, "Gb/s",
                        "line rate (SATA runs at 1.5, 3 or 6), 8b/10b encoded"),
            param::bytes("max_fis_payload", "8KiB",
                         "largest Data FIS payload: 512B to 8KiB in dwords"),
            param::bytes("fis_overhead", "48B",
                         "link bytes per FIS beyond its payload: SOF, FIS type, CRC, EOF and "
                         "the handshake primitives (at most 4KiB)"),
            param::time("fis_handshake", "600ns",
                        "idle link time around each FIS (X_RDY/R_RDY/R_IP/R_OK/SYNC)"),
        }};
    for (const Param& l : HostIfConfig::latency_params()) s.params.push_back(l);
    return s;
  }();
  return kSection;
}

// The `sata:` block's link: data moves in Data FISes of at most 8 KiB,
// each with SOF/EOF, CRC and the handshake primitives.
LinkParams sata_link(const Params& sata) {
  LinkParams p;
  p.half_duplex = true;
  const double gbps = sata.real("line_rate_gbps");
  p.raw_bytes_per_s = gbps * 1e9 * 8.0 / 10.0 / 8.0;  // 8b/10b
  const std::uint64_t fis_payload = sata.bytes("max_fis_payload");
  p.packet_payload = static_cast<std::uint32_t>(fis_payload);
  if (fis_payload < 512 || fis_payload > 8192 || fis_payload % 4 != 0)
    sata.fail("max_fis_payload", "expected 512B to 8KiB in dwords");
  // SOF + FIS type dword + CRC + EOF, and the X_RDY/R_RDY/R_IP/R_OK/SYNC
  // handshake around each FIS.
  const std::uint64_t fis_overhead = sata.bytes("fis_overhead");
  if (fis_overhead > 4096) sata.fail("fis_overhead", "expected at most 4KiB per FIS");
  p.packet_overhead = static_cast<std::uint32_t>(fis_overhead);
  p.packet_gap = sata.time("fis_handshake");
  char rate[32];
  std::snprintf(rate, sizeof rate, "%g", gbps);
  p.description = std::string("SATA ") + rate + " Gb/s";
  return p;
}

class Sata final : public HostProtocol {
 public:
  const char* name() const override { return "sata"; }
  const char* block_device() const override { return "sda"; }

  void read_config(const ConfigNode& host, HostIfConfig& c) const override {
    const Params sata = Params(host, host_part()).child("sata", sata_section());
    c.queues = 1;
    c.queue_depth = static_cast<std::uint32_t>(sata.integer("ncq_depth"));
    c.device_slots = c.queue_depth;
    c.read_latencies(sata);
    c.link = sata_link(sata);
    c.hmb_round_trip = 0;
  }

  bool non_queued(IoOp op) const override { return op == IoOp::kFlush; }

  Tick frame_command(HostLink& link, IoOp, Tick at) const override {
    // The command's Register FIS, and the device's Register FIS taking it.
    at = link.reserve(Direction::kToDevice, kRegisterFis, at);
    return link.reserve(Direction::kToHost, kRegisterFis, at);
  }

  Tick frame_to_device(HostLink& link, std::uint64_t bytes, Tick at) const override {
    at = link.reserve(Direction::kToHost, kDmaSetupFis, at);
    // The device asks for each Data FIS of a write with a DMA Activate.
    const std::uint32_t payload = link.params().packet_payload;
    const std::uint64_t fises = (bytes + payload - 1) / payload;
    for (std::uint64_t k = 0; k < fises; ++k)
      at = link.reserve(Direction::kToHost, kDmaActivateFis, at);
    return at;
  }

  Tick frame_to_host(HostLink& link, std::uint64_t, Tick at) const override {
    return link.reserve(Direction::kToHost, kDmaSetupFis, at);
  }

  Tick frame_completion(HostLink& link, IoOp op, Tick at) const override {
    // NCQ commands complete with a Set Device Bits FIS, a non-queued one
    // (FLUSH CACHE) with a Register FIS.
    return link.reserve(Direction::kToHost, op == IoOp::kFlush ? kRegisterFis : kSdbFis, at);
  }
};

}  // namespace

std::unique_ptr<HostProtocol> make_sata_protocol() { return std::make_unique<Sata>(); }

std::vector<const ParamSection*> sata_param_sections() { return {&host_part(), &sata_section()}; }

}  // namespace ssdtwin
