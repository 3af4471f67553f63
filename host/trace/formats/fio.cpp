#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_fio_parser(const TraceReadOptions&) {
  return std::make_unique<FioParser>();
}

}  // namespace ssdtwin
