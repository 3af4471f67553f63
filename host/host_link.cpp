#include "host/host_link.h"

#include <algorithm>
#include <cstdio>

#include "sim/config.h"

namespace ssdtwin {

LinkParams LinkParams::from_config(const ConfigNode& host, LinkKind kind) {
  LinkParams p;
  p.kind = kind;
  if (kind == LinkKind::kPcie) {
    const ConfigNode pcie = host.child("pcie");
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
    if (payload < 128 || payload > 4096 ||
        (p.packet_payload & (p.packet_payload - 1)))
      pcie.fail("max_payload", "expected a power of two from 128B to 4KiB");
    // 4B framing + 2B sequence + 16B header (64-bit address) + 4B LCRC,
    // the ACK/flow-control DLLP share folded in.
    const std::uint64_t tlp_overhead = pcie.get_bytes("tlp_overhead", 28);
    if (tlp_overhead > 4096) pcie.fail("tlp_overhead", "expected at most 4KiB per packet");
    p.packet_overhead = static_cast<std::uint32_t>(tlp_overhead);
    p.description = "PCIe " + std::to_string(gen) + ".0 x" + std::to_string(lanes);
  } else {
    const ConfigNode sata = host.child("sata");
    const double gbps = sata.get_double("line_rate_gbps", 6.0, 1.5, 6.0);
    p.raw_bytes_per_s = gbps * 1e9 * 8.0 / 10.0 / 8.0;  // 8b/10b
    const std::uint64_t fis_payload = sata.get_bytes("max_fis_payload", 8192);
    p.packet_payload = static_cast<std::uint32_t>(fis_payload);
    if (fis_payload < 512 || fis_payload > 8192 || fis_payload % 4 != 0)
      sata.fail("max_fis_payload", "expected 512B to 8KiB in dwords");
    // SOF + FIS type dword + CRC + EOF, and the X_RDY/R_RDY/R_IP/R_OK/SYNC
    // handshake around each FIS.
    const std::uint64_t fis_overhead = sata.get_bytes("fis_overhead", 48);
    if (fis_overhead > 4096) sata.fail("fis_overhead", "expected at most 4KiB per FIS");
    p.packet_overhead = static_cast<std::uint32_t>(fis_overhead);
    p.packet_gap = sata.get_time("fis_handshake", 600);
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", gbps);
    p.description = std::string("SATA ") + rate + " Gb/s";
  }
  return p;
}

Tick HostLink::reserve(Direction dir, std::uint64_t bytes, Tick earliest) {
  // SATA shares one timeline for both directions.
  const int lane = p_.kind == LinkKind::kSata ? 0 : static_cast<int>(dir);
  const Tick start = std::max(earliest, free_at_[lane]);
  const Tick d = duration(bytes);
  free_at_[lane] = start + d;
  moved_[static_cast<int>(dir)] += bytes;
  busy_[static_cast<int>(dir)] += d;
  return free_at_[lane];
}

}  // namespace ssdtwin
