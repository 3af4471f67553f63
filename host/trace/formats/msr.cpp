#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_msr_parser(const TraceReadOptions&) {
  return std::make_unique<MsrParser>();
}

}  // namespace ssdtwin
