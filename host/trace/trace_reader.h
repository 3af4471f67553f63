// Block traces as a stream of IO records, from the formats people have
// (MSR Cambridge, blkparse, fio iologs, DiskSim, MQSim, SPC and a native
// CSV): one parser per format in host/trace/formats/, listed in the table
// of host/trace/trace_formats.cpp (`ssdtwin policies` prints it).
//
// A reader streams: memory does not grow with the trace. Record times are
// nanoseconds from the first record returned and never decrease; a record
// stamped earlier than the one before it (multi-CPU blkparse captures
// interleave per-CPU buffers and come a few microseconds out of order) is
// given the time of the latest record so far, and counted in
// TraceStats::backsteps with the largest step back, so the replay keeps
// the trace's order and a summary can say how disordered the input was.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/trace/trace_input.h"
#include "sim/time.h"

namespace ssdtwin {

enum class TraceOp : std::uint8_t { kRead, kWrite, kTrim, kFlush };
constexpr int kTraceOps = 4;
const char* trace_op_name(TraceOp op);

struct TraceRecord {
  Tick time = 0;  // ns from the first record, non-decreasing
  TraceOp op = TraceOp::kRead;
  std::uint64_t offset = 0;  // bytes (0 for a flush)
  std::uint64_t bytes = 0;   // > 0 except for a flush
  std::uint32_t device = 0;  // see TraceReadOptions::device
  std::uint32_t stream = 0;  // the format's stream or hint field (ParsedIo::stream)
  std::uint64_t line = 0;    // line in the trace file, for messages
};

// A trace format: its row in the format table (host/trace/trace_formats.h).
class TraceFormat {
 public:
  TraceFormat() = default;  // the table's first row
  explicit TraceFormat(std::uint8_t row) : row_(row) {}
  std::uint8_t row() const { return row_; }
  friend bool operator==(TraceFormat a, TraceFormat b) { return a.row_ == b.row_; }
  friend bool operator!=(TraceFormat a, TraceFormat b) { return a.row_ != b.row_; }

 private:
  std::uint8_t row_ = 0;
};
const char* trace_format_name(TraceFormat f);
std::optional<TraceFormat> parse_trace_format(std::string_view name);
// The format of that name, for code that names one (std::invalid_argument
// when no row has it: a programming error, not bad input).
TraceFormat trace_format(std::string_view name);
// Every format name, in table order (for config enums and messages).
const std::vector<std::string>& trace_format_names();

struct TraceReadOptions {
  // blkparse: the action whose events are the IOs, 'D' (issued to the
  // device) or 'Q' (queued by the block layer, before merging and
  // scheduling).
  char blkparse_action = 'D';
  // Only this device's records; none: every device merged into one stream.
  // Device numbers: the DiskNumber (msr), devno (disksim, mqsim), ASU (spc),
  // the file's index in order of its `add` line (fio), MAJ << 20 | MIN as
  // the kernel's dev_t (blkparse; parse_trace_device("8,33")), 0 (native).
  // Times count from the first record of the selected device.
  std::optional<std::uint32_t> device;
  // A bad line (malformed, zero-length IO, unknown op) is counted and
  // skipped instead of stopping the read with a TraceError.
  bool skip_bad_lines = false;
  // A record stamped later than this after the first is a bad line
  // (malformed): the time a replay can reach (TracePhaseSpec::limit_times),
  // so that `check` and a run refuse a far-future timestamp alike, naming
  // its line, before the replay gets there.
  Tick max_time = std::numeric_limits<Tick>::max();

  // Every field: readers with equal options read a file alike (the trace
  // cache's key, host/trace/trace_cache.h).
  bool operator==(const TraceReadOptions& o) const {
    return blkparse_action == o.blkparse_action && device == o.device &&
           skip_bad_lines == o.skip_bad_lines && max_time == o.max_time;
  }
};

// Kinds of bad lines, counted apart when they are skipped.
enum class BadLine : std::uint8_t { kMalformed, kZeroLength, kUnknownOp };
constexpr int kBadLineKinds = 3;
const char* bad_line_name(BadLine b);

struct TraceStats {
  std::uint64_t lines = 0;                // lines read
  std::uint64_t records[kTraceOps] = {};  // records returned, per TraceOp
  std::uint64_t bytes[kTraceOps] = {};
  std::uint64_t other_lines = 0;   // headers, fio file actions, other blkparse actions and
                                   // no-data requests, the blkparse summary
  std::uint64_t other_device = 0;  // records of devices not selected
  // The same per device, for the first kDevicesCounted devices met (a
  // replay that issues nothing can say which devices the trace holds).
  static constexpr std::size_t kDevicesCounted = 64;
  std::map<std::uint32_t, std::uint64_t> other_devices;
  std::uint64_t bad[kBadLineKinds] = {};  // skipped bad lines, per BadLine
  std::string first_bad;                  // the first one's message (file:line: what)
  std::uint64_t backsteps = 0;            // records stamped before the one before them
  Tick max_backstep = 0;
  Tick last_time = 0;         // time of the last record (the trace's span)
  std::uint64_t max_end = 0;  // highest offset + bytes of a record

  std::uint64_t total_records() const;
  std::uint64_t bad_lines() const;
};

// A stream of records. next() throws TraceError (file:line: what) for a
// bad line unless skip_bad_lines is set.
class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The next record, or false at the end of the trace.
  virtual bool next(TraceRecord& r) = 0;
  virtual const TraceStats& stats() const = 0;
  virtual const std::string& source() const = 0;  // the file, as named in messages
  virtual TraceFormat format() const = 0;
  virtual double progress() const = 0;  // share of the input read
};

// Opens `path` (plain, .gz, .zst or .xz by content) as `format`, or detects
// the format when none is given (see detect_trace_format).
std::unique_ptr<TraceReader> open_trace(const std::string& path, std::optional<TraceFormat> format,
                                        const TraceReadOptions& opt = {});

// The format whose grammar every one of the first non-blank lines fits.
// Throws TraceError when none fits, when several do, and whenever the lines
// fit the DiskSim or the MQSim ASCII format: those two have the same five
// columns in different units (float ms and flags vs integer ns and op), so
// a guess could misread every time and op; the format must be named.
TraceFormat detect_trace_format(const std::string& path, const TraceReadOptions& opt = {});

// Reads the whole trace once and returns its statistics: max_end (the
// trace's address span, for map: scale), record counts, the time span.
// Memory stays constant; it costs one parse of the file.
TraceStats scan_trace(const std::string& path, std::optional<TraceFormat> format,
                      const TraceReadOptions& opt = {});

// A device number as written in configs: "3" or blkparse's "8,33"
// (MAJ << 20 | MIN, the kernel's dev_t). nullopt if neither.
std::optional<std::uint32_t> parse_trace_device(std::string_view text);

}  // namespace ssdtwin
