// Replays a block trace on the drive, as an IoGenerator sibling: it drives
// the HostInterface as its CompletionSink and fills the same PhaseResult.
//
// Open loop honours the trace's timestamps (divided by `time_scale`: 2.0
// replays twice as fast). An IO that arrives while every command slot is
// busy waits in the host's queue; its queueing delay (arrival to issue) is
// measured apart from its device latency (issue to completion). The queue
// costs no memory: IOs wait in arrival order, so the waiting ones are
// exactly the trace records not read yet, and the reader is simply not
// advanced while the slots are full.
//
// Closed loop ignores the timestamps and keeps `iodepth` commands
// outstanding, as fast as the drive completes them.
//
// Each record is placed on the drive's user capacity (AddressMap), widened
// to whole 4 KiB pages (the drive's commands are whole pages), and split
// into commands of at most `max_transfer` bytes (CommandSplitter), as a host
// driver splits requests larger than the controller's maximum data transfer
// size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/host_interface.h"
#include "host/trace/trace_reader.h"
#include "host/workload/phase_result.h"
#include "sim/histogram.h"

namespace ssdtwin {

enum class ReplayMode : std::uint8_t { kOpen, kClosed };
// How trace addresses land on the drive, after `offset` is added:
//   error  an IO past the end of the user capacity stops the replay with
//          `file:line: ...` (a TraceError)
//   wrap   addresses are taken modulo the capacity; an IO crossing the end
//          continues at byte 0
//   scale  the trace's address span [0, trace_span) is stretched or shrunk
//          onto [offset, capacity): the page of addr * (capacity - offset) /
//          trace_span, plus the IO's offset within its own page (so aligned
//          IOs stay aligned). Lengths are kept (IO sizes matter to the
//          drive), so an IO ending past the capacity is moved back to end at
//          it. trace_span comes from the config or from one pre-pass over
//          the trace (scan_trace(...).max_end).
enum class MapMode : std::uint8_t { kError, kWrap, kScale };
// Where a record's placement identifier (NVMe FDP) comes from:
//   none    every write without placement (identifier 0)
//   device  the record's device number (TraceReadOptions::device): a trace
//           of several disks, each a tenant with its own handle
//   stream  the format's stream or hint field (TraceRecord::stream)
// An identifier beyond the namespace's placement handles stops the replay
// with `file:line: ...` (a TraceError).
enum class TracePlacement : std::uint8_t { kNone, kDevice, kStream };
const char* replay_mode_name(ReplayMode m);
const char* map_mode_name(MapMode m);

constexpr std::uint64_t kTracePageBytes = 4096;  // the drive's logical page (nand/geometry.h)

struct TraceMapping {
  MapMode mode = MapMode::kError;
  std::uint64_t offset = 0;      // drive byte where trace byte 0 lands; a multiple of 4 KiB
  std::uint64_t trace_span = 0;  // scale: the trace's address span in bytes
};

// A trace IO placed on the drive, in whole pages, before splitting.
struct MappedIo {
  TraceOp op = TraceOp::kRead;
  std::uint64_t start = 0;  // drive byte, page aligned, below the capacity
  std::uint64_t bytes = 0;  // whole pages; in wrap mode the IO may continue at byte 0
  // Pages a write covers only partly (0, 1 or 2): the drive reads the rest
  // of each page and merges it (read-modify-write, HostCommand::rmw).
  std::uint32_t rmw_pages = 0;
  std::uint8_t rmw = 0;    // as HostCommand::rmw: bit 0 first page partly written, bit 1 last
  bool unaligned = false;  // start or end not on a page boundary
  bool wrapped = false;    // wrap mode moved it (past the end of the drive)
};

class AddressMap {
 public:
  // Throws ConfigError for a mapping that cannot work (offset not a
  // multiple of 4 KiB or not below the capacity, scale without a span).
  AddressMap(const TraceMapping& map, std::uint64_t capacity);

  // Places record `r` on the drive. Reads and writes cover every page they
  // touch (start rounded down, end rounded up); a trim covers only the
  // pages it holds whole, since deallocating a partly trimmed page would
  // drop live data (NVMe Deallocate of a partial page is advisory and
  // drives ignore it); false when a trim holds no whole page. A trim longer
  // than the drive (a whole-device discard of a bigger disk) is cut to the
  // drive in wrap and scale modes. Throws TraceError `source:line: ...`
  // for an IO past the end in error mode, or a read or write larger than
  // the drive.
  bool place(const TraceRecord& r, const std::string& source, MappedIo& out) const;
  std::uint64_t capacity() const { return capacity_; }

 private:
  [[noreturn]] void fail(const TraceRecord& r, const std::string& source,
                         const std::string& what) const;
  TraceMapping map_;
  std::uint64_t capacity_;
};

// Cuts a MappedIo into commands: at most `max_transfer` bytes each for
// reads and writes, at most kMaxTrimCommand for trims (NVMe Dataset
// Management ranges are not bound by MDTS; the limit is HostCommand's 32-bit
// length), and never across the end of the drive (wrap mode).
class CommandSplitter {
 public:
  static constexpr std::uint32_t kMaxTrimCommand = std::uint32_t{1} << 31;

  CommandSplitter(std::uint64_t capacity, std::uint32_t max_transfer);
  void start(const MappedIo& io);
  // The next command's drive offset and length; false when the IO is done.
  bool next(std::uint64_t& offset, std::uint32_t& bytes);
  bool done() const { return left_ == 0; }

 private:
  std::uint64_t capacity_;
  std::uint32_t max_transfer_;
  std::uint64_t pos_ = 0, left_ = 0, limit_ = 0;
};

struct TraceReplaySpec {
  std::uint32_t nsid = 1;  // the namespace the replay addresses (the phase's)
  // 128 KiB: an NVMe controller's MDTS of 5 (2^5 x a 4 KiB memory page), a
  // value common on client drives, and the transfer the README's sequential
  // jobs use, so a replayed large IO splits into the commands a synthetic
  // sequential job of the same size would issue.
  static constexpr std::uint32_t kDefaultMaxTransfer = 128 * 1024;

  ReplayMode mode = ReplayMode::kOpen;
  double time_scale = 1.0;  // open loop: trace time / time_scale = replay time
  // Closed loop: the queue depth held (required). Open loop: the host's
  // command slots (0: as many as the device holds; more than it holds is
  // cut to that, so all waiting is host-side queueing, measured as such).
  std::uint32_t iodepth = 0;
  TraceMapping map;
  std::uint32_t max_transfer = kDefaultMaxTransfer;  // bytes, a multiple of 4 KiB
  TracePlacement placement = TracePlacement::kNone;
  std::uint32_t placement_handles = 1;  // the namespace's (identifiers must be below)
};

struct TraceReplayStats {
  static constexpr int kOps = PhaseResult::kOps;  // indexed by IoOp
  // Open loop: arrival (trace time, scaled) to issue to the host interface,
  // per command. Device latency (issue to completion) is in PhaseResult.
  LatencyHistogram queue_delay[kOps];
  // Trace records taken, per TraceOp. A flush record is sent as a Flush
  // command (the drive writes out its volatile buffer, padding a partial
  // program unit); its latency is PhaseResult's flush_latency.
  std::uint64_t records[kTraceOps] = {};
  std::uint64_t commands[kOps] = {};  // read, write and trim commands issued to the drive
  std::uint64_t flushes = 0;          // Flush commands issued
  std::uint64_t split_records = 0;    // records issued as more than one command
  std::uint64_t unaligned_records = 0;
  // Writes covering some page only partly, and those pages: inside the
  // drive each is a read-modify-write (the controller reads the page's old
  // data before it takes the write, see HostCommand::rmw).
  std::uint64_t partial_page_writes = 0;
  std::uint64_t rmw_pages = 0;
  std::uint64_t trims_dropped = 0;  // trims holding no whole page
  std::uint64_t wrapped_records = 0;
  std::uint32_t max_outstanding = 0;
  Tick first_arrival = 0, last_arrival = 0;  // open loop, absolute simulated time
  Tick first_issue = 0, last_issue = 0;
  double outstanding_ns = 0;  // integral of commands outstanding over time
  Tick outstanding_from = 0, outstanding_to = 0;

  // Commands outstanding on average from the first issue to the last completion.
  double mean_outstanding() const;
  std::uint64_t total_records() const;
};

class TraceReplay : public CompletionSink, public EventTarget {
 public:
  // `capacity`: the drive's user bytes. `reader`, `result` and `stats`
  // outlive the replay. Throws ConfigError for an impossible spec.
  TraceReplay(EventEngine& engine, HostInterface& hif, const TraceReplaySpec& spec,
              TraceReader& reader, std::uint64_t capacity, Tick interval, std::uint64_t per_bytes,
              PhaseResult& result, TraceReplayStats& stats, const Gauge* gauge = nullptr);

  void start();
  bool finished() const { return exhausted_ && outstanding_ == 0; }
  double progress() const { return reader_.progress(); }
  std::uint32_t command_slots() const { return slots_; }

  void on_complete(std::uint32_t id) override;
  void on_event(std::uint32_t kind, std::uint64_t arg) override;

 private:
  enum Kind : std::uint32_t { kArrival };
  bool open() const { return spec_.mode == ReplayMode::kOpen; }
  bool load_next();
  // Takes `r` as the record being issued (its op, arrival).
  void start_record(const TraceRecord& r);
  void pump();
  void issue(std::uint64_t offset, std::uint32_t bytes, std::uint8_t rmw);
  void note_outstanding(Tick now);
  Tick replay_time(Tick trace_time) const;

  EventEngine& engine_;
  HostInterface& hif_;
  TraceReplaySpec spec_;
  TraceReader& reader_;
  PhaseResult& result_;
  TraceReplayStats& stats_;
  const Gauge* gauge_;
  AddressMap map_;
  CommandSplitter splitter_;
  std::uint32_t slots_ = 0;
  std::vector<std::uint32_t> free_;  // free command ids
  std::uint32_t outstanding_ = 0;
  Tick phase_start_ = 0;
  // The record being issued: its op, arrival and commands issued so far.
  bool have_cur_ = false;
  TraceOp cur_op_ = TraceOp::kRead;
  std::uint8_t cur_rmw_ = 0;         // the record's partly written pages (MappedIo::rmw)
  std::uint16_t cur_placement_ = 0;  // its placement identifier
  Tick cur_arrival_ = 0;
  std::uint32_t cur_commands_ = 0;
  bool arrival_pending_ = false;  // a kArrival event is scheduled
  bool exhausted_ = false;
  bool any_arrival_ = false, any_issue_ = false;
};

}  // namespace ssdtwin
