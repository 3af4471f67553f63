#include "host/trace/trace_formats.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "sim/config.h"

namespace ssdtwin {

namespace {

constexpr std::uint64_t kSector = 512;  // blkparse, DiskSim, MQSim and SPC address in 512 B sectors
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// ---- Errors -----------------------------------------------------------------

// Field text quoted in a message, cut short so one line stays one line.
std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return "'" + printable(s.substr(0, kMax)) + (s.size() > kMax ? "...'" : "'");
}

[[noreturn]] void malformed(std::string what) {
  throw LineError{BadLine::kMalformed, std::move(what)};
}

[[noreturn]] void unknown_op(std::string_view op, const char* expected) {
  throw LineError{BadLine::kUnknownOp, "unknown op " + quote(op) + " (expected " + expected + ")"};
}

// `n` fields where `want` (or at least `want`) are expected; `layout`
// names them, e.g. "comma-separated fields (ASU,LBA,Size,Opcode,Timestamp)".
void need_fields(std::size_t n, std::size_t want, const char* layout, bool at_least = false) {
  if (n == want || (at_least && n > want)) return;
  malformed("expected " + std::to_string(want) + " " + layout + ", found " +
            (n > want ? std::string("more") : std::to_string(n)));
}

struct OpWord {
  std::string_view word;
  TraceOp op;
};

// The op a format's word names (compared ignoring case), or an unknown-op
// error listing what was expected.
template <std::size_t N>
TraceOp op_of(std::string_view word, const OpWord (&ops)[N], const char* expected);

// ---- Fields -----------------------------------------------------------------

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Splits at commas into at most `max` trimmed fields; returns the count,
// or max + 1 when there are more. (A plain loop: fields are a few bytes,
// shorter than a memchr call is worth.)
std::size_t split_csv(std::string_view line, std::string_view* out, std::size_t max) {
  std::size_t n = 0;
  const char* p = line.data();
  const char* end = p + line.size();
  for (;;) {
    if (n == max) return max + 1;
    const char* start = p;
    while (p < end && *p != ',') ++p;
    out[n++] = trim(std::string_view(start, static_cast<std::size_t>(p - start)));
    if (p == end) return n;
    ++p;
  }
}

// Splits at runs of spaces and tabs; same contract as split_csv.
std::size_t split_ws(std::string_view line, std::string_view* out, std::size_t max) {
  std::size_t n = 0;
  const char* p = line.data();
  const char* end = p + line.size();
  for (;;) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) return n;
    if (n == max) return max + 1;
    const char* start = p;
    while (p < end && !is_blank(*p)) ++p;
    out[n++] = std::string_view(start, static_cast<std::size_t>(p - start));
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

template <std::size_t N>
TraceOp op_of(std::string_view word, const OpWord (&ops)[N], const char* expected) {
  for (const OpWord& o : ops)
    if (iequals(word, o.word)) return o.op;
  unknown_op(word, expected);
}

// ---- Numbers ----------------------------------------------------------------

// Decimal digits only (no sign, no spaces). Hand-rolled: the parse of a
// trace line is mostly this, and up to 19 digits cannot overflow.
bool to_u64(std::string_view s, std::uint64_t& v) {
  const std::size_t n = s.size();
  if (n == 0 || n > 20) return false;
  std::uint64_t x = 0;
  if (n < 20) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto d = static_cast<unsigned>(s[i] - '0');
      if (d > 9) return false;
      x = x * 10 + d;
    }
  } else {
    for (const char c : s) {
      const auto d = static_cast<unsigned>(c - '0');
      if (d > 9 || __builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, d, &x))
        return false;
    }
  }
  v = x;
  return true;
}

bool hex_to_u64(std::string_view s, std::uint64_t& v) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

constexpr std::uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                    100000, 1000000, 10000000, 100000000, 1000000000};

// A non-negative decimal ("12", "0.001368096", ".5", "1e-3") in units of
// 10^-digits, e.g. seconds to ns with digits = 9. Plain decimals are read
// exactly, in integers, in one pass (a blkparse time is exact to the ns);
// digits beyond the unit are truncated. Exponent forms go through a double.
bool to_fixed(std::string_view s, int digits, std::uint64_t& v) {
  const std::uint64_t unit = kPow10[digits];
  std::uint64_t whole = 0, frac = 0;
  int whole_digits = 0, frac_digits = 0;
  bool dot = false;
  for (const char c : s) {
    const auto d = static_cast<unsigned>(c - '0');
    if (d <= 9) {
      if (!dot) {
        if (++whole_digits > 19) return false;
        whole = whole * 10 + d;
      } else if (frac_digits < digits) {
        frac = frac * 10 + d;
        ++frac_digits;
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else if (c == 'e' || c == 'E') {
      double x = 0;
      const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
      if (ec != std::errc() || p != s.data() + s.size() || !(x >= 0)) return false;
      const double scaled = std::round(x * static_cast<double>(unit));
      if (!(scaled < 1.8e19)) return false;
      v = static_cast<std::uint64_t>(scaled);
      return true;
    } else {
      return false;
    }
  }
  if (whole_digits == 0 && frac_digits == 0) return false;  // "", "."
  if (whole > (kU64Max - unit) / unit) return false;
  v = whole * unit + frac * kPow10[digits - frac_digits];
  return true;
}

std::uint64_t need_u64(std::string_view s, const char* what) {
  std::uint64_t v = 0;
  if (!to_u64(s, v)) malformed(std::string(what) + " " + quote(s) + " is not a whole number");
  return v;
}

std::uint32_t need_u32(std::string_view s, const char* what) {
  const std::uint64_t v = need_u64(s, what);
  if (v > std::numeric_limits<std::uint32_t>::max())
    malformed(std::string(what) + " " + quote(s) + " is larger than 2^32 - 1");
  return static_cast<std::uint32_t>(v);
}

std::uint64_t need_fixed(std::string_view s, int digits, const char* what) {
  std::uint64_t v = 0;
  if (!to_fixed(s, digits, v))
    malformed(std::string(what) + " " + quote(s) + " is not a non-negative decimal number");
  return v;
}

// v * k, or an error naming the field if it does not fit in 64 bits.
std::uint64_t scaled(std::uint64_t v, std::uint64_t k, const char* what) {
  if (v > kU64Max / k) malformed(std::string(what) + " is too large (overflows 64 bits)");
  return v * k;
}

// Every parser reads a line's numbers before its op, so a line whose only
// fault is an unknown op has its format's shape (detection relies on it).

// ---- MSR Cambridge / SNIA IOTTA ---------------------------------------------

// 128166372003061629,hm,1,Read,3154509824,32768,4517
class MsrParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 8> f;
    const std::size_t n = split_csv(line, f.data(), 7);
    if (std::exchange(first_, false) && iequals(f[0], "Timestamp")) return LineKind::kOther;
    need_fields(n, 7,
                "comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,"
                "ResponseTime)");
    // Windows filetime: 100 ns ticks.
    io.time = scaled(need_u64(f[0], "Timestamp"), 100, "Timestamp");
    io.device = need_u32(f[2], "DiskNumber");
    io.offset = need_u64(f[4], "Offset");
    io.bytes = need_u64(f[5], "Size");
    static constexpr OpWord kOps[] = {{"Read", TraceOp::kRead}, {"Write", TraceOp::kWrite}};
    io.op = op_of(f[3], kOps, "Read or Write");
    return LineKind::kIo;
  }

 private:
  bool first_ = true;
};

// ---- blkparse ---------------------------------------------------------------

// "8,33" -> the kernel's dev_t layout, MAJ << 20 | MIN.
bool to_dev(std::string_view s, std::uint32_t& dev) {
  const std::size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  std::uint64_t major = 0, minor = 0;
  if (!to_u64(s.substr(0, comma), major) || !to_u64(s.substr(comma + 1), minor)) return false;
  if (major >= (1u << 12) || minor >= (1u << 20)) return false;
  dev = static_cast<std::uint32_t>(major << 20 | minor);
  return true;
}

enum class Rwbs : std::uint8_t { kRead, kWrite, kDiscard, kFlush, kNoData };

// RWBS as blktrace's fill_rwbs() and the kernel's blk_fill_rwbs() write it:
// an optional leading 'F' (preflush), then the operation ('D' discard, 'DE'
// secure erase, 'W' write, 'WZ' write-zeroes, 'R' read, 'F' flush, 'N' no
// data, 'Z?' zone operations), then modifiers ('F' FUA, 'A' readahead, 'S'
// sync, 'M' metadata) that do not change the operation.
Rwbs classify_rwbs(std::string_view r) {
  std::size_t i = 0;
  bool preflush = false;
  if (!r.empty() && r[0] == 'F') {
    preflush = true;
    i = 1;
  }
  const char c = i < r.size() ? r[i] : '\0';
  const char next = i + 1 < r.size() ? r[i + 1] : '\0';
  switch (c) {
    case 'R':
      return Rwbs::kRead;
    case 'W':
      if (next == 'Z') unknown_op(r, "R, W, D or a flush; write-zeroes (WZ) is not modelled");
      return Rwbs::kWrite;
    case 'D':
      return Rwbs::kDiscard;
    case 'F':
      return Rwbs::kFlush;
    case 'N':
    case '\0':
      return preflush ? Rwbs::kFlush : Rwbs::kNoData;
    default:
      unknown_op(r, "an RWBS of R, W, D, F or N with modifiers");
  }
}

//   8,33  30  2  0.001503478  5025  D   R 540656 + 8 [systemd-udevd]
class BlkparseParser final : public LineParser {
 public:
  explicit BlkparseParser(char action) : action_(action) {}

  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 11> t;
    const std::size_t n = split_ws(line, t.data(), 10);
    std::uint32_t dev = 0;
    if (!to_dev(t[0], dev)) {
      // The per-CPU and per-device summary blkparse prints at the end
      // ("CPU3 (8,33):", "Total (8,33):", then counters): no events after it.
      if (summary_ || t[0].substr(0, 3) == "CPU" || t[0] == "Total") {
        summary_ = true;
        return LineKind::kOther;
      }
      malformed(
          "not a blkparse event line (expected blkparse's default output: "
          "MAJ,MIN CPU SEQUENCE SECONDS PID ACTION RWBS ...)");
    }
    need_fields(n, 7, "fields or more (MAJ,MIN CPU SEQUENCE SECONDS PID ACTION RWBS ...)", true);
    // Other actions (queue, merge, complete, plug, 'm' messages...) are not IOs here.
    if (t[5].size() != 1 || t[5][0] != action_) return LineKind::kOther;
    io.time = need_fixed(t[3], 9, "time");
    const Rwbs kind = classify_rwbs(t[6]);
    if (kind == Rwbs::kNoData) return LineKind::kOther;  // e.g. SCSI passthrough "N 0 (00 ..)"
    io.device = dev;
    if (kind == Rwbs::kFlush) {
      io.op = TraceOp::kFlush;
      io.offset = io.bytes = 0;
      return LineKind::kIo;
    }
    // A SCSI passthrough with data ("R 36 (12 00 ..) [sg_inq]": bytes, then
    // the CDB) is a command, not a block IO.
    if (n >= 9 && t[8].front() == '(') return LineKind::kOther;
    if (n < 10 || t[8] != "+") malformed("expected 'SECTOR + SECTORS' after RWBS " + quote(t[6]));
    io.offset = scaled(need_u64(t[7], "sector"), kSector, "sector");
    io.bytes = scaled(need_u64(t[9], "sector count"), kSector, "sector count");
    io.op = kind == Rwbs::kRead    ? TraceOp::kRead
            : kind == Rwbs::kWrite ? TraceOp::kWrite
                                   : TraceOp::kTrim;
    // A preflush with no data ("FWS 0 + 0") is the flush itself.
    if (io.bytes == 0 && t[6][0] == 'F') {
      io.op = TraceOp::kFlush;
      io.offset = 0;
    }
    return LineKind::kIo;
  }

 private:
  char action_;
  bool summary_ = false;
};

// ---- fio iolog v2 / v3 ------------------------------------------------------

// Grammar and units from fio's HOWTO ("Trace file format") and iolog.c:
// v2 lines are `FILE add|open|close` or `FILE ACTION OFFSET LENGTH`; v3
// puts a timestamp first. fio writes that timestamp with
// utime_since_now(&td->io_log_start_time) in log_io_u()/log_file(), i.e.
// microseconds from the start of the job (the HOWTO says only "relative to
// the beginning of the run"), and replays it through iolog_delay(), whose
// delay is in microseconds.
//
// v2 `wait`: the HOWTO says "wait for OFFSET microseconds ... relative to
// the previous wait statement", which is what this reader does (each wait
// advances the clock). fio's own read_iolog_get() instead sleeps until
// OFFSET milliseconds after the job started, and the HOWTO says waits
// under 100 us are discarded (sleep granularity, which simulated time does
// not have). The documented contract is what trace writers follow.
class FioParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    if (version_ == 0) {
      const std::string_view l = trim(line);
      if (l == "fio version 2 iolog") {
        version_ = 2;
      } else if (l == "fio version 3 iolog") {
        version_ = 3;
      } else {
        malformed(
            "expected the header 'fio version 2 iolog' or 'fio version 3 iolog' "
            "(fio's headerless version 1 log is not supported)");
      }
      return LineKind::kOther;
    }
    std::array<std::string_view, 7> t;
    const std::size_t n = split_ws(line, t.data(), 6);
    std::size_t k = 0;
    Tick time = clock_;
    if (version_ == 3) {
      time = scaled(need_u64(t[0], "timestamp (us)"), kUs, "timestamp");
      k = 1;
    }
    const std::size_t rest = n > k ? n - k : 0;
    if (rest == 2) {
      file_action(t[k], t[k + 1]);
      return LineKind::kOther;
    }
    if (rest != 4)
      malformed(std::string("expected ") + (version_ == 3 ? "'TIMESTAMP " : "'") +
                "FILE add|open|close' or '" + (version_ == 3 ? "TIMESTAMP " : "") +
                "FILE ACTION OFFSET LENGTH'");
    const std::string_view act = t[k + 1];
    const std::uint64_t offset = need_u64(t[k + 2], "offset");
    const std::uint64_t length = need_u64(t[k + 3], "length");
    if (act == "wait") {
      if (version_ == 3)
        malformed("'wait' is not allowed in a version 3 iolog (its timestamps give the timing)");
      clock_ = scaled(offset, kUs, "wait") + clock_;
      return LineKind::kOther;
    }
    static constexpr OpWord kOps[] = {{"read", TraceOp::kRead},
                                      {"write", TraceOp::kWrite},
                                      {"trim", TraceOp::kTrim},
                                      {"sync", TraceOp::kFlush},
                                      {"datasync", TraceOp::kFlush}};
    io.op = op_of(act, kOps, "read, write, trim, sync, datasync or wait");
    io.device = file_index(t[k]);
    io.time = time;
    io.offset = io.op == TraceOp::kFlush ? 0 : offset;
    io.bytes = io.op == TraceOp::kFlush ? 0 : length;
    return LineKind::kIo;
  }

 private:
  void file_action(std::string_view name, std::string_view act) {
    if (act == "add") {
      if (find(name) == files_.size()) files_.emplace_back(name);
    } else if (act == "open" || act == "close") {
      file_index(name);
    } else {
      malformed("unknown file action " + quote(act) +
                " (expected add, open or close; an IO "
                "action needs OFFSET LENGTH)");
    }
  }
  std::size_t find(std::string_view name) {
    if (last_ < files_.size() && files_[last_] == name) return last_;
    for (std::size_t i = 0; i < files_.size(); ++i)
      if (files_[i] == name) return last_ = i;
    return files_.size();
  }
  std::uint32_t file_index(std::string_view name) {
    const std::size_t i = find(name);
    if (i == files_.size()) malformed("file " + quote(name) + " has no 'add' line before it");
    return static_cast<std::uint32_t>(i);
  }

  int version_ = 0;
  std::vector<std::string> files_;  // in order of their `add` lines: the device numbers
  std::size_t last_ = 0;
  Tick clock_ = 0;  // v2: the waits so far
};

// ---- DiskSim and MQSim ASCII ------------------------------------------------

// Columns 1 to 3, the same in both: device, first sector, sector count.
void sector_columns(const std::string_view* t, ParsedIo& io, const char* first, const char* count) {
  io.device = need_u32(t[1], "devno");
  io.offset = scaled(need_u64(t[2], first), kSector, first);
  io.bytes = scaled(need_u64(t[3], count), kSector, count);
}

// DiskSim's ASCII input (iotrace_ascii_get_ioreq_event() in
// disksim_iotrace.c reads "%lf %d %d %d %x"): arrival time in ms as a
// float, device, block number and count in 512 B sectors, flags in hex
// where bit 0x1 is READ.
class DiskSimParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 6> t;
    const std::size_t n = split_ws(line, t.data(), 5);
    need_fields(n, 5, "fields (time_ms devno blkno bcount flags)");
    io.time = need_fixed(t[0], 6, "time (ms)");
    sector_columns(t.data(), io, "blkno", "bcount");
    std::string_view hex = t[4];
    if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    std::uint64_t flags = 0;
    if (!hex_to_u64(hex, flags)) malformed("flags " + quote(t[4]) + " are not hexadecimal");
    io.op = (flags & 0x1) ? TraceOp::kRead : TraceOp::kWrite;
    return LineKind::kIo;
  }
};

// MQSim's ASCII trace (ASCII_Trace_Definition.h, IO_Flow_Trace_Based):
// columns time, device, address, size, type separated by spaces; time in
// integer ns, address and size in 512 B sectors, type "1" read, "0" write.
class MqsimParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 6> t;
    const std::size_t n = split_ws(line, t.data(), 5);
    need_fields(n, 5, "fields (time_ns devno lba sectors op)");
    io.time = need_u64(t[0], "time (ns)");
    sector_columns(t.data(), io, "lba", "size (sectors)");
    static constexpr OpWord kOps[] = {{"1", TraceOp::kRead}, {"0", TraceOp::kWrite}};
    io.op = op_of(t[4], kOps, "1 (read) or 0 (write)");
    return LineKind::kIo;
  }
};

// ---- SPC --------------------------------------------------------------------

// The SPC trace format (as in the UMass Financial and WebSearch traces):
// ASU,LBA,Size,Opcode,Timestamp with the LBA in 512 B sectors, the size in
// bytes and the time in seconds; the format allows optional fields after
// the timestamp, which are ignored.
class SpcParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 6> f;
    const std::size_t n = split_csv(line, f.data(), 5);
    need_fields(n, 5, "comma-separated fields (ASU,LBA,Size,Opcode,Timestamp)", true);
    io.device = need_u32(f[0], "ASU");
    io.offset = scaled(need_u64(f[1], "LBA"), kSector, "LBA");
    io.bytes = need_u64(f[2], "Size");
    io.time = need_fixed(f[4], 9, "Timestamp (s)");
    static constexpr OpWord kOps[] = {{"r", TraceOp::kRead}, {"w", TraceOp::kWrite}};
    io.op = op_of(f[3], kOps, "r or w");
    return LineKind::kIo;
  }
};

// ---- native -----------------------------------------------------------------

// time_ns,op,offset_bytes,length_bytes[,stream]: `stream` a write's stream
// or placement hint (a trace replay's `placement: stream` takes it as the
// placement identifier), 0 when left out.
class NativeParser final : public LineParser {
 public:
  LineKind parse(std::string_view line, ParsedIo& io) override {
    std::array<std::string_view, 6> f;
    const std::size_t n = split_csv(line, f.data(), 5);
    if (std::exchange(first_, false) && iequals(f[0], "time_ns")) return LineKind::kOther;
    if (n != 4 && n != 5)
      malformed(
          "expected 4 or 5 comma-separated fields (time_ns,op,offset_bytes,length_bytes[,stream]), "
          "found " +
          (n > 5 ? std::string("more") : std::to_string(n)));
    io.time = need_u64(f[0], "time_ns");
    io.offset = need_u64(f[2], "offset_bytes");
    io.bytes = need_u64(f[3], "length_bytes");
    static constexpr OpWord kOps[] = {{"read", TraceOp::kRead},
                                      {"write", TraceOp::kWrite},
                                      {"trim", TraceOp::kTrim},
                                      {"flush", TraceOp::kFlush}};
    io.op = op_of(f[1], kOps, "read, write, trim or flush");
    io.device = 0;
    io.stream = 0;
    if (n == 5) {
      const std::uint64_t s = need_u64(f[4], "stream");
      if (s > 0xFFFF) malformed("stream: expected at most 65535, got " + std::string(f[4]));
      io.stream = static_cast<std::uint32_t>(s);
    }
    if (io.op == TraceOp::kFlush) io.offset = io.bytes = 0;
    return LineKind::kIo;
  }

 private:
  bool first_ = true;
};

}  // namespace

std::optional<std::uint32_t> parse_trace_device(std::string_view text) {
  std::uint32_t dev = 0;
  if (to_dev(text, dev)) return dev;
  std::uint64_t v = 0;
  if (to_u64(text, v) && v <= std::numeric_limits<std::uint32_t>::max())
    return static_cast<std::uint32_t>(v);
  return std::nullopt;
}

std::unique_ptr<LineParser> make_line_parser(TraceFormat format, const TraceReadOptions& opt) {
  switch (format) {
    case TraceFormat::kMsr:
      return std::make_unique<MsrParser>();
    case TraceFormat::kBlkparse:
      return std::make_unique<BlkparseParser>(opt.blkparse_action);
    case TraceFormat::kFio:
      return std::make_unique<FioParser>();
    case TraceFormat::kDiskSim:
      return std::make_unique<DiskSimParser>();
    case TraceFormat::kMqsim:
      return std::make_unique<MqsimParser>();
    case TraceFormat::kSpc:
      return std::make_unique<SpcParser>();
    case TraceFormat::kNative:
      return std::make_unique<NativeParser>();
  }
  return nullptr;
}

}  // namespace ssdtwin
