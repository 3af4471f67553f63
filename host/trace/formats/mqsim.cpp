#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

}  // namespace

std::unique_ptr<LineParser> make_mqsim_parser(const TraceReadOptions&) {
  return std::make_unique<MqsimParser>();
}

}  // namespace ssdtwin
