// The host link (PCIe or SATA) as a shared resource that data transfers
// occupy.
//
// Bandwidth comes from the physical layer (transfer rate x lanes x line
// encoding) less the per-packet protocol overhead: PCIe moves data in TLPs
// of at most max_payload bytes, each with header, sequence number, LCRC and
// framing (plus a share of ACK/flow-control DLLPs); SATA in Data FISes of at
// most 8 KiB, each with SOF/EOF, CRC and the handshake primitives. The host
// protocol (host/protocol.h) reads the parameters from its config block. A
// full-duplex link (PCIe) has one reservation timeline per direction; a
// half-duplex one (SATA) one for both.
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace ssdtwin {

enum class Direction : std::uint8_t { kToDevice = 0, kToHost = 1 };

struct LinkParams {
  bool half_duplex = false;    // one timeline for both directions (SATA)
  double raw_bytes_per_s = 0;  // after line encoding
  std::uint32_t packet_payload = 256;
  std::uint32_t packet_overhead = 28;
  // Dead time per packet: SATA's sender waits for the receiver's R_OK after
  // each frame before it starts the next (WTRM state). 0 for PCIe, whose
  // ACKs travel while further TLPs are sent.
  Tick packet_gap = 0;
  std::string description;  // e.g. "PCIe 3.0 x2"

  // Bytes on the wire for `bytes` of payload.
  std::uint64_t wire_bytes(std::uint64_t bytes) const {
    const std::uint64_t packets = (bytes + packet_payload - 1) / packet_payload;
    return bytes + packets * packet_overhead;
  }
  // Payload bandwidth of a long transfer.
  double payload_bytes_per_s() const {
    const double per_packet_s = (packet_payload + packet_overhead) / raw_bytes_per_s +
                                static_cast<double>(packet_gap) / 1e9;
    return packet_payload / per_packet_s;
  }
};

class HostLink {
 public:
  explicit HostLink(const LinkParams& p) : p_(p) {}

  // Reserves the link for `bytes` of payload starting no earlier than
  // `earliest`; returns the end of the transfer. Reservations are served in
  // the order they are made.
  Tick reserve(Direction dir, std::uint64_t bytes, Tick earliest);
  Tick duration(std::uint64_t bytes) const {
    const std::uint64_t packets = (bytes + p_.packet_payload - 1) / p_.packet_payload;
    return transfer_time(p_.wire_bytes(bytes), p_.raw_bytes_per_s) + packets * p_.packet_gap;
  }
  const LinkParams& params() const { return p_; }
  std::uint64_t bytes_moved(Direction d) const { return moved_[static_cast<int>(d)]; }
  // Time the link spent moving data in direction `d` (on a half-duplex
  // link both directions share one timeline, so their sum is its busy time).
  Tick busy_time(Direction d) const { return busy_[static_cast<int>(d)]; }

 private:
  LinkParams p_;
  Tick free_at_[2] = {0, 0};
  std::uint64_t moved_[2] = {0, 0};
  Tick busy_[2] = {0, 0};
  std::uint64_t last_bytes_ = UINT64_MAX;  // reserve()'s last size, and its duration
  Tick last_duration_ = 0;
};

}  // namespace ssdtwin
