// Every trace format's line parser (host/trace/trace_formats.h). The first byte
// picks the grammar, the rest is the trace text, fed to one parser line by
// line as the reader feeds it (lines split at "\n", a trailing "\r" dropped,
// blank lines skipped), so parser state across lines (headers, fio's files
// and clock, blkparse's summary block) is exercised too:
//
//   first byte % grammars: the formats in table order (host/trace/
//   trace_formats.cpp), blkparse twice (action D, then Q): today 0 msr,
//   1 blkparse D, 2 blkparse Q, 3 fio, 4 disksim, 5 mqsim, 6 spc, 7 native
//
// A LineError is the parser's documented answer to a bad line. Beyond "no
// crash", what a parser returns for an IO line is checked: a known op, and
// a flush with no address or length.
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "host/trace/trace_formats.h"

using namespace ssdtwin;

namespace {

struct Grammar {
  TraceFormat format;
  char blkparse_action;
};

// Every format of the table, blkparse once per action it reads.
std::vector<Grammar> grammars() {
  std::vector<Grammar> out;
  for (std::size_t i = 0; i < trace_formats().size(); ++i) {
    const TraceFormat f(static_cast<std::uint8_t>(i));
    out.push_back({f, 'D'});
    if (std::string_view(trace_formats()[i].name) == "blkparse") out.push_back({f, 'Q'});
  }
  return out;
}

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
  static const std::vector<Grammar> kGrammars = grammars();
  const Grammar g = kGrammars[data[0] % kGrammars.size()];
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
