#include "host/workload.h"

#include "nand/geometry.h"
#include "sim/config.h"

namespace ssdtwin {

const char* rw_kind_name(RwKind k) {
  switch (k) {
    case RwKind::kRead: return "read";
    case RwKind::kWrite: return "write";
    case RwKind::kRandRead: return "randread";
    case RwKind::kRandWrite: return "randwrite";
    case RwKind::kRandRw: return "randrw";
    case RwKind::kTrim: return "trim";
  }
  return "?";
}

namespace {

RwKind parse_rw(const std::string& s) {
  if (s == "read") return RwKind::kRead;
  if (s == "write") return RwKind::kWrite;
  if (s == "randread") return RwKind::kRandRead;
  if (s == "randwrite") return RwKind::kRandWrite;
  if (s == "randrw") return RwKind::kRandRw;
  return RwKind::kTrim;
}

std::string human_bytes(std::uint64_t b) { return std::to_string(b) + " bytes"; }

PhaseSpec read_phase(const ConfigNode& n, std::size_t index, std::uint64_t user_bytes) {
  PhaseSpec p;
  p.name = n.get_string("name", "phase" + std::to_string(index));
  p.precondition = n.get_bool("precondition", false);
  p.rw = parse_rw(n.get_enum("rw", {"read", "write", "randread", "randwrite", "randrw", "trim"}));
  p.bs = static_cast<std::uint32_t>(n.get_bytes("bs", 4096));
  if (p.bs == 0 || p.bs % kSectorBytes != 0 || p.bs > (256u << 20))
    n.fail("bs", "expected a multiple of 4KiB up to 256MiB");
  p.iodepth = static_cast<std::uint32_t>(n.get_int("iodepth", 1, 1, 65536));
  const Amount offset = n.get_amount("offset", Amount{});
  p.offset = offset.resolve(user_bytes);
  // A share of the drive rounds down to whole logical pages; bytes must be exact.
  if (offset.is_percent) p.offset -= p.offset % kSectorBytes;
  if (p.offset % kSectorBytes != 0) n.fail("offset", "expected a multiple of 4KiB");
  if (p.offset >= user_bytes)
    n.fail("offset", "expected less than the drive's user capacity (" + human_bytes(user_bytes) + ")");
  Amount all;
  all.is_percent = true;
  all.percent = 100;
  const Amount size = n.get_amount("size", all);
  p.span = size.resolve(user_bytes);
  if (p.span == 0) p.span = user_bytes - p.offset;
  if (p.offset + p.span > user_bytes) {
    // A share ("100%") from an offset means "to the end"; bytes must fit.
    if (!size.is_percent)
      n.fail("size", "expected offset + size within the user capacity (" +
                         human_bytes(user_bytes) + ")");
    p.span = user_bytes - p.offset;
  }
  p.span -= p.span % kSectorBytes;
  if (p.span < p.bs) n.fail("size", "expected a range of at least one block (bs)");
  p.read_share = n.get_double("rwmixread", 50, 0, 100) / 100.0;
  if (n.has("io_size")) {
    const Amount a = n.get_amount("io_size");
    p.io_bytes = a.is_percent ? static_cast<std::uint64_t>(static_cast<double>(p.span) * a.percent / 100.0)
                              : a.bytes;
    if (p.io_bytes == 0) n.fail("io_size", "expected more than 0");
  }
  p.ios = static_cast<std::uint64_t>(n.get_int("number_ios", 0, 0, INT64_MAX));
  p.runtime = n.get_time("runtime", 0);
  p.idle_after = n.get_time("idle_after", 0);
  p.ramp_time = n.get_time("ramp_time", 0);
  const std::string report =
      n.get_enum("report", {"none", "fill_curve", "working_set", "consistency"}, "none");
  if (report == "fill_curve") p.report = PhaseReportKind::kFillCurve;
  if (report == "working_set") p.report = PhaseReportKind::kWorkingSet;
  if (report == "consistency") {
    p.report = PhaseReportKind::kConsistency;
    p.score_last = n.get_time("score_last", p.score_last);
    if (p.score_last == 0) n.fail("score_last", "expected a time above 0");
  }
  if (p.io_bytes == 0 && p.ios == 0 && p.runtime == 0)
    n.fail("rw", "expected a stop condition: io_size, number_ios or runtime");
  return p;
}

}  // namespace

WorkloadSpec WorkloadSpec::from_config(const ConfigNode& root, std::uint64_t user_bytes) {
  WorkloadSpec w;
  w.name = root.get_string("name", "workload");
  w.seed = static_cast<std::uint64_t>(root.get_int("seed", 1, 0, INT64_MAX));
  const ConfigNode ts = root.child("timeseries");
  w.interval = ts.get_time("interval", kSec);
  if (w.interval == 0) ts.fail("interval", "expected a time above 0");
  w.per_bytes = ts.get_bytes("per_bytes", 0);
  const auto phases = root.children("phases");
  if (phases.empty()) root.fail("phases", "expected at least one phase");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    w.phases.push_back(read_phase(phases[i], i, user_bytes));
    if (w.phases.back().report == PhaseReportKind::kFillCurve && w.per_bytes == 0)
      phases[i].fail("report", "a fill curve needs workload.timeseries.per_bytes (e.g. 1GB)");
  }
  return w;
}

}  // namespace ssdtwin
