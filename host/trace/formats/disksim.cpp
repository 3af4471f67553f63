#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_disksim_parser(const TraceReadOptions&) {
  return std::make_unique<DiskSimParser>();
}

}  // namespace ssdtwin
