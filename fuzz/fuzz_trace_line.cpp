// Every trace format's line parser (host/trace/trace_formats.h). The first byte
// picks the grammar, the rest is the trace text, fed to one parser line by
// line as the reader feeds it (lines split at "\n", a trailing "\r" dropped,
// blank lines skipped), so parser state across lines (headers, fio's files
// and clock, blkparse's summary block) is exercised too:
//
//   first byte % 8:  0 msr       1 blkparse (action D)  2 blkparse (action Q)
//                    3 fio (v2 or v3, by its header)    4 disksim
//                    5 mqsim     6 spc                  7 native
//
// A LineError is the parser's documented answer to a bad line. Beyond "no
// crash", what a parser returns for an IO line is checked: a known op, and
// a flush with no address or length.
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "host/trace/trace_formats.h"

using namespace ssdtwin;

namespace {

struct Grammar {
  TraceFormat format;
  char blkparse_action;
};

constexpr Grammar kGrammars[8] = {
    {TraceFormat::kMsr, 'D'}, {TraceFormat::kBlkparse, 'D'}, {TraceFormat::kBlkparse, 'Q'},
    {TraceFormat::kFio, 'D'}, {TraceFormat::kDiskSim, 'D'},  {TraceFormat::kMqsim, 'D'},
    {TraceFormat::kSpc, 'D'}, {TraceFormat::kNative, 'D'},
};

bool blank(std::string_view line) {
  for (const char c : line)
    if (c != ' ' && c != '\t') return false;
  return true;
}

void check(const ParsedIo& io) {
  switch (io.op) {
    case TraceOp::kRead:
    case TraceOp::kWrite:
    case TraceOp::kTrim:
      break;
    case TraceOp::kFlush:
      if (io.offset != 0 || io.bytes != 0) fuzz::finding("a flush with an address or length");
      break;
    default:
      fuzz::finding("an op outside TraceOp");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Grammar g = kGrammars[data[0] % 8];
  TraceReadOptions opt;
  opt.blkparse_action = g.blkparse_action;
  const auto parser = make_line_parser(g.format, opt);
  if (!parser) fuzz::finding("no parser for a TraceFormat");

  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (blank(line)) continue;
    ParsedIo io;
    try {
      if (parser->parse(line, io) == LineKind::kIo) check(io);
    } catch (const LineError&) {
    }
  }
  return 0;
}
