// Lines of a block-trace file, read in large blocks from plain text or from
// gzip, zstd or xz compressed input, decompressed as it is read (traces are
// often many GB; nothing is unpacked to disk and memory does not grow with
// the file).
//
// The compression is recognised by the file's magic bytes, not its name, so
// `trace.csv` that is really gzip still reads. zlib, libzstd and liblzma are
// used directly rather than through Boost.Iostreams: each decoder writes
// straight into the line buffer (no streambuf copy), and their own error
// codes name a truncated or corrupt file precisely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/config.h"

namespace ssdtwin {

// A bad trace file or line. The message is one line, `file:line: what was
// wrong` (or `file: what` when no line is involved). It is a ConfigError, so
// the CLI reports it as bad input (exit status 2) like a bad config.
class TraceError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

enum class Compression : std::uint8_t { kNone, kGzip, kZstd, kXz };
const char* compression_name(Compression c);

class TraceInput {
 public:
  // Opens `path` (throws TraceError if it cannot be read).
  explicit TraceInput(const std::string& path);
  ~TraceInput();
  TraceInput(const TraceInput&) = delete;
  TraceInput& operator=(const TraceInput&) = delete;

  // The next line without its "\n" or "\r\n" (nor, on the first line, a
  // UTF-8 byte-order mark); false at the end of the file.
  // The view points into the read buffer and stays valid until the next
  // call. A line longer than kMaxLine is an error (not a text trace).
  bool next_line(std::string_view& line);
  // 1-based number of the line last returned.
  std::uint64_t line_number() const { return line_; }
  const std::string& path() const { return path_; }
  Compression compression() const { return compression_; }
  // Share of the file consumed so far (of its compressed bytes when
  // compressed), for progress lines.
  double progress() const;

  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;

  class Decoder;

 private:
  void fill();

  std::string path_;
  Compression compression_ = Compression::kNone;
  std::unique_ptr<Decoder> decoder_;
  // Decoded text; lines are views into it. Left uninitialised: a trace
  // shorter than the buffer touches only its own bytes (a vector zeroed the
  // whole MiB for every trace phase).
  std::unique_ptr<char[]> buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t line_ = 0;
};

// Writes `data` to `path`, compressed as `c` (kNone: as is). The tests and
// the parse benchmark make compressed traces with it; throws TraceError.
void write_trace_file(const std::string& path, std::string_view data, Compression c);

}  // namespace ssdtwin
