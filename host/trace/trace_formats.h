// One parser per trace format: the grammar of a line, turned into an IO in
// the format's own time base. The reader (host/trace/trace_reader.cpp) does what is
// common to every format: lines, zero-length checks, device selection, time
// relative to the first record, ordering, and bad-line handling.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/trace/trace_reader.h"

namespace ssdtwin {

// An IO as one line gives it.
struct ParsedIo {
  TraceOp op = TraceOp::kRead;
  Tick time = 0;  // ns from the format's own origin (e.g. 1601 for MSR filetime)
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;  // the format's stream or hint field (native: `stream`); 0 without
};

enum class LineKind : std::uint8_t {
  kIo,     // an IO: ParsedIo filled in
  kOther,  // a line of the format that carries no IO (header, file action, other event)
};

// Thrown by a parser for a line it cannot take; the reader adds file:line.
struct LineError {
  BadLine kind;
  std::string what;
};

class LineParser {
 public:
  virtual ~LineParser() = default;
  // Parses one non-blank line (without its newline; the reader skips blank
  // ones). Parsers keep state across lines (a header seen, fio's files and
  // clock, blkparse's summary block).
  virtual LineKind parse(std::string_view line, ParsedIo& io) = 0;
};

// One row per format: a new format is one file in host/trace/formats/ and
// one line in the table (host/trace/trace_formats.cpp).
struct TraceFormatInfo {
  const char* name;
  const char* columns;  // a line's layout, for listings and messages
  std::unique_ptr<LineParser> (*make)(const TraceReadOptions& opt);
  // False for formats whose lines are valid lines of another format read
  // differently (DiskSim and MQSim ASCII differ only in units): detection
  // never picks them, the workload names them.
  bool detected;
  // How messages write a device number (nullptr: in decimal).
  std::string (*device_name)(std::uint32_t device);
};
const std::vector<TraceFormatInfo>& trace_formats();
const TraceFormatInfo& trace_format_info(TraceFormat format);
std::string trace_device_name(std::uint32_t device, TraceFormat format);

std::unique_ptr<LineParser> make_line_parser(TraceFormat format, const TraceReadOptions& opt);

}  // namespace ssdtwin
