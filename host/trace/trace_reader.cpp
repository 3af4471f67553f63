#include "host/trace/trace_reader.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "host/trace/trace_formats.h"

namespace ssdtwin {

namespace {

bool blank(std::string_view line) {
  for (const char c : line)
    if (c != ' ' && c != '\t') return false;
  return true;
}

// One text trace: lines from TraceInput, their grammar from a LineParser,
// and what every format shares (checks, device selection, time base,
// ordering, bad lines) here.
class TextTraceReader final : public TraceReader {
 public:
  TextTraceReader(const std::string& path, TraceFormat format, const TraceReadOptions& opt)
      : input_(path), format_(format), opt_(opt), parser_(make_line_parser(format, opt)) {}

  bool next(TraceRecord& r) override {
    std::string_view line;
    ParsedIo io;
    while (input_.next_line(line)) {
      ++stats_.lines;
      if (blank(line)) continue;
      try {
        if (parser_->parse(line, io) == LineKind::kOther) {
          ++stats_.other_lines;
          continue;
        }
        check(io);
        check_time(io);
      } catch (LineError& e) {
        bad_line(e);
        continue;
      }
      if (opt_.device && io.device != *opt_.device) {
        ++stats_.other_device;
        auto& per_device = stats_.other_devices;
        if (per_device.size() < TraceStats::kDevicesCounted || per_device.count(io.device))
          ++per_device[io.device];
        continue;
      }
      r.time = relative_time(io.time);
      r.op = io.op;
      r.offset = io.offset;
      r.bytes = io.bytes;
      r.device = io.device;
      r.stream = io.stream;
      r.line = input_.line_number();
      const int op = static_cast<int>(io.op);
      ++stats_.records[op];
      stats_.bytes[op] += io.bytes;
      stats_.max_end = std::max(stats_.max_end, io.offset + io.bytes);
      return true;
    }
    return false;
  }

  const TraceStats& stats() const override { return stats_; }
  const std::string& source() const override { return input_.path(); }
  TraceFormat format() const override { return format_; }
  double progress() const override { return input_.progress(); }

 private:
  static void check(const ParsedIo& io) {
    if (io.op != TraceOp::kFlush && io.bytes == 0)
      throw LineError{BadLine::kZeroLength, std::string("zero-length ") + trace_op_name(io.op) +
                                                " at byte offset " + std::to_string(io.offset)};
    if (io.offset + io.bytes < io.offset)
      throw LineError{BadLine::kMalformed, "offset + length overflows 64 bits"};
  }

  // Against the first record's time (as relative_time counts), before the
  // record is taken: a bad line leaves the trace's span as it was.
  void check_time(const ParsedIo& io) const {
    if (!started_ || io.time <= base_ || io.time - base_ <= opt_.max_time) return;
    throw LineError{
        BadLine::kMalformed,
        "timestamp " + seconds_text(io.time - base_) +
            " after the trace's first record, past the " + seconds_text(opt_.max_time) +
            " (trace time) its replay can reach: a phase's time series holds so many "
            "workload.timeseries.interval rows, and trace.time_scale shortens the replay"};
  }
  static std::string seconds_text(Tick ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g s", to_seconds(ns));
    return buf;
  }

  void bad_line(LineError& e) {
    std::string msg = input_.path() + ":" + std::to_string(input_.line_number()) + ": " + e.what;
    if (!opt_.skip_bad_lines) throw TraceError(msg);
    if (stats_.bad_lines() == 0) stats_.first_bad = std::move(msg);
    ++stats_.bad[static_cast<int>(e.kind)];
  }

  // Nanoseconds from the first record; a record stamped before the latest
  // one so far keeps the trace's order at the latest time (see the header).
  Tick relative_time(Tick raw) {
    if (!started_) {
      started_ = true;
      base_ = latest_ = raw;
    }
    if (raw < latest_) {
      ++stats_.backsteps;
      stats_.max_backstep = std::max(stats_.max_backstep, latest_ - raw);
    } else {
      latest_ = raw;
    }
    stats_.last_time = latest_ - base_;
    return stats_.last_time;
  }

  TraceInput input_;
  TraceFormat format_;
  TraceReadOptions opt_;
  std::unique_ptr<LineParser> parser_;
  TraceStats stats_;
  bool started_ = false;
  Tick base_ = 0, latest_ = 0;
};

}  // namespace

const char* trace_op_name(TraceOp op) {
  switch (op) {
    case TraceOp::kRead:
      return "read";
    case TraceOp::kWrite:
      return "write";
    case TraceOp::kTrim:
      return "trim";
    case TraceOp::kFlush:
      return "flush";
  }
  return "?";
}

const char* bad_line_name(BadLine b) {
  switch (b) {
    case BadLine::kMalformed:
      return "malformed";
    case BadLine::kZeroLength:
      return "zero-length";
    case BadLine::kUnknownOp:
      return "unknown op";
  }
  return "?";
}

std::uint64_t TraceStats::total_records() const {
  std::uint64_t n = 0;
  for (const std::uint64_t r : records) n += r;
  return n;
}

std::uint64_t TraceStats::bad_lines() const {
  std::uint64_t n = 0;
  for (const std::uint64_t b : bad) n += b;
  return n;
}

TraceFormat detect_trace_format(const std::string& path, const TraceReadOptions& opt) {
  // Enough lines to get past a blkparse capture's first non-IO events or a
  // fio log's file actions, few enough to cost nothing.
  constexpr std::size_t kSampleLines = 64;
  std::vector<std::string> sample;
  {
    TraceInput in(path);
    std::string_view line;
    while (sample.size() < kSampleLines && in.next_line(line))
      if (!blank(line)) sample.emplace_back(line);
  }
  if (sample.empty())
    throw TraceError(path + ": the trace is empty, so its format cannot be detected");

  // The detected formats that read every sampled line; the others (never
  // guessed) that would.
  std::vector<TraceFormat> fits;
  bool undetected_fit = false;
  const auto& formats = trace_formats();
  for (std::size_t i = 0; i < formats.size(); ++i) {
    const TraceFormat f(static_cast<std::uint8_t>(i));
    const auto parser = make_line_parser(f, opt);
    ParsedIo io;
    bool ok = true;
    std::size_t parsed = 0;
    for (const std::string& line : sample) {
      try {
        parser->parse(line, io);
        ++parsed;
      } catch (const LineError& e) {
        // Parsers check an op after every number, so a line with only its
        // op unknown has this format's shape: it does not rule it out.
        if (e.kind == BadLine::kMalformed) {
          ok = false;
          break;
        }
      }
    }
    if (!ok || parsed == 0) continue;
    if (formats[i].detected) {
      fits.push_back(f);
    } else {
      undetected_fit = true;
    }
  }
  if (undetected_fit) {
    std::string layouts, names;
    for (const TraceFormatInfo& f : formats) {
      if (f.detected) continue;
      layouts += std::string(layouts.empty() ? "" : "; ") + f.name + ": " + f.columns;
      names += std::string(names.empty() ? "" : " or ") + f.name;
    }
    throw TraceError(path + ": the lines have the columns of formats that differ only in units (" +
                     layouts + "), which are never guessed; name the format: " + names);
  }
  std::string names;
  for (const TraceFormat f : fits)
    names += std::string(names.empty() ? "" : ", ") + trace_format_name(f);
  std::string all;
  for (const std::string& n : trace_format_names()) all += std::string(all.empty() ? "" : ", ") + n;
  if (fits.size() > 1)
    throw TraceError(path + ": the first lines fit several trace formats (" + names +
                     "); name the format");
  if (fits.empty()) {
    const std::string first = printable(std::string_view(sample.front()).substr(0, 60));
    throw TraceError(path + ": no trace format fits the first " + std::to_string(sample.size()) +
                     " lines (the first is '" + first + "'); name the format (" + all + ")");
  }
  return fits.front();
}

std::unique_ptr<TraceReader> open_trace(const std::string& path, std::optional<TraceFormat> format,
                                        const TraceReadOptions& opt) {
  if (opt.blkparse_action != 'D' && opt.blkparse_action != 'Q')
    throw TraceError(path + ": blkparse action must be D (issue) or Q (queue), got '" +
                     std::string(1, opt.blkparse_action) + "'");
  const TraceFormat f = format ? *format : detect_trace_format(path, opt);
  return std::make_unique<TextTraceReader>(path, f, opt);
}

TraceStats scan_trace(const std::string& path, std::optional<TraceFormat> format,
                      const TraceReadOptions& opt) {
  const auto reader = open_trace(path, format, opt);
  TraceRecord r;
  while (reader->next(r)) {
  }
  return reader->stats();
}

}  // namespace ssdtwin
