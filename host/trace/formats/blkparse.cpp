#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_blkparse_parser(const TraceReadOptions& opt) {
  return std::make_unique<BlkparseParser>(opt.blkparse_action);
}

}  // namespace ssdtwin
