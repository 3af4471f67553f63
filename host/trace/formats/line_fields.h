// What the trace-format parsers (one file each in host/trace/formats/)
// share: line errors, field splitting and the number readers. Inline: the
// parse of a trace line is mostly these, called per field.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "host/trace/trace_formats.h"
#include "sim/config.h"

namespace ssdtwin::trace_lines {

inline constexpr std::uint64_t kSector =
    512;  // blkparse, DiskSim, MQSim and SPC address in 512 B sectors
inline constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// ---- Errors -----------------------------------------------------------------

// Field text quoted in a message, cut short so one line stays one line.
inline std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  return "'" + printable(s.substr(0, kMax)) + (s.size() > kMax ? "...'" : "'");
}

[[noreturn]] inline void malformed(std::string what) {
  throw LineError{BadLine::kMalformed, std::move(what)};
}

[[noreturn]] inline void unknown_op(std::string_view op, const char* expected) {
  throw LineError{BadLine::kUnknownOp, "unknown op " + quote(op) + " (expected " + expected + ")"};
}

// `n` fields where `want` (or at least `want`) are expected; `layout`
// names them, e.g. "comma-separated fields (ASU,LBA,Size,Opcode,Timestamp)".
inline void need_fields(std::size_t n, std::size_t want, const char* layout,
                        bool at_least = false) {
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
inline TraceOp op_of(std::string_view word, const OpWord (&ops)[N], const char* expected);

// ---- Fields -----------------------------------------------------------------

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Splits at commas into at most `max` trimmed fields; returns the count,
// or max + 1 when there are more. (A plain loop: fields are a few bytes,
// shorter than a memchr call is worth.)
inline std::size_t split_csv(std::string_view line, std::string_view* out, std::size_t max) {
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
inline std::size_t split_ws(std::string_view line, std::string_view* out, std::size_t max) {
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

inline bool iequals(std::string_view a, std::string_view b) {
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
inline TraceOp op_of(std::string_view word, const OpWord (&ops)[N], const char* expected) {
  for (const OpWord& o : ops)
    if (iequals(word, o.word)) return o.op;
  unknown_op(word, expected);
}

// ---- Numbers ----------------------------------------------------------------

// Decimal digits only (no sign, no spaces). Hand-rolled: the parse of a
// trace line is mostly this, and up to 19 digits cannot overflow.
inline bool to_u64(std::string_view s, std::uint64_t& v) {
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

inline bool hex_to_u64(std::string_view s, std::uint64_t& v) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

inline constexpr std::uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                           100000, 1000000, 10000000, 100000000, 1000000000};

// A non-negative decimal ("12", "0.001368096", ".5", "1e-3") in units of
// 10^-digits, e.g. seconds to ns with digits = 9. Plain decimals are read
// exactly, in integers, in one pass (a blkparse time is exact to the ns);
// digits beyond the unit are truncated. Exponent forms go through a double.
inline bool to_fixed(std::string_view s, int digits, std::uint64_t& v) {
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

inline std::uint64_t need_u64(std::string_view s, const char* what) {
  std::uint64_t v = 0;
  if (!to_u64(s, v)) malformed(std::string(what) + " " + quote(s) + " is not a whole number");
  return v;
}

inline std::uint32_t need_u32(std::string_view s, const char* what) {
  const std::uint64_t v = need_u64(s, what);
  if (v > std::numeric_limits<std::uint32_t>::max())
    malformed(std::string(what) + " " + quote(s) + " is larger than 2^32 - 1");
  return static_cast<std::uint32_t>(v);
}

inline std::uint64_t need_fixed(std::string_view s, int digits, const char* what) {
  std::uint64_t v = 0;
  if (!to_fixed(s, digits, v))
    malformed(std::string(what) + " " + quote(s) + " is not a non-negative decimal number");
  return v;
}

// v * k, or an error naming the field if it does not fit in 64 bits.
inline std::uint64_t scaled(std::uint64_t v, std::uint64_t k, const char* what) {
  if (v > kU64Max / k) malformed(std::string(what) + " is too large (overflows 64 bits)");
  return v * k;
}

// Every parser reads a line's numbers before its op, so a line whose only
// fault is an unknown op has its format's shape (detection relies on it).

// ---- DiskSim and MQSim ASCII ------------------------------------------------

// Columns 1 to 3, the same in both: device, first sector, sector count.
inline void sector_columns(const std::string_view* t, ParsedIo& io, const char* first,
                           const char* count) {
  io.device = need_u32(t[1], "devno");
  io.offset = scaled(need_u64(t[2], first), kSector, first);
  io.bytes = scaled(need_u64(t[3], count), kSector, count);
}

// ---- blkparse ---------------------------------------------------------------

// "8,33" -> the kernel's dev_t layout, MAJ << 20 | MIN.
inline bool to_dev(std::string_view s, std::uint32_t& dev) {
  const std::size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  std::uint64_t major = 0, minor = 0;
  if (!to_u64(s.substr(0, comma), major) || !to_u64(s.substr(comma + 1), minor)) return false;
  if (major >= (1u << 12) || minor >= (1u << 20)) return false;
  dev = static_cast<std::uint32_t>(major << 20 | minor);
  return true;
}

}  // namespace ssdtwin::trace_lines
