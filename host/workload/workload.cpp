#include "host/workload/workload.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "host/workload/axes.h"
#include "nand/geometry.h"
#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

const char* rw_kind_name(RwKind k) {
  switch (k) {
    case RwKind::kRead:
      return "read";
    case RwKind::kWrite:
      return "write";
    case RwKind::kRandRead:
      return "randread";
    case RwKind::kRandWrite:
      return "randwrite";
    case RwKind::kRandRw:
      return "randrw";
    case RwKind::kTrim:
      return "trim";
    case RwKind::kTrace:
      return "trace";
    case RwKind::kReadWrite:
      return "readwrite";
    case RwKind::kRandTrim:
      return "randtrim";
    case RwKind::kTrimWrite:
      return "trimwrite";
    case RwKind::kZoneReset:
      return "zone_reset";
    case RwKind::kZoneLog:
      return "zone_log";
  }
  return "?";
}

const char* recovery_role_name(RecoveryRole r) {
  switch (r) {
    case RecoveryRole::kNone:
      return "none";
    case RecoveryRole::kFob:
      return "fob";
    case RecoveryRole::kDegrade:
      return "degrade";
    case RecoveryRole::kSteady:
      return "steady";
    case RecoveryRole::kRecovered:
      return "recovered";
  }
  return "?";
}

std::vector<std::string> split_at(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const std::size_t b = s.find(sep, a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return out;
    a = b + 1;
  }
}

RandomDistribution parse_random_distribution(
    const std::string& text,
    const std::function<std::optional<std::uint64_t>(const std::string&)>& size_of) {
  RandomDistribution d;
  const std::size_t colon = text.find(':');
  std::string kind = text.substr(0, colon);
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (arg.find(',') != std::string::npos)
    fail("per-direction distributions (',') are not supported: give one for all directions");
  auto number = [&](double def) {
    if (arg.empty()) return def;
    char* end = nullptr;
    const double x = std::strtod(arg.c_str(), &end);
    if (*end != '\0') fail("expected " + kind + ":<number> (a center ':c' is not supported)");
    return x;
  };
  if (kind == "random") return d;
  if (kind == "zipf") {
    d.kind = RandomDist::kZipf;
    d.param = number(1.1);  // fio's default theta (FIO_DEF_ZIPF)
    if (!(d.param > 0) || d.param == 1.0) fail("expected a zipf theta above 0 and not 1.0");
  } else if (kind == "pareto") {
    d.kind = RandomDist::kPareto;
    d.param = number(0.2);  // fio's default h (FIO_DEF_PARETO)
    if (!(d.param > 0 && d.param < 1)) fail("expected a pareto h between 0 and 1");
  } else if (kind == "normal" || kind == "gauss") {
    d.kind = RandomDist::kNormal;
    // fio's normal with no deviation is the mean of 12 uniform draws over
    // the range: a standard deviation of 1/12 of it.
    d.param = number(100.0 / 12.0);
    if (!(d.param > 0 && d.param <= 100))
      fail("expected a deviation from 0 to 100 (% of the range)");
  } else if (kind == "zoned" || kind == "zoned_abs") {
    d.kind = RandomDist::kZoned;
    const bool abs = kind == "zoned_abs";
    double share = 0, range = 0;
    for (const std::string& z : split_at(arg, ':')) {
      const auto parts = split_at(z, '/');
      if (parts.size() != 2 || parts[0].empty())
        fail(std::string("expected zones as access%/range") + (abs ? "size" : "%") +
             ":... such as 50/5:30/15:20/");
      AccessZone az;
      char* end = nullptr;
      az.share = std::strtod(parts[0].c_str(), &end) / 100.0;
      if (*end != '\0' || az.share < 0) fail("expected an access percentage in '" + z + "'");
      if (abs) {
        const auto b = parts[1].empty() ? std::nullopt : size_of(parts[1]);
        if (!b || *b == 0) fail("zoned_abs: expected a size above 0 in every zone ('" + z + "')");
        az.bytes = *b;
      } else {
        // An empty range is the rest of it (fio's "20/").
        az.range_share =
            parts[1].empty() ? 1.0 - range : std::strtod(parts[1].c_str(), &end) / 100.0;
        if (!parts[1].empty() && *end != '\0') fail("expected a range percentage in '" + z + "'");
        if (az.range_share <= 0) fail("expected zones with a range above 0%");
      }
      share += az.share;
      range += az.range_share;
      d.zones.push_back(az);
    }
    if (std::fabs(share - 1.0) > 1e-6) fail("expected access percentages adding up to 100");
    if (!abs && range > 1.0 + 1e-6) fail("expected range percentages adding up to at most 100");
  } else {
    fail("expected random, zipf[:theta], pareto[:h], normal[:dev], zoned:... or zoned_abs:...");
  }
  return d;
}

namespace {

RwKind parse_rw(const std::string& s) {
  if (s == "read") return RwKind::kRead;
  if (s == "write") return RwKind::kWrite;
  if (s == "randread") return RwKind::kRandRead;
  if (s == "randwrite") return RwKind::kRandWrite;
  if (s == "randrw") return RwKind::kRandRw;
  if (s == "trace") return RwKind::kTrace;
  if (s == "readwrite") return RwKind::kReadWrite;
  if (s == "randtrim") return RwKind::kRandTrim;
  if (s == "trimwrite") return RwKind::kTrimWrite;
  if (s == "zone_reset") return RwKind::kZoneReset;
  if (s == "zone_log") return RwKind::kZoneLog;
  return RwKind::kTrim;
}

std::string human_bytes(std::uint64_t b) { return std::to_string(b) + " bytes"; }

// Report kinds by their workload-file names, in the order of PhaseReportKind.
const std::vector<std::string> kReportNames = {
    "none",     "fill_curve", "working_set", "consistency", "latency",
    "qd_sweep", "bandwidth",  "size_sweep",  "load_curve",  "noisy_neighbor"};

// A transfer size as a phase-name suffix: 512KiB, 1MiB, 12KiB.
std::string size_label(std::uint64_t b) {
  if (b % (1u << 20) == 0) return std::to_string(b >> 20) + "MiB";
  return std::to_string(b >> 10) + "KiB";
}

const std::vector<std::string> kRoleNames = {"fob", "degrade", "steady", "recovered"};

template <typename Enum>
Enum enum_of(const std::vector<std::string>& names, const std::string& name,
             std::size_t first = 0) {
  const auto i = std::find(names.begin(), names.end(), name) - names.begin();
  return static_cast<Enum>(first + static_cast<std::size_t>(i));
}

std::vector<std::string> report_names() { return kReportNames; }
std::vector<std::string> role_names() { return kRoleNames; }
std::vector<std::string> priority_names() { return sq_priority_names(); }

const ParamSection& workload_section() {
  static const ParamSection kSection{
      "workload",
      "A workload: fio-like jobs run as phases in sequence on the same drive state "
      "(docs/WORKLOADS.md), with the results' time series, and faults to inject.",
      {
          param::text("name", "workload", "the workload's name in the results"),
          param::integer("seed", "1", 0, INT64_MAX, "",
                         "seed of the workload's random streams: the same config and seed give "
                         "identical results"),
          param::map("timeseries", "the intervals of the results' time series"),
          param::time_list("latency_thresholds",
                           "(20us, 50us, 100us, 200us, 500us, 1ms, 5ms, 10ms, 50ms, 100ms)",
                           "latency bounds, in rising order, whose share of IOs summary.json "
                           "reports per phase and op (share_under)"),
          param::time("watchdog", "3600s",
                      "a bug trap: commands in the drive this long in simulated time with none "
                      "completing end the run (exit 1, results written, the drive's state "
                      "named); 0: off"),
          param::map("power_management",
                     "the host's power settings for a drive with a power model (drive.power)"),
          param::map("faults", "power cuts and injected read, block and die failures"),
          param::maps("phases", "the phases, run in sequence on the same drive state"),
      }};
  return kSection;
}

const ParamSection& timeseries_section() {
  static const ParamSection kSection{
      "workload.timeseries",
      "The results' time series: per interval of simulated time (timeseries.csv), and "
      "optionally per amount of data written (timeseries_by_bytes.csv).",
      {
          param::time("interval", "1s",
                      "the interval of timeseries.csv and of the per-interval reports (above 0)"),
          param::bytes("per_bytes", "0",
                       "also sample after every this much data written "
                       "(timeseries_by_bytes.csv; report: fill_curve needs it); 0: off"),
      }};
  return kSection;
}

const ParamSection& power_management_section() {
  static const ParamSection kSection{
      "workload.power_management",
      "What the host sets on a drive with a power model (docs/FAULTS_AND_POWER.md), by the "
      "drive's state names, checked when the run starts.",
      {
          param::text("state", "(the drive's first state)",
                      "the operational power state to run in (Set Features), whose budget caps "
                      "the dies working at once"),
          param::flag("device_initiated", "true",
                      "SATA DIPM: the drive may enter its idle states by itself"),
          param::maps("idle_states",
                      "NVMe APST or SATA HIPM/DevSleep timeouts: [{state: PS3, idle: 100ms}, "
                      "{state: PS4, idle: 2000ms}]"),
      }};
  return kSection;
}

const ParamSection& idle_state_section() {
  static const ParamSection kSection{
      "workload.power_management.idle_states[]",
      "One idle-state timeout.",
      {
          param::text("state", nullptr, "the drive's power state the host moves it to"),
          param::time("idle", nullptr,
                      "how long the drive idles in the state before this one until the host "
                      "moves it here"),
      }};
  return kSection;
}

const ParamSection& faults_section() {
  static const ParamSection kSection{
      "workload.faults",
      "Faults injected during the run (docs/FAULTS_AND_POWER.md): power cuts, and reads, "
      "blocks and dies that fail. Times count powered running from the start of the run.",
      {
          param::time_list("power_cuts", "(none)",
                           "simulated times at which power fails, above 0 and rising (each "
                           "recovery pushes the later cuts back by its time)"),
          param::int_list("power_cuts_after_ios", "(none)", 1, INT64_MAX, "IOs",
                          "or: host IOs completed since the start of the run at which power "
                          "fails, rising"),
          param::map("uncorrectable", "flash reads that fail every decode"),
          param::maps("fail_block",
                      "blocks that stop working: their data is lost, reads of it fail until "
                      "rewritten, and they are emptied and retired"),
          param::maps("fail_die", "dies that stop: what they held is lost, writes go elsewhere"),
      }};
  return kSection;
}

// A failing block's and a failing die's keys.
std::vector<Param> fault_params(bool block) {
  std::vector<Param> out = {
      param::time("at", nullptr, "powered time at which it fails"),
      param::integer("die", nullptr, 0, 1 << 20, "", "the die, from 0"),
  };
  if (block)
    out.push_back(param::integer("block", nullptr, 0, 1 << 24, "", "the block in the die"));
  return out;
}

const ParamSection& fail_block_section() {
  static const ParamSection kSection{"workload.faults.fail_block[]",
                                     "A block that fails, checked against the drive's geometry "
                                     "when the run starts.",
                                     fault_params(true)};
  return kSection;
}

const ParamSection& fail_die_section() {
  static const ParamSection kSection{"workload.faults.fail_die[]", "A die that fails.",
                                     fault_params(false)};
  return kSection;
}

const ParamSection& uncorrectable_section() {
  static const ParamSection kSection{
      "workload.faults.uncorrectable",
      "Flash reads that fail every decode, at a rate and at chosen offsets.",
      {
          param::real("rate", "0", 0, 1, "", "share of all flash reads that fail"),
          param::bytes_list("at", "(none)",
                            "byte offsets inside the user capacity whose next flash read fails "
                            "(once)"),
      }};
  return kSection;
}

const ParamSection& phase_section() {
  static const ParamSection kSection{
      "workload.phases[]",
      "A phase: an fio-like job (or concurrent jobs) run until its stop condition, then the "
      "next. A job of `jobs` takes the same keys.",
      {
          param::text("name", "(phaseN, N its place in the list from 0)",
                      "the phase's name in the results, unique in the workload"),
          param::choice("rw", nullptr,
                        "read|write|randread|randwrite|randrw|trim|trace|zone_reset|zone_log",
                        "the IO pattern; randrw mixes reads and writes by rwmixread, trace "
                        "replays a block trace, zone_reset resets each zone of the range, "
                        "zone_log runs a log-structured store on zones"),
          param::integer("namespace", "1", 1, 1024, "",
                         "the NVMe namespace addressed, one the drive declares (offsets and % "
                         "sizes are within it)"),
          param::bytes_list("bs", "4KiB",
                            "transfer size, a multiple of 4KiB up to 256MiB; a list is a "
                            "transfer-size sweep: one phase per size, named <name>_<size>"),
          param::maps("bssplit",
                      "mixed transfer sizes instead of bs, as fio's: [{bs: 4KiB, weight: 25}, "
                      "{bs: 1MiB, weight: 75}]; random IOs are aligned to their size"),
          param::int_list("iodepth", "1", 1, 65536, "commands",
                          "outstanding commands (beyond what the device holds they wait on the "
                          "host); a list is a queue-depth sweep: one phase per depth, named "
                          "<name>_qd<N>"),
          param::amount("offset", "0",
                        "start of the LBA range: a multiple of 4KiB, or % of the user capacity "
                        "(rounded down to 4KiB)"),
          param::amount("size", "100%",
                        "length of the LBA range from offset: bytes, or % of the user capacity "
                        "(a share from an offset stops at the end of the capacity); not 0"),
          param::real("rwmixread", "50", 0, 100, "%", "randrw: the share of reads"),
          param::text("random_distribution", "random",
                      "fio's: random, zipf[:theta], pareto[:h], normal[:dev], zoned:a/r:... or "
                      "zoned_abs:a/size:... (docs/FIO.md)"),
          param::flag("random_map", "false",
                      "fio's random map: each block of the range once per pass before any "
                      "repeats (not with a skewed random_distribution)"),
          param::bytes("blockalign", "0",
                       "random offsets on this grid, a multiple of 4KiB up to 256MiB; 0: each "
                       "IO's own size"),
          param::time("thinktime", "0",
                      "after every thinktime_blocks IOs the stream waits for its commands to "
                      "complete, then pauses this long"),
          param::integer("thinktime_blocks", "1", 1, 1 << 30, "IOs", "IOs between think times"),
          param::integer("numjobs", "1", 1, 4096, "streams",
                         "clones of the phase run at once, each its own random stream and "
                         "offset (offset_increment) and results"),
          param::bytes("offset_increment", "0",
                       "clone k's offset is offset + k x this: a multiple of 4KiB"),
          param::amount("io_size", "(no limit)",
                        "stop condition: bytes moved, or % of the range (fio's io_size)"),
          param::integer("number_ios", "0", 0, INT64_MAX, "IOs",
                         "stop condition: IOs issued; 0: no limit"),
          param::time("runtime", "0",
                      "stop condition: simulated time; 0: no limit. A phase needs io_size, "
                      "number_ios or runtime; whichever comes first ends it"),
          param::time("idle_after", "0",
                      "idle time after the phase, in which background work runs"),
          param::time("ramp_time", "0", "run this long before measuring, as in fio"),
          param::flag("precondition", "false",
                      "a preconditioning phase, whose results are kept apart (the leading ones "
                      "are what a snapshot saves)"),
          param::choice("fast", "false", "false|true|exact|steady",
                        "fast preconditioning of a write, randwrite or trim phase: true or exact "
                        "applies its IOs to the FTL's state with no NAND timing or simulated "
                        "time; steady reaches the 4KiB random-write steady state of a full drive "
                        "from block counts"),
          param::choice("report", "none", &report_names,
                        "a review-style analysis of the phase (docs/WORKLOADS.md); a jobs phase "
                        "takes none or noisy_neighbor"),
          param::time("score_last", "400s",
                      "report: consistency: the score is taken over this last part of the "
                      "phase"),
          param::map("until_steady",
                     "stop the phase once the IOPS of its last rounds meet the SNIA "
                     "steady-state rule"),
          param::map("rate", "open-loop arrivals at a rate, whatever the device does"),
          param::map("load_curve",
                     "a load curve: the phase at its maximum (<name>_max), then one open-loop "
                     "phase per step offered a share of that maximum (<name>_<N>pct)"),
          param::choice("role", "(none)", &role_names,
                        "ties phases into the degrade-and-recover comparison: steady and "
                        "recovered are scored against the fob phase of the same iodepth"),
          param::flag("fua", "false",
                      "every write has Force Unit Access: it completes once its data is "
                      "programmed"),
          param::integer("flush_every", "0", 0, 1 << 30, "writes",
                         "after every N writes the stream issues a Flush and nothing more until "
                         "it completes; 0: never (not with rate or load_curve)"),
          param::flag("end_flush", "false",
                      "one more Flush when the stream ends (fio's end_fsync)"),
          param::choice("priority", "medium", &priority_names,
                        "the class of the stream's NVMe submission queue, for "
                        "weighted_round_robin arbitration"),
          param::int_list("placement", "0", 0, 65535, "",
                          "FDP placement identifier of the writes, or a list of them taken in "
                          "turn (placement_select)"),
          param::choice("placement_select", "roundrobin", "roundrobin|random",
                        "how a list of placement identifiers is taken: round robin or at random"),
          param::map("zoned",
                     "writes to a zoned namespace at the zones' write pointers (rw: write, "
                     "randwrite, zone_reset or zone_log)"),
          param::map("trace", "rw: trace: the block trace to replay"),
          param::flag("allow_empty", "false",
                      "rw: trace: a replay that issues nothing is not an error"),
          param::maps("jobs",
                      "jobs run at once as tenants, each with its own results and submission "
                      "queue (job k: queue k modulo host.nvme.queues); each takes this "
                      "section's keys as one timed synthetic stream (no trace, fast, numjobs, "
                      "sweep, load curve, report, role or until_steady)"),
      }};
  return kSection;
}

const ParamSection& bssplit_section() {
  static const ParamSection kSection{
      "workload.phases[].bssplit[]",
      "One transfer size of a mix.",
      {
          param::bytes("bs", nullptr, "transfer size, a multiple of 4KiB up to 256MiB"),
          param::real("weight", nullptr, 1e-9, 1e9, "", "relative share of IOs of this size"),
      }};
  return kSection;
}

const ParamSection& until_steady_section() {
  static const ParamSection kSection{
      "workload.phases[].until_steady",
      "The SNIA steady-state rule: the phase stops as soon as its last rounds' IOPS are each "
      "within tolerance of their mean, and the least-squares line's change across them too; "
      "runtime and the other stop conditions remain upper bounds.",
      {
          param::time("round", nullptr, "one round, whose IOPS is one sample (above 0)"),
          param::integer("rounds", "5", 2, 100000, "rounds",
                         "rounds in the window (SNIA PTS: 5); round x rounds within the phase's "
                         "runtime"),
          param::amount("tolerance", "10%",
                        "how far from the window's mean a round and the line may be: a "
                        "percentage above 0% and below 100%"),
          param::time("after", "0",
                      "no window ending earlier is tested (the writes a methodology "
                      "prescribes)"),
          param::flag("while_gc", "false",
                      "count a window only if GC moved data in each of its rounds"),
      }};
  return kSection;
}

Param arrival_param() {
  return param::choice("arrival", "poisson", "poisson|uniform",
                       "the arrival process: Poisson, or evenly spaced");
}

const ParamSection& rate_section() {
  static const ParamSection kSection{
      "workload.phases[].rate",
      "Open-loop arrivals (needs runtime): at most iodepth commands are in the device and the "
      "rest wait on the host, their wait reported apart from device latency.",
      {
          param::real("iops", nullptr, 1e-3, 1e9, "IOs per second", "the offered rate"),
          arrival_param(),
      }};
  return kSection;
}

const ParamSection& load_curve_section() {
  static const ParamSection kSection{
      "workload.phases[].load_curve",
      "A load curve (StorageReview's vdBench curves): the phase closed-loop at its iodepth, "
      "then one open-loop phase per step (needs runtime).",
      {
          param::int_list("steps", "(10, 20, ..., 120)", 1, 1000, "%",
                          "offered loads, rising percentages of the IOPS the <name>_max phase "
                          "achieved"),
          arrival_param(),
      }};
  return kSection;
}

const ParamSection& zoned_section() {
  static const ParamSection kSection{
      "workload.phases[].zoned",
      "Zoned-namespace writes (host/workload/zone_writer.h), on a drive with ftl.kind: zoned.",
      {
          param::integer("open_zones", "1", 1, 65536, "zones",
                         "zones written at once: round robin (write), a random one "
                         "(randwrite), or zone_log's head zones"),
          param::flag("append", "false",
                      "write and randwrite: each write a Zone Append (the drive picks the LBA)"),
          param::amount("logical", nullptr,
                        "zone_log: the store's data set, bytes or % of the range"),
          param::integer("gc_free_zones", "2", 1, 1024, "zones",
                         "zone_log: host GC collects when fewer zones are free"),
      }};
  return kSection;
}

void read_until_steady(const Params& n, PhaseSpec& p) {
  const Params u = n.child("until_steady", until_steady_section());
  UntilSteady& s = p.until_steady;
  s.round = u.time("round");
  if (s.round == 0) u.fail("round", "expected a time above 0");
  // The SNIA PTS window is 5 rounds; a line needs at least 2.
  s.rounds = static_cast<std::uint32_t>(u.integer("rounds"));
  const Amount tol = u.amount("tolerance");
  if (!tol.is_percent || !(tol.percent > 0 && tol.percent < 100))
    u.fail("tolerance", "expected a percentage above 0% and below 100%, such as 10%");
  s.tolerance = s.slope_tolerance = tol.percent / 100;
  if (p.runtime != 0 && s.round * s.rounds > p.runtime)
    u.fail("rounds", "expected round x rounds within the phase's runtime (" +
                         std::to_string(to_seconds(p.runtime)) +
                         " s): a steady window needs that many whole rounds");
  s.after = u.time("after");
  if (p.runtime != 0 && s.after > p.runtime)
    u.fail("after", "expected a time within the phase's runtime (" +
                        std::to_string(to_seconds(p.runtime)) + " s): no window could be tested");
  s.while_gc = u.flag("while_gc");
}

// Host durability operations (NVMe Flush and FUA, SATA FLUSH CACHE and
// FUA writes): PhaseSpec::fua, flush_every, end_flush.
void read_durability(const Params& n, PhaseSpec& p) {
  p.fua = n.flag("fua");
  p.flush_every = static_cast<std::uint32_t>(n.integer("flush_every"));
  p.end_flush = n.flag("end_flush");
  if (!p.fua && p.flush_every == 0 && !p.end_flush) return;
  const char* key = p.fua ? "fua" : p.flush_every ? "flush_every" : "end_flush";
  if (p.fast) n.fail(key, "a fast phase takes no simulated time: no flush or FUA write");
  if (p.flush_every != 0 && (n.has("rate") || n.has("load_curve")))
    n.fail("flush_every",
           "expected no flush_every with open-loop arrivals (rate, load_curve): the host issues "
           "each arrival as it comes, with no wait for a flush");
}

Arrival read_arrival(const Params& n) {
  return n.choice("arrival") == "poisson" ? Arrival::kPoisson : Arrival::kUniform;
}

// `zoned:` (zone_writer.h). The zone layout is the drive's, checked
// against the range when the phase starts.
void read_zoned(const Params& n, PhaseSpec& p) {
  const bool zone_rw = p.rw == RwKind::kZoneReset || p.rw == RwKind::kZoneLog;
  if (!n.has("zoned") && !zone_rw) return;
  const Params z = n.child("zoned", zoned_section());
  p.zoned.enabled = true;
  if (p.rw != RwKind::kWrite && p.rw != RwKind::kRandWrite && !zone_rw)
    n.fail("zoned", "expected rw: write, randwrite, zone_reset or zone_log with zoned");
  if (p.rw != RwKind::kZoneReset)
    p.zoned.open_zones = static_cast<std::uint32_t>(z.integer("open_zones"));
  if (p.rw == RwKind::kWrite || p.rw == RwKind::kRandWrite) p.zoned.append = z.flag("append");
  if (p.rw == RwKind::kZoneLog) {
    const Amount logical = z.amount("logical");
    p.zoned.logical = logical.resolve(p.span);
    p.zoned.logical -= p.zoned.logical % p.bs;
    if (p.zoned.logical == 0) z.fail("logical", "expected at least one block (bs) of data");
    p.zoned.gc_free_zones = static_cast<std::uint32_t>(z.integer("gc_free_zones"));
  }
  if (!p.bssplit.empty() || p.bs_min != 0)
    n.fail("zoned", "expected one transfer size (bs) with zoned");
  if (n.has("rate") || n.has("load_curve"))
    n.fail("zoned", "expected closed-loop IO (no rate) with zoned");
}

PhaseSpec read_phase(const Params& n, std::size_t index, const std::vector<std::uint64_t>& ns_bytes,
                     std::vector<std::uint32_t>& depths, std::vector<std::uint32_t>& sizes,
                     std::vector<std::int64_t>& load_steps);

// A phase of concurrent jobs (`jobs`: a list of streams, each read as a
// phase of its own: rw, bs, iodepth, namespace, stop conditions), run at
// once as fio runs the jobs between two stonewalls; the phase ends with the
// last, and each job's results are kept (stream results).
PhaseSpec read_jobs(const Params& n, std::size_t index, const std::vector<std::uint64_t>& ns_bytes,
                    std::vector<std::uint32_t>& depths, std::vector<std::uint32_t>& sizes,
                    std::vector<std::int64_t>& load_steps) {
  const std::vector<Params> jobs = n.children("jobs", phase_section());
  if (jobs.empty()) n.fail("jobs", "expected a list of at least one job");
  const std::string name = n.text("name", "phase" + std::to_string(index));
  const bool precondition = n.flag("precondition");
  const Tick idle_after = n.time("idle_after");
  // Only the reports that read per-stream results belong to a whole jobs
  // phase: `report` read through a narrower declaration of its own (the
  // phase section's documents it), so a bad value names just those.
  static const ParamSection kJobsReport{
      phase_section().path,
      "",
      {param::choice("report", "none", "none|noisy_neighbor", "a jobs phase's report")}};
  const std::string report_name = Params(n.node(), kJobsReport).choice("report");
  const auto report = enum_of<PhaseReportKind>(kReportNames, report_name);
  PhaseSpec p;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    PhaseSpec j = read_phase(jobs[k], k, ns_bytes, depths, sizes, load_steps);
    if (depths.size() > 1 || sizes.size() > 1 || !load_steps.empty())
      jobs[k].fail(depths.size() > 1  ? "iodepth"
                   : sizes.size() > 1 ? "bs"
                                      : "load_curve",
                   "expected a single bs and iodepth and no load curve in a job (no sweep)");
    if (j.rw == RwKind::kTrace || j.fast || !j.concurrent.empty())
      jobs[k].fail(j.rw == RwKind::kTrace ? "rw"
                   : j.fast               ? "fast"
                                          : "numjobs",
                   "expected a timed synthetic job of one stream");
    if (j.report != PhaseReportKind::kNone || j.role != RecoveryRole::kNone ||
        j.until_steady.round != 0)
      jobs[k].fail(
          j.report != PhaseReportKind::kNone ? "report"
          : j.role != RecoveryRole::kNone    ? "role"
                                             : "until_steady",
          "expected no report, role or until_steady in a job (they belong to whole phases)");
    j.idle_after = 0;
    if (k == 0)
      p = j;
    else
      p.concurrent.push_back(j);
  }
  for (std::size_t k = 0; k < jobs.size(); ++k) p.stream_names.push_back(p.stream(k).name);
  p.name = p.base_name = name;
  p.source_index = index;
  p.precondition = precondition;
  p.idle_after = idle_after;
  p.report = report;
  p.stream_results = true;
  depths.assign(1, p.iodepth);
  sizes.assign(1, p.bs);
  return p;
}

PhaseSpec read_phase(const Params& n, std::size_t index, const std::vector<std::uint64_t>& ns_bytes,
                     std::vector<std::uint32_t>& depths, std::vector<std::uint32_t>& sizes,
                     std::vector<std::int64_t>& load_steps) {
  if (n.has("jobs")) return read_jobs(n, index, ns_bytes, depths, sizes, load_steps);
  PhaseSpec p;
  p.name = n.text("name", "phase" + std::to_string(index));
  p.base_name = p.name;
  p.source_index = index;
  p.nsid = static_cast<std::uint32_t>(n.integer("namespace"));
  if (p.nsid >= ns_bytes.size() || ns_bytes[p.nsid] == 0) {
    std::string ids;
    for (std::size_t i = 1; i < ns_bytes.size(); ++i)
      if (ns_bytes[i] != 0) ids += (ids.empty() ? "" : ", ") + std::to_string(i);
    n.fail("namespace", "expected a namespace the drive declares (" + ids + ")");
  }
  const std::uint64_t user_bytes = ns_bytes[p.nsid];
  {
    const std::vector<std::int64_t> pl = n.int_list("placement");
    p.placement = static_cast<std::uint16_t>(pl.front());
    if (pl.size() > 1)
      for (const std::int64_t v : pl) p.placements.push_back(static_cast<std::uint16_t>(v));
    p.placement_random = n.choice("placement_select") == "random";
  }
  p.priority = parse_sq_priority(n.choice("priority"));
  p.precondition = n.flag("precondition");
  p.rw = parse_rw(n.choice("rw"));
  if (p.rw == RwKind::kTrace) {
    // A replay runs to the end of its trace, as the trace says; keys of
    // synthetic jobs (bs, iodepth, stop conditions, reports) are not read,
    // so giving them is an unknown-key error.
    p.trace = TracePhaseSpec::from_config(n.map("trace"), user_bytes, n.node().file());
    p.trace.allow_empty = n.flag("allow_empty");
    p.bs = p.trace.replay.max_transfer;
    p.iodepth = p.trace.replay.iodepth;
    p.span = user_bytes;
    p.idle_after = n.time("idle_after");
    depths.assign(1, p.iodepth);
    sizes.assign(1, p.bs);
    return p;
  }
  // Transfer sizes: a multiple of 4 KiB up to 256 MiB.
  auto transfer_size = [](const Params& node, std::uint64_t b, const char* what) {
    if (b == 0 || b % kSectorBytes != 0 || b > (256u << 20))
      node.fail("bs", std::string("expected a multiple of 4KiB up to 256MiB") + what);
    return static_cast<std::uint32_t>(b);
  };
  sizes.clear();
  if (n.has("bssplit")) {
    // Mixed sizes: the largest bounds the range checks (p.bs).
    if (n.has("bs")) n.fail("bssplit", "expected either bs or bssplit, not both");
    double total = 0;
    p.bs = 0;
    const auto parts = n.children("bssplit", bssplit_section());
    if (parts.empty()) n.fail("bssplit", "expected a list of {bs, weight}");
    for (const Params& part : parts) {
      const std::uint32_t b = transfer_size(part, part.bytes("bs"), "");
      total += part.real("weight");
      p.bssplit.push_back({b, total});
      p.bs = std::max(p.bs, b);
    }
    for (auto& s : p.bssplit) s.cumulative /= total;
    p.bssplit.back().cumulative = 1.0;
    sizes.assign(1, p.bs);
  } else {
    // A list is a transfer-size sweep: one phase per size (see from_config).
    for (const std::uint64_t b : n.bytes_list("bs"))
      sizes.push_back(transfer_size(n, b, " (each size of a list)"));
    p.bs = sizes.front();
  }
  // A list is a queue-depth sweep: one phase per depth (see from_config).
  depths.clear();
  for (const std::int64_t d : n.int_list("iodepth"))
    depths.push_back(static_cast<std::uint32_t>(d));
  p.iodepth = depths.front();
  if (sizes.size() > 1 && depths.size() > 1)
    n.fail("bs", "expected one list per phase: sweep bs or iodepth, not both");
  const Amount offset = n.amount("offset");
  p.offset = offset.resolve(user_bytes);
  // A share of the drive rounds down to whole logical pages; bytes must be exact.
  if (offset.is_percent) p.offset -= p.offset % kSectorBytes;
  if (p.offset % kSectorBytes != 0) n.fail("offset", "expected a multiple of 4KiB");
  if (p.offset >= user_bytes)
    n.fail("offset",
           "expected less than the drive's user capacity (" + human_bytes(user_bytes) + ")");
  const Amount size = n.amount("size");
  p.span = size.resolve(user_bytes);
  // 0 is no range at all, not "the rest of the drive" (leave size out, or 100%, for that).
  if (p.span == 0)
    n.fail("size", "expected more than 0 (leave it out, or 100%, for the whole range from offset)");
  if (p.offset + p.span > user_bytes) {
    // A share ("100%") from an offset means "to the end"; bytes must fit.
    if (!size.is_percent)
      n.fail("size",
             "expected offset + size within the user capacity (" + human_bytes(user_bytes) + ")");
    p.span = user_bytes - p.offset;
  }
  p.span -= p.span % kSectorBytes;
  if (p.span < *std::max_element(sizes.begin(), sizes.end()))
    n.fail("size", "expected a range of at least one block (bs)");
  p.read_share = n.real("rwmixread") / 100.0;
  // fio's IO semantics, the keys a job file has (docs/FIO.md); all off by default.
  if (n.has("random_distribution")) {
    try {
      p.distribution = parse_random_distribution(n.text("random_distribution"), parse_bytes);
    } catch (const std::invalid_argument& e) {
      n.fail("random_distribution", e.what());
    }
  }
  p.random_map = n.flag("random_map");
  if (p.random_map && p.distribution.kind != RandomDist::kUniform)
    n.fail("random_map",
           "expected no random map with a skewed random_distribution (fio turns it off too)");
  p.block_align = static_cast<std::uint32_t>(n.bytes("blockalign"));
  if (p.block_align % kSectorBytes != 0 || p.block_align > (256u << 20))
    n.fail("blockalign", "expected a multiple of 4KiB up to 256MiB");
  p.thinktime = n.time("thinktime");
  p.thinktime_blocks = static_cast<std::uint32_t>(n.integer("thinktime_blocks"));
  const auto numjobs = static_cast<std::uint32_t>(n.integer("numjobs"));
  const std::uint64_t increment = n.bytes("offset_increment");
  if (increment % kSectorBytes != 0) n.fail("offset_increment", "expected a multiple of 4KiB");

  if (n.has("io_size")) {  // read only when given: no default in the resolved config
    const Amount a = n.amount("io_size", Amount{});
    p.io_bytes = a.is_percent
                     ? static_cast<std::uint64_t>(static_cast<double>(p.span) * a.percent / 100.0)
                     : a.bytes;
    if (p.io_bytes == 0) n.fail("io_size", "expected more than 0");
  }
  p.ios = static_cast<std::uint64_t>(n.integer("number_ios"));
  p.runtime = n.time("runtime");
  p.idle_after = n.time("idle_after");
  p.ramp_time = n.time("ramp_time");
  p.report = enum_of<PhaseReportKind>(kReportNames, n.choice("report"));
  if (p.report == PhaseReportKind::kConsistency) {
    p.score_last = n.time("score_last");
    if (p.score_last == 0) n.fail("score_last", "expected a time above 0");
  }
  read_zoned(n, p);
  if (p.io_bytes == 0 && p.ios == 0 && p.runtime == 0 && p.rw != RwKind::kZoneReset)
    n.fail("rw", "expected a stop condition: io_size, number_ios or runtime");
  const std::string fast = n.choice("fast");
  p.fast = fast != "false";
  p.steady = fast == "steady";
  if (p.steady && (p.rw != RwKind::kRandWrite || p.bs != kSectorBytes || !p.bssplit.empty() ||
                   p.offset != 0 || p.span != user_bytes - user_bytes % kSectorBytes ||
                   p.distribution.kind != RandomDist::kUniform || p.random_map ||
                   (p.block_align != 0 && p.block_align != kSectorBytes)))
    n.fail("fast",
           "steady mode models uniform 4 KiB random writes over the whole drive (rw: randwrite, "
           "bs: 4KiB, no bssplit, offset or random_map, size 100%, random_distribution: random); "
           "use fast: true for other patterns");
  if (p.fast && p.zoned.enabled) n.fail("fast", "a zoned phase is timed (fast: false)");
  if (p.fast && numjobs > 1) n.fail("numjobs", "a fast phase is one stream (numjobs: 1)");
  if (p.fast && p.thinktime > 0)
    n.fail("thinktime", "a fast phase takes no simulated time: no think time");
  if (p.fast) {
    if (p.rw != RwKind::kWrite && p.rw != RwKind::kRandWrite && p.rw != RwKind::kTrim)
      n.fail("fast", "fast preconditioning applies to write, randwrite and trim phases only");
    if (p.io_bytes == 0 && p.ios == 0)
      n.fail("fast",
             "a fast phase takes no simulated time: give io_size or number_ios, not runtime");
    if (p.report != PhaseReportKind::kNone)
      n.fail("fast", "a fast phase has no timing to report on (report: none)");
  }
  if (n.has("until_steady")) {
    if (p.fast) n.fail("until_steady", "a fast phase takes no simulated time: no rounds to test");
    read_until_steady(n, p);
  }
  if (n.has("role")) {
    p.role = enum_of<RecoveryRole>(kRoleNames, n.choice("role", "none"), 1);
    if (p.fast) n.fail("role", "a fast phase has no timing to compare (no role)");
  }
  load_steps.clear();
  if (n.has("rate") || n.has("load_curve")) {
    const char* key = n.has("rate") ? "rate" : "load_curve";
    if (n.has("rate") && n.has("load_curve"))
      n.fail("load_curve",
             "expected rate or load_curve, not both (a load curve sets its own rates)");
    if (p.fast) n.fail(key, "a fast phase takes no simulated time: no arrival rate");
    if (p.runtime == 0) n.fail(key, "open-loop arrivals need a runtime (each step runs that long)");
    if (depths.size() > 1 || sizes.size() > 1)
      n.fail(key, "expected a single iodepth and bs: the load curve is the sweep");
    if (p.until_steady.round != 0) n.fail(key, "expected no until_steady with open-loop arrivals");
  }
  if (n.has("rate")) {
    const Params r = n.child("rate", rate_section());
    p.rate.iops = r.real("iops");
    p.rate.arrival = read_arrival(r);
  }
  if (n.has("load_curve")) {
    // StorageReview: from 10% to 120% of the profile's measured maximum.
    const Params lc = n.child("load_curve", load_curve_section());
    p.rate.arrival = read_arrival(lc);
    load_steps = lc.int_list("steps", {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120});
    for (std::size_t i = 1; i < load_steps.size(); ++i)
      if (load_steps[i] <= load_steps[i - 1])
        lc.fail("steps", "expected rising percentages of the measured maximum");
    if (p.report != PhaseReportKind::kNone && p.report != PhaseReportKind::kLoadCurve)
      n.fail("report", "a load curve reports as report: load_curve");
    p.report = PhaseReportKind::kLoadCurve;
  }
  read_durability(n, p);
  if (numjobs > 1) {
    // Clones run concurrently as streams of the phase, each its own range
    // start and random stream (seeded in from_config).
    if (sizes.size() > 1 || depths.size() > 1)
      n.fail("numjobs", "expected a single bs and iodepth with numjobs (no sweep)");
    for (std::uint32_t k = 1; k < numjobs; ++k) {
      PhaseSpec c = p;
      c.idle_after = 0;
      c.offset += k * increment;
      if (c.offset + c.span > user_bytes)
        n.fail("offset_increment",
               "expected the last clone's offset + size within the user capacity (" +
                   human_bytes(user_bytes) + ")");
      p.concurrent.push_back(c);
    }
  }
  return p;
}

// Checks across phases, on the expanded list. Reports are written by phase
// name and some into one file each, and the recovery scores compare phases
// of the same queue depth.
void check_phases(const WorkloadSpec& w, const std::vector<Params>& nodes) {
  std::vector<const PhaseSpec*> single_file_report(kReportNames.size(), nullptr);
  for (std::size_t i = 0; i < w.phases.size(); ++i) {
    const PhaseSpec& p = w.phases[i];
    const Params& n = nodes[p.source_index];
    const bool expanded = p.name != p.base_name;
    for (std::size_t j = 0; j < i; ++j)
      if (w.phases[j].name == p.name)
        n.fail(!expanded                                                   ? "name"
               : p.name == p.base_name + "_qd" + std::to_string(p.iodepth) ? "iodepth"
                                                                           : "bs",
               "phase name '" + p.name + "' is used twice (results are reported by phase name)");
    const auto r = static_cast<std::size_t>(p.report);
    if (p.report == PhaseReportKind::kFillCurve || p.report == PhaseReportKind::kConsistency ||
        p.report == PhaseReportKind::kLatency || p.report == PhaseReportKind::kBandwidth) {
      if (single_file_report[r])
        n.fail("report", "report: " + kReportNames[r] + " is already on phase '" +
                             single_file_report[r]->name + "' (one phase per workload)");
      single_file_report[r] = &p;
    }
    if (p.role == RecoveryRole::kNone) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const PhaseSpec& q = w.phases[j];
      if (q.role == p.role && (p.role != RecoveryRole::kFob || q.iodepth == p.iodepth))
        n.fail("role", std::string("role: ") + recovery_role_name(p.role) +
                           " is already on phase '" + q.name +
                           "' (one per workload; fob: one per iodepth)");
    }
  }
  for (const PhaseSpec& p : w.phases) {
    if (p.role != RecoveryRole::kSteady && p.role != RecoveryRole::kRecovered) continue;
    bool fob = false;
    for (const PhaseSpec& q : w.phases)
      fob |= q.role == RecoveryRole::kFob && q.iodepth == p.iodepth;
    if (!fob)
      nodes[p.source_index].fail(
          "role", std::string("role: ") + recovery_role_name(p.role) + " at iodepth " +
                      std::to_string(p.iodepth) +
                      " needs a role: fob phase of the same iodepth to compare with");
  }
}

}  // namespace

const ParamSection& WorkloadSpec::root_params() { return workload_section(); }
const ParamSection& WorkloadSpec::faults_params() { return faults_section(); }
const ParamSection& WorkloadSpec::fail_block_params() { return fail_block_section(); }
const ParamSection& WorkloadSpec::fail_die_params() { return fail_die_section(); }
const ParamSection& WorkloadSpec::phase_params() { return phase_section(); }

std::vector<const ParamSection*> WorkloadSpec::params() {
  return {&workload_section(),   &timeseries_section(),   &power_management_section(),
          &idle_state_section(), &faults_section(),       &uncorrectable_section(),
          &fail_block_section(), &fail_die_section(),     &phase_section(),
          &bssplit_section(),    &until_steady_section(), &rate_section(),
          &load_curve_section(), &zoned_section()};
}

WorkloadSpec WorkloadSpec::from_config(const ConfigNode& root_node, std::uint64_t user_bytes,
                                       const std::vector<std::uint64_t>& given_ns_bytes) {
  const std::vector<std::uint64_t> ns_bytes =
      given_ns_bytes.empty() ? std::vector<std::uint64_t>{0, user_bytes} : given_ns_bytes;
  const Params root(root_node, workload_section());
  WorkloadSpec w;
  w.name = root.text("name");
  w.seed = static_cast<std::uint64_t>(root.integer("seed"));
  const Params ts = root.child("timeseries", timeseries_section());
  w.interval = ts.time("interval");
  if (w.interval == 0) ts.fail("interval", "expected a time above 0");
  w.per_bytes = ts.bytes("per_bytes");
  w.watchdog = root.time("watchdog");
  w.latency_thresholds =
      root.time_list("latency_thresholds", {20 * kUs, 50 * kUs, 100 * kUs, 200 * kUs, 500 * kUs,
                                            1 * kMs, 5 * kMs, 10 * kMs, 50 * kMs, 100 * kMs});
  for (std::size_t i = 1; i < w.latency_thresholds.size(); ++i)
    if (w.latency_thresholds[i] <= w.latency_thresholds[i - 1])
      root.fail("latency_thresholds", "expected times in rising order");
  if (w.latency_thresholds.front() == 0) root.fail("latency_thresholds", "expected times above 0");
  if (root.has("power_management")) {
    const Params pm = root.child("power_management", power_management_section());
    w.power.given = true;
    w.power.state = pm.text("state", "");
    w.power.device_initiated = pm.flag("device_initiated");
    if (pm.has("idle_states"))
      for (const Params& s : pm.children("idle_states", idle_state_section()))
        w.power.idle_states.push_back({s.text("state"), s.time("idle")});
  }
  const Params faults = root.child("faults", faults_section());
  w.power_cuts = faults.time_list("power_cuts", {});
  for (std::size_t i = 0; i < w.power_cuts.size(); ++i)
    if (w.power_cuts[i] == 0 || (i > 0 && w.power_cuts[i] <= w.power_cuts[i - 1]))
      faults.fail("power_cuts", "expected times above 0 in rising order");
  if (faults.has("power_cuts_after_ios")) {
    if (faults.has("power_cuts"))
      faults.fail("power_cuts_after_ios", "expected cuts by time or by IO count, not both");
    for (const std::int64_t n : faults.int_list("power_cuts_after_ios", {}))
      w.power_cuts_after_ios.push_back(static_cast<std::uint64_t>(n));
    for (std::size_t i = 1; i < w.power_cuts_after_ios.size(); ++i)
      if (w.power_cuts_after_ios[i] <= w.power_cuts_after_ios[i - 1])
        faults.fail("power_cuts_after_ios", "expected IO counts in rising order");
  }
  if (faults.has("fail_block")) {
    for (const Params& f : faults.children("fail_block", fail_block_section())) {
      WorkloadSpec::BlockFault b;
      b.at = f.time("at");
      b.die = static_cast<std::uint32_t>(f.integer("die"));
      b.block = static_cast<std::uint32_t>(f.integer("block"));
      w.block_faults.push_back(b);
    }
  }
  if (faults.has("fail_die")) {
    for (const Params& f : faults.children("fail_die", fail_die_section())) {
      WorkloadSpec::BlockFault b;
      b.at = f.time("at");
      b.die = static_cast<std::uint32_t>(f.integer("die"));
      w.die_faults.push_back(b);
    }
  }
  const Params unc = faults.child("uncorrectable", uncorrectable_section());
  w.uncorrectable_rate = unc.real("rate");
  w.uncorrectable_at = unc.bytes_list("at", {});
  for (const std::uint64_t a : w.uncorrectable_at)
    if (a >= user_bytes) unc.fail("at", "expected offsets inside the drive's user capacity");
  const std::vector<Params> phases = root.children("phases", phase_section());
  if (phases.empty()) root.fail("phases", "expected at least one phase");
  std::vector<std::uint32_t> depths, sizes;
  std::vector<std::int64_t> load_steps;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    PhaseSpec p = read_phase(phases[i], i, ns_bytes, depths, sizes, load_steps);
    if (p.rw == RwKind::kTrace) p.trace.limit_times(w.interval);
    for (std::size_t k = 0; k < p.concurrent.size(); ++k)
      p.concurrent[k].seed = (w.seed * 0x9E3779B97F4A7C15ull + (i + 1) * 1000003ull + k) | 1;
    if (p.report == PhaseReportKind::kFillCurve && w.per_bytes == 0)
      phases[i].fail("report", "a fill curve needs workload.timeseries.per_bytes (e.g. 1GB)");
    if (!load_steps.empty()) {
      // The profile's maximum first (closed loop at its iodepth), then one
      // open-loop step per percentage of what that phase achieved.
      const std::size_t max_index = w.phases.size();
      w.phases.push_back(p);
      w.phases.back().name = p.base_name + "_max";
      w.phases.back().rate = OfferedRate{};
      for (const std::int64_t pct : load_steps) {
        w.phases.push_back(p);
        PhaseSpec& s = w.phases.back();
        s.name = p.base_name + "_" + std::to_string(pct) + "pct";
        s.rate.fraction = static_cast<double>(pct) / 100.0;
        s.rate.of_phase = max_index;
      }
    } else if (depths.size() > 1 || sizes.size() > 1) {
      // A queue-depth or transfer-size sweep inside the workload: the same
      // axes a sweep file has (host/workload/axes.h), one phase per point.
      for (const auto& pt : combine_axes({sizes.size(), depths.size()}, AxisCombine::kGrid)) {
        w.phases.push_back(p);
        PhaseSpec& s = w.phases.back();
        s.bs = sizes[pt[0]];
        s.iodepth = depths[pt[1]];
        s.name = p.base_name + (sizes.size() > 1 ? "_" + size_label(s.bs) : "") +
                 (depths.size() > 1 ? "_qd" + std::to_string(s.iodepth) : "");
      }
    } else {
      w.phases.push_back(std::move(p));
    }
  }
  check_phases(w, phases);
  return w;
}

}  // namespace ssdtwin
