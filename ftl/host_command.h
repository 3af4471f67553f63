// A host command as the controller sees it. Commands live in a table owned
// by the host interface and are referred to by index.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/time.h"

namespace ssdtwin {

// kFlush (NVMe Flush, SATA FLUSH CACHE): completes once every write
// completed before it is on flash. It moves no data, and comes after the
// three data ops so that arrays per data op (kOps = 3) stay indexed by op.
// kZoneMgmt (NVMe ZNS Zone Management Send): moves no data either; its
// action is HostCommand::zone.
enum class IoOp : std::uint8_t { kRead, kWrite, kTrim, kFlush, kZoneMgmt };

// NVMe Zoned Namespace command set (ftl/zoned_ftl.h). kAppend rides on a
// write (IoOp::kWrite): `offset` names the zone's start, the drive picks
// the LBA (its write pointer) and the completion carries it back in
// `offset`. The rest are Zone Management Send actions (IoOp::kZoneMgmt) on
// the zone starting at `offset`.
enum class ZoneAction : std::uint8_t { kNone, kAppend, kOpen, kClose, kFinish, kReset, kOffline };

// A completion's status. The NVMe codes are in cmd_status_name's table
// (ftl/zoned_ftl.cpp): generic (SCT 0h) for the first three, command
// specific (SCT 1h, 0xB8-0xBF) for the zone errors.
enum class CmdStatus : std::uint8_t {
  kSuccess,
  kInvalidOpcode,
  kInvalidField,
  kLbaOutOfRange,
  kZoneBoundary,
  kZoneFull,
  kZoneReadOnly,
  kZoneOffline,
  kZoneInvalidWrite,
  kTooManyActiveZones,
  kTooManyOpenZones,
  kZoneInvalidTransition,
  kCount
};
constexpr std::size_t kCmdStatuses = static_cast<std::size_t>(CmdStatus::kCount);
// "zone_invalid_write", ... (summary.json keys); "success" for kSuccess.
const char* cmd_status_name(CmdStatus s);

struct HostCommand {
  IoOp op = IoOp::kRead;
  // NVMe namespace (1 on a drive that declares none, and on SATA), and
  // the placement handle (NVMe FDP: the reclaim unit handle its placement
  // identifier selects; 0 without placement). `offset` is in the namespace.
  std::uint16_t placement = 0;
  // The submission queue the host placed it in (NVMe: the controller's
  // arbitration picks among the queues' heads; SATA has one).
  std::uint16_t sq = 0;
  // Set by the controller when it fetches the command (they are looked up
  // once, not per chunk): the reclaim unit handle its placement selects,
  // and its first 4 KiB page in the FTL's space (the namespace's offset
  // added). (Both fit the padding before `offset`.)
  std::uint16_t handle = 0;
  std::uint32_t nsid = 1;
  std::uint32_t first_page = 0;
  std::uint64_t offset = 0;  // bytes, 4 KiB aligned
  std::uint32_t bytes = 0;
  Tick issued = 0;                  // when the workload issued it (latency starts)
  Tick data_done = 0;               // end of the last data transfer on the link
  std::uint32_t parts_pending = 0;  // flash reads still outstanding
  std::uint32_t deferred = 0;       // parts still waiting for their mapping
  // A write that covers its first (bit 0) or last (bit 1) 4 KiB page only
  // partly: the drive reads the page's old data and merges it before the
  // write proceeds (read-modify-write).
  std::uint8_t rmw = 0;
  bool in_use = false;
  // A write with Force Unit Access: complete once its data is on flash
  // (on a drive with power-loss protection, once it is in the buffer).
  bool fua = false;
  // Zoned namespaces: the command's zone action (kNone for plain I/O), and
  // the status its completion carries (set by the drive).
  ZoneAction zone = ZoneAction::kNone;
  CmdStatus status = CmdStatus::kSuccess;
  // A write's data moves into the write buffer in chunks as space frees:
  // pages given buffer space (and sent over the link), and pages arrived.
  std::uint32_t admitted = 0;
  std::uint32_t arrived = 0;
};

}  // namespace ssdtwin
