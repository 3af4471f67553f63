#include <array>
#include <memory>
#include <string_view>

#include "host/trace/formats/formats.h"
#include "host/trace/formats/line_fields.h"

namespace ssdtwin {

namespace {

using namespace trace_lines;

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

std::unique_ptr<LineParser> make_native_parser(const TraceReadOptions&) {
  return std::make_unique<NativeParser>();
}

}  // namespace ssdtwin
