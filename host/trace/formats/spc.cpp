#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_spc_parser(const TraceReadOptions&) {
  return std::make_unique<SpcParser>();
}

}  // namespace ssdtwin
