// Trace parse speed: lines per second for each format, and for gzip, zstd
// and xz input, on generated multi-million-line traces.
//
//   build/bench/bench_trace_parse [LINES] [DIR]     default: 2000000 lines, $TMPDIR
//
// Each trace is written to DIR (so it is in the page cache: this measures
// parsing, not the disk), read once through open_trace() counting records,
// then deleted. The table gives lines/s over every line of the file (a
// blkparse capture's Q and C lines and a fio log's waits are lines to read
// too) and the text MB/s. "lines only" is TraceInput alone (the line
// splitting floor under every parser).
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "host/trace/trace_input.h"
#include "host/trace/trace_reader.h"
#include "sim/rng.h"

namespace {

using namespace ssdtwin;

// One generated line per call (the IO number `i`, a 4 KiB-page address and
// a time in ns), appended to `out`.
using LineMaker = std::function<void(std::string& out, std::uint64_t i, std::uint64_t page,
                                     std::uint64_t ns, bool read)>;

void append(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  out.append(buf, static_cast<std::size_t>(n));
}

struct Case {
  const char* name;
  TraceFormat format;
  const char* header;
  LineMaker line;
  int lines_per_io = 1;
  // Also read compressed like this (the same text, so the rows compare).
  std::vector<Compression> packed = {};
};

std::vector<Case> cases() {
  const LineMaker native = [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns,
                              bool rd) {
    append(o, "%" PRIu64 ",%s,%" PRIu64 ",4096\n", ns, rd ? "read" : "write", p * 4096);
  };
  std::vector<Case> v = {
      {"msr", trace_format("msr"), "",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns, bool rd) {
         append(o, "%" PRIu64 ",hm,%d,%s,%" PRIu64 ",4096,%d\n", 128166372000000000 + ns / 100,
                static_cast<int>(p & 1), rd ? "Read" : "Write", p * 4096, 1234);
       }},
      {"blkparse (Q D C)", trace_format("blkparse"), "",
       [](std::string& o, std::uint64_t i, std::uint64_t p, std::uint64_t ns, bool rd) {
         const char* rwbs = rd ? "R" : "WS";
         const std::uint64_t s = ns / 1000000000, f = ns % 1000000000;
         for (const char* a : {"Q", "D", "C"})
           append(o,
                  "  8,16  %2d %8" PRIu64 " %5" PRIu64 ".%09" PRIu64 "  4242  %s %3s %" PRIu64
                  " + 8 [fio]\n",
                  static_cast<int>(i % 4), i, s, f, a, rwbs, p * 8);
       },
       3},
      {"fio v2", trace_format("fio"), "fio version 2 iolog\n/dev/nvme0n1 add\n/dev/nvme0n1 open\n",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t, bool rd) {
         append(o, "/dev/nvme0n1 %s %" PRIu64 " 4096\n", rd ? "read" : "write", p * 4096);
       }},
      {"fio v3", trace_format("fio"),
       "fio version 3 iolog\n0 /dev/nvme0n1 add\n0 /dev/nvme0n1 open\n",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns, bool rd) {
         append(o, "%" PRIu64 " /dev/nvme0n1 %s %" PRIu64 " 4096\n", ns / 1000,
                rd ? "read" : "write", p * 4096);
       }},
      {"disksim", trace_format("disksim"), "",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns, bool rd) {
         append(o, "%.6f 0 %" PRIu64 " 8 %x\n", static_cast<double>(ns) / 1e6, p * 8, rd ? 1u : 0u);
       }},
      {"mqsim", trace_format("mqsim"), "",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns, bool rd) {
         append(o, "%" PRIu64 " 0 %" PRIu64 " 8 %d\n", ns, p * 8, rd ? 1 : 0);
       }},
      {"spc", trace_format("spc"), "",
       [](std::string& o, std::uint64_t, std::uint64_t p, std::uint64_t ns, bool rd) {
         append(o, "0,%" PRIu64 ",4096,%c,%.6f\n", p * 8, rd ? 'r' : 'w',
                static_cast<double>(ns) / 1e9);
       }},
      {"native",
       trace_format("native"),
       "time_ns,op,offset_bytes,length_bytes\n",
       native,
       1,
       {Compression::kGzip, Compression::kZstd, Compression::kXz}},
  };
  return v;
}

std::string generate(const Case& c, std::uint64_t lines) {
  std::string text = c.header;
  text.reserve(lines * 64);
  Rng rng(42);
  std::uint64_t ns = 0;
  const std::uint64_t ios = lines / static_cast<std::uint64_t>(c.lines_per_io);
  for (std::uint64_t i = 0; i < ios; ++i) {
    ns += 1 + rng.below(400000);
    c.line(text, i, rng.below(std::uint64_t{1} << 26), ns, rng.uniform() < 0.6);
  }
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t lines = argc > 1 ? std::stoull(argv[1]) : 2000000;
  const std::string dir =
      (argc > 2 ? std::filesystem::path(argv[2]) : std::filesystem::temp_directory_path()) /
      ("ssdtwin_bench_trace_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%-18s %10s %9s %9s %8s %12s %9s\n", "format", "lines", "records", "file MB",
              "seconds", "lines/s", "text MB/s");
  int status = 0;
  const std::string path = dir + "/trace";
  // Reads `path` as `format` and prints its row; false on a TraceError.
  auto measure = [&](const std::string& name, TraceFormat format, std::size_t text_bytes) {
    const double file_mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    try {
      const auto t0 = std::chrono::steady_clock::now();
      const auto reader = open_trace(path, format);
      TraceRecord r;
      std::uint64_t records = 0;
      while (reader->next(r)) ++records;
      const double s = seconds_since(t0);
      const std::uint64_t n = reader->stats().lines;
      std::printf("%-18s %10" PRIu64 " %9" PRIu64 " %9.1f %8.3f %12.0f %9.0f\n", name.c_str(), n,
                  records, file_mb, s, static_cast<double>(n) / s,
                  static_cast<double>(text_bytes) / 1e6 / s);
      return true;
    } catch (const TraceError& e) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
      return false;
    }
  };
  for (const Case& c : cases()) {
    const std::string text = generate(c, lines);
    write_trace_file(path, text, Compression::kNone);
    if (c.format == trace_format("native")) {
      // The floor: lines split from the buffer, nothing parsed.
      const auto t0 = std::chrono::steady_clock::now();
      TraceInput in(path);
      std::string_view line;
      std::uint64_t n = 0;
      while (in.next_line(line)) ++n;
      const double s = seconds_since(t0);
      std::printf("%-18s %10" PRIu64 " %9s %9.1f %8.3f %12.0f %9.0f\n", "lines only", n, "-",
                  static_cast<double>(text.size()) / 1e6, s, static_cast<double>(n) / s,
                  static_cast<double>(text.size()) / 1e6 / s);
    }
    if (!measure(c.name, c.format, text.size())) status = 1;
    for (const Compression z : c.packed) {
      write_trace_file(path, text, z);
      if (!measure(std::string(c.name) + " ." + compression_name(z), c.format, text.size()))
        status = 1;
    }
    std::filesystem::remove(path);
  }
  std::filesystem::remove_all(dir);
  return status;
}
