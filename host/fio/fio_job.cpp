#include "host/fio/fio_job.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "nand/geometry.h"
#include "sim/config.h"

namespace ssdtwin {

namespace fs = std::filesystem;

std::optional<std::string> process_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

namespace {

[[noreturn]] void fail_at(const std::string& file, int line, const std::string& what) {
  throw ConfigError(file + ":" + std::to_string(line) + ": " + what);
}

[[noreturn]] void fail_opt(const FioOption& o, const std::string& what) {
  fail_at(o.file, o.line, o.key + (o.flag ? "" : "=" + o.value) + ": " + what);
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

using Env = std::function<std::optional<std::string>(const std::string&)>;

std::string expand_env(const std::string& s, const std::string& file, int line, const Env& getenv) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '{') {
      const std::size_t close = s.find('}', i + 2);
      if (close == std::string::npos) fail_at(file, line, "'${' without a closing '}'");
      const std::string name = s.substr(i + 2, close - i - 2);
      const auto v = getenv(name);
      if (!v) fail_at(file, line, "${" + name + "}: environment variable " + name + " is not set");
      out += *v;
      i = close;
    } else {
      out += s[i];
    }
  }
  return out;
}

void read_into(const std::string& path, const Env& getenv, std::vector<FioSection>& sections,
               int depth, const std::string& from_file, int from_line) {
  if (depth > 16) fail_at(from_file, from_line, "include nested more than 16 deep (a cycle?)");
  std::ifstream in(path);
  if (!in) {
    if (from_file.empty()) throw ConfigError(path + ": cannot read the fio job file");
    fail_at(from_file, from_line, "include " + path + ": cannot read it");
  }
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (line == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);  // UTF-8 byte-order mark
    // fio ends a line at ';' or '#' (comments, also after a value).
    const std::size_t c = raw.find_first_of(";#");
    std::string s = trim(c == std::string::npos ? raw : raw.substr(0, c));
    if (s.empty()) continue;
    if (s.rfind("include ", 0) == 0 || s.rfind("include\t", 0) == 0) {
      std::string inc = trim(expand_env(s.substr(8), path, line, getenv));
      // fio resolves an include against the including file's folder.
      if (!fs::path(inc).is_absolute()) inc = (fs::path(path).parent_path() / inc).string();
      read_into(inc, getenv, sections, depth + 1, path, line);
      continue;
    }
    if (s.front() == '[') {
      if (s.back() != ']')
        fail_at(path, line, "'" + s + "': expected a section header such as [job]");
      FioSection sec;
      sec.name = trim(s.substr(1, s.size() - 2));
      if (sec.name.empty()) fail_at(path, line, "expected a section name between [ and ]");
      sec.file = path;
      sec.line = line;
      sections.push_back(sec);
      continue;
    }
    if (sections.empty()) fail_at(path, line, "'" + s + "': an option before any [section]");
    FioOption o;
    o.file = path;
    o.line = line;
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos) {
      o.key = lower(s);
      o.flag = true;
    } else {
      o.key = lower(trim(s.substr(0, eq)));
      o.value = trim(expand_env(s.substr(eq + 1), path, line, getenv));
    }
    if (o.key.empty()) fail_at(path, line, "expected key=value");
    sections.back().options.push_back(o);
  }
}

}  // namespace

std::vector<FioSection> read_fio_sections(const std::string& path, const Env& getenv) {
  std::vector<FioSection> sections;
  read_into(path, getenv, sections, 0, "", 0);
  return sections;
}

namespace {

// --- values, as fio parses them -------------------------------------------

// "1.5g" -> (1.5, "g"): the leading decimal number and what follows it.
std::optional<std::pair<double, std::string>> number_and_suffix(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  char* end = nullptr;
  const std::string num = s.substr(0, i);
  const double x = std::strtod(num.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return std::make_pair(x, s.substr(i));
}

// fio's sizes: a number with an optional k/m/g/t/p suffix (b, ib), by
// default all powers of 1024 (kb_base=1024); with kb_base=1000 "k" and "kb"
// are 1000 and only "kib" is 1024.
std::optional<double> parse_size_raw(const std::string& v, std::uint32_t kb_base) {
  const std::string s = lower(trim(v));
  if (s.empty()) return std::nullopt;
  if (s.rfind("0x", 0) == 0) {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(s.c_str() + 2, &end, 16);
    if (*end != '\0' || end == s.c_str() + 2) return std::nullopt;
    return static_cast<double>(x);
  }
  const auto split_num = number_and_suffix(s);
  if (!split_num) return std::nullopt;
  const auto& [x, suf] = *split_num;
  static const std::string kUnits = "kmgtp";
  if (suf.empty() || suf == "b") return x;
  const std::size_t p = kUnits.find(suf[0]);
  if (p == std::string::npos) return std::nullopt;
  const std::string rest = suf.substr(1);
  double base = kb_base;
  if (rest == "ib")
    base = 1024;
  else if (!(rest.empty() || rest == "b"))
    return std::nullopt;
  return x * std::pow(base, static_cast<double>(p + 1));
}

// fio's times: a number with an optional us/ms/s/m/h/d suffix; bare
// numbers are in `unit` (seconds for runtime, microseconds for thinktime).
std::optional<Tick> parse_time_raw(const std::string& v, Tick unit) {
  const auto split_num = number_and_suffix(lower(trim(v)));
  if (!split_num) return std::nullopt;
  const auto& [x, suf] = *split_num;
  Tick u = unit;
  if (suf.empty())
    u = unit;
  else if (suf == "ns")
    u = kNs;
  else if (suf == "us" || suf == "usec")
    u = kUs;
  else if (suf == "ms" || suf == "msec")
    u = kMs;
  else if (suf == "s" || suf == "sec")
    u = kSec;
  else if (suf == "m" || suf == "min")
    u = 60 * kSec;
  else if (suf == "h")
    u = 3600 * kSec;
  else if (suf == "d")
    u = 86400 * kSec;
  else
    return std::nullopt;
  return static_cast<Tick>(std::llround(x * static_cast<double>(u)));
}

// --- options --------------------------------------------------------------

// Options that only concern the host side (engine, files, CPUs, buffers'
// contents, how fio measures itself): accepted, listed once as ignored.
const std::set<std::string>& host_only_options() {
  static const std::set<std::string> k = {"direct",
                                          "buffered",
                                          "filename_format",
                                          "directory",
                                          "thread",
                                          "cpus_allowed",
                                          "cpumask",
                                          "cpus_allowed_policy",
                                          "numa_cpu_nodes",
                                          "numa_mem_policy",
                                          "invalidate",
                                          "iodepth_batch",
                                          "iodepth_batch_submit",
                                          "iodepth_batch_complete",
                                          "iodepth_batch_complete_min",
                                          "iodepth_batch_complete_max",
                                          "iodepth_low",
                                          "userspace_reap",
                                          "hipri",
                                          "fixedbufs",
                                          "registerfiles",
                                          "sqthread_poll",
                                          "nice",
                                          "prio",
                                          "prioclass",
                                          "ioscheduler",
                                          "unlink",
                                          "fallocate",
                                          "fadvise_hint",
                                          "overwrite",
                                          "create_on_open",
                                          "allow_mounted_write",
                                          "lockmem",
                                          "exitall",
                                          "random_generator",
                                          "refill_buffers",
                                          "scramble_buffers",
                                          "zero_buffers",
                                          "buffer_compress_percentage",
                                          "buffer_compress_chunk",
                                          "dedupe_percentage",
                                          "buffer_pattern",
                                          "clocksource",
                                          "gtod_reduce",
                                          "disable_lat",
                                          "disable_clat",
                                          "disable_slat",
                                          "disable_bw_measurement",
                                          "thinktime_spin",
                                          "randrepeat",
                                          "allrandrepeat",
                                          "replay_redirect",
                                          "slat_percentiles",
                                          "stats",
                                          "unit_base",
                                          "mem",
                                          "iomem",
                                          "mem_align",
                                          "iomem_align",
                                          "exitall_on_error",
                                          "uid",
                                          "gid",
                                          "max_latency",
                                          "continue_on_error",
                                          "write_hint",
                                          "pre_read",
                                          "end_fsync_on_close",
                                          "openfiles",
                                          "file_service_type",
                                          "filesize",
                                          "create_serialize",
                                          "create_fsync",
                                          "atomic",
                                          "hugepage-size",
                                          "sqthread_poll_cpu",
                                          "cmdprio_percentage",
                                          "log_compression"};
  return k;
}

// Options fio documents for host behaviour the simulator does not model and
// that change what fio would do: named in the error with what to use.
struct Job {
  std::vector<FioOption> opts;  // globals first, then the section's own
  const FioOption* find(const std::string& key) const {
    const FioOption* f = nullptr;
    for (const auto& o : opts)
      if (o.key == key) f = &o;  // the last one given wins, as in fio
    return f;
  }
};

struct Reader {
  const Job& job;
  std::uint64_t user_bytes;
  std::uint32_t kb_base = 1024;

  const FioOption* find(const std::string& k) const { return job.find(k); }
  const FioOption* find_any(std::initializer_list<const char*> keys) const {
    const FioOption* f = nullptr;
    for (const auto& o : job.opts)
      for (const char* k : keys)
        if (o.key == k) f = &o;
    return f;
  }
  bool flag(std::initializer_list<const char*> keys) const {
    const FioOption* o = find_any(keys);
    if (!o) return false;
    if (o->flag) return true;
    const std::string v = lower(o->value);
    if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
    if (v == "0" || v == "false" || v == "no" || v == "off") return false;
    fail_opt(*o, "expected 0 or 1");
  }
  double size_of(const FioOption& o, const std::string& v) const {
    const auto x = parse_size_raw(v, kb_base);
    if (!x)
      fail_opt(o,
               "expected a size such as 4k, 128KiB, 10g (kb_base " + std::to_string(kb_base) + ")");
    // Callers keep sizes as 64-bit integers; a larger value would not convert.
    if (!(*x < 0x1p63)) fail_opt(o, "expected a size below 8 EiB");
    return *x;
  }
  std::uint64_t bytes(const FioOption& o) const {
    return static_cast<std::uint64_t>(size_of(o, o.value));
  }
  Tick time(const FioOption& o, Tick unit) const {
    const auto t = parse_time_raw(o.value, unit);
    if (!t) fail_opt(o, "expected a time such as 60, 500ms, 2m");
    return *t;
  }
  std::int64_t integer(const FioOption& o, std::int64_t lo, std::int64_t hi) const {
    char* end = nullptr;
    const long long v = std::strtoll(o.value.c_str(), &end, 10);
    if (o.value.empty() || *end != '\0' || v < lo || v > hi)
      fail_opt(o, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return v;
  }
  // size / offset / io_size: bytes or a share of the drive ("50%").
  std::uint64_t amount(const FioOption& o, std::uint64_t base) const {
    const std::string v = trim(o.value);
    if (!v.empty() && v.back() == '%') {
      char* end = nullptr;
      const std::string num = v.substr(0, v.size() - 1);
      const double pct = std::strtod(num.c_str(), &end);
      if (*end != '\0' || !(pct >= 0 && pct <= 100))
        fail_opt(o, "expected a percentage from 0% to 100%");
      return static_cast<std::uint64_t>(static_cast<double>(base) * pct / 100.0);
    }
    return bytes(o);
  }
};

// The part of a per-direction option ("r,w,t") that applies to `dir`
// (0 read, 1 write, 2 trim): fio reuses the first for a missing later part
// ("4k" is 4k for all), and an empty part keeps the default.
std::string dir_part(const std::string& v, int dir) {
  const auto parts = split_at(v, ',');
  if (static_cast<std::size_t>(dir) < parts.size())
    return trim(parts[static_cast<std::size_t>(dir)]);
  return parts.size() == 1 ? trim(parts[0]) : "";
}

struct Dirs {
  bool read = false, write = false, trim = false;
};

Dirs dirs_of(RwKind k) {
  switch (k) {
    case RwKind::kRead:
    case RwKind::kRandRead:
      return {true, false, false};
    case RwKind::kWrite:
    case RwKind::kRandWrite:
      return {false, true, false};
    case RwKind::kTrim:
    case RwKind::kRandTrim:
      return {false, false, true};
    case RwKind::kTrimWrite:
      return {false, true, true};
    default:
      return {true, true, false};
  }
}

void check_transfer(const FioOption& o, std::uint64_t b) {
  if (b == 0 || b % kSectorBytes != 0 || b > (256u << 20))
    fail_opt(o,
             "expected a multiple of 4KiB up to 256MiB (the drive's logical page is 4 KiB; "
             "smaller or unaligned IOs are not modelled for synthetic jobs)");
}

// A per-direction value that must agree across the directions the job does.
std::string one_value_for(const FioOption& o, RwKind rw, const char* what) {
  const Dirs d = dirs_of(rw);
  std::string v;
  bool have = false;
  for (int dir = 0; dir < 3; ++dir) {
    if (!(dir == 0 ? d.read : dir == 1 ? d.write : d.trim)) continue;
    const std::string p = dir_part(o.value, dir);
    if (have && p != v)
      fail_opt(o, std::string("expected one ") + what +
                      " for the directions this job does (per-direction values differ)");
    v = p;
    have = true;
  }
  return v;
}

RandomDistribution parse_distribution(const Reader& r, const FioOption& o) {
  try {
    return parse_random_distribution(o.value,
                                     [&](const std::string& v) -> std::optional<std::uint64_t> {
                                       const auto x = parse_size_raw(v, r.kb_base);
                                       if (!x) return std::nullopt;
                                       return static_cast<std::uint64_t>(*x);
                                     });
  } catch (const std::invalid_argument& e) {
    fail_opt(o, e.what());
  }
}

// fio's steady-state stop (steadystate=CRITERION:LIMIT, ss_dur, ss_ramp) as
// the workload's until_steady. fio samples once a second and tests the
// last ss_dur of samples, from ss_ramp on: rounds of 1 s, ss_dur of them,
// no window closing before ss_ramp + ss_dur. Its criteria test one
// condition each: iops (every sample within LIMIT of the mean) is the
// excursion condition; iops_slope (the least-squares slope per sample
// below LIMIT) is the slope condition, whose tolerance the model takes
// across the window, hence (samples - 1) x LIMIT. bw and bw_slope are the
// same tests when every IO has one size (bandwidth is IOPS x bs).
void map_steadystate(const Reader& r, const FioSection& sec, PhaseSpec& p,
                     std::vector<std::string>& notes) {
  const FioOption* crit = r.find_any({"steadystate", "ss"});
  const FioOption* dur = r.find_any({"steadystate_duration", "ss_dur"});
  const FioOption* ramp = r.find_any({"steadystate_ramp_time", "ss_ramp"});
  const Tick window = dur ? r.time(*dur, kSec) : 0;
  if (window == 0) {
    // fio's default ss_dur, 0, turns the detection off.
    if (crit || ramp)
      notes.push_back("[" + sec.name + "]: " + (crit ? crit->key : ramp->key) +
                      " without ss_dur: fio judges no steady state (ss_dur defaults to 0)");
    return;
  }
  if (window % kSec != 0 || window < 2 * kSec)
    fail_opt(*dur,
             "expected a whole number of seconds, at least 2 (fio samples once a second; a slope "
             "needs two samples)");
  const std::string v = lower(crit ? crit->value : "iops_slope:0.01%");  // fio's default
  const std::size_t colon = v.find(':');
  const std::string kind = v.substr(0, colon);
  const bool slope = kind == "iops_slope" || kind == "bw_slope";
  if (!slope && kind != "iops" && kind != "bw")
    fail_opt(*crit,
             "expected iops:, iops_slope:, bw: or bw_slope: and a limit, such as iops_slope:0.3%");
  const std::string limit = colon == std::string::npos ? "" : trim(v.substr(colon + 1));
  if (limit.empty() || limit.back() != '%')
    fail_opt(*crit,
             "expected a limit in percent of the mean (such as " + kind +
                 ":2%): the simulator tests steady state relative to the mean, not against an "
                 "absolute IOPS or bandwidth");
  char* end = nullptr;
  const std::string num = limit.substr(0, limit.size() - 1);
  const double pct = std::strtod(num.c_str(), &end);
  if (num.empty() || *end != '\0' || !(pct > 0 && pct < 100))
    fail_opt(*crit, "expected a limit above 0% and below 100%");
  if (kind.rfind("bw", 0) == 0 && (p.bs_min != 0 || !p.bssplit.empty()))
    fail_opt(*crit,
             "bandwidth criteria with mixed block sizes: the simulator judges steady state on "
             "IOPS; give iops or iops_slope");
  if (p.rate.open_loop())
    fail_opt(crit ? *crit : *dur,
             "expected no steady-state stop with rate or rate_iops (open-loop arrivals hold the "
             "IOPS at the rate)");
  UntilSteady& u = p.until_steady;
  u.round = kSec;
  u.rounds = static_cast<std::uint32_t>(window / kSec);
  const double inf = std::numeric_limits<double>::infinity();
  u.tolerance = slope ? inf : pct / 100;
  u.slope_tolerance = slope ? pct / 100 * static_cast<double>(u.rounds - 1) : inf;
  u.after = (ramp ? r.time(*ramp, kSec) : 0) + window;
}

// Options this front end understands (host_only_options() apart).
const std::set<std::string>& mapped_options() {
  static const std::set<std::string> k = {"rw",
                                          "filename",
                                          "fdp",
                                          "fdp_pli",
                                          "fdp_pli_select",
                                          "ioengine",
                                          "readwrite",
                                          "rw_sequencer",
                                          "bs",
                                          "blocksize",
                                          "bsrange",
                                          "blocksize_range",
                                          "bssplit",
                                          "blockalign",
                                          "ba",
                                          "iodepth",
                                          "size",
                                          "offset",
                                          "offset_increment",
                                          "io_size",
                                          "io_limit",
                                          "number_ios",
                                          "runtime",
                                          "timeout",
                                          "ramp_time",
                                          "startdelay",
                                          "rwmixread",
                                          "rwmixwrite",
                                          "random_distribution",
                                          "randseed",
                                          "rate",
                                          "rate_iops",
                                          "rate_process",
                                          "thinktime",
                                          "thinktime_blocks",
                                          "steadystate",
                                          "ss",
                                          "steadystate_duration",
                                          "ss_dur",
                                          "steadystate_ramp_time",
                                          "ss_ramp",
                                          "fsync",
                                          "fdatasync",
                                          "end_fsync",
                                          "sync",
                                          "read_iolog",
                                          "write_iolog",
                                          "replay_no_stall",
                                          "zonemode",
                                          "zonesize",
                                          "zonerange",
                                          "zoneskip",
                                          "max_open_zones",
                                          "job_max_open_zones",
                                          "zone_append",
                                          "loops",
                                          "write_bw_log",
                                          "write_iops_log",
                                          "write_lat_log",
                                          "log_avg_msec",
                                          "percentile_list",
                                          "lat_percentiles",
                                          "log_offset",
                                          "verify",
                                          "do_verify",
                                          "unified_rw_reporting",
                                          "bwavgtime",
                                          "iopsavgtime",
                                          "norandommap",
                                          "stonewall",
                                          "wait_for_previous",
                                          "new_group",
                                          "time_based",
                                          "name",
                                          "numjobs",
                                          "group_reporting",
                                          "per_job_logs",
                                          "kb_base",
                                          "description",
                                          "clat_percentiles",
                                          "nrfiles"};
  return k;
}

std::string resolve_out(const std::string& p, const std::string& out_dir) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(out_dir) / p).string();
}

// fio's default percentiles (stat.c).
const std::vector<double> kDefaultPercentiles = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                                 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

struct Mapped {
  PhaseSpec spec;
  std::uint32_t numjobs = 1;
  std::uint64_t offset_increment = 0;
  bool new_phase = false, new_group = false;
  FioJobInfo info;
};

// The engines the simulator tells apart: synchronous ones (one IO at a time
// per job) and asynchronous ones (up to iodepth); the IO itself is the
// drive's either way.
const std::vector<std::string> kSyncEngines = {"sync",    "psync", "vsync", "pvsync",
                                               "pvsync2", "mmap",  "splice"};
const std::vector<std::string> kAsyncEngines = {"libaio", "io_uring", "io_uring_cmd", "posixaio",
                                                "sg",     "null",     "xnvme",        "libblkio"};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The namespace a job's filename names: /dev/nvmeXnN is namespace N (the
// kernel's block device per namespace); any other file is namespace 1.
std::uint32_t namespace_of(const Job& job, const std::vector<std::uint64_t>& ns_bytes) {
  const FioOption* f = job.find("filename");
  if (!f) return 1;
  const std::string& v = f->value;
  const std::size_t n = v.rfind('n');
  const bool nvme = v.rfind("/dev/nvme", 0) == 0 && n != std::string::npos && n > 9 &&
                    n + 1 < v.size() &&
                    std::all_of(v.begin() + static_cast<std::ptrdiff_t>(n) + 1, v.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
  if (!nvme) return 1;
  const unsigned long id = std::strtoul(v.c_str() + n + 1, nullptr, 10);
  if (id == 0 || id >= ns_bytes.size() || ns_bytes[id] == 0)
    fail_opt(*f, "expected a namespace the drive declares (/dev/nvme0nN, N from 1)");
  return static_cast<std::uint32_t>(id);
}

// fio 3.35's FDP options (io_uring_cmd engine): fdp=1 turns placement on,
// fdp_pli= lists indices into the namespace's placement identifiers
// (commas and ranges a-b), fdp_pli_select= roundrobin or random.
void read_fdp(const Reader& r, PhaseSpec& p) {
  if (!r.flag({"fdp"})) {
    for (const char* k : {"fdp_pli", "fdp_pli_select"})
      if (const FioOption* o = r.find(k)) fail_opt(*o, "expected fdp=1 with it");
    return;
  }
  if (const FioOption* o = r.find("fdp_pli")) {
    for (const std::string& part : split_at(o->value, ',')) {
      const std::size_t dash = part.find('-');
      char* end = nullptr;
      const unsigned long a = std::strtoul(part.c_str(), &end, 10);
      unsigned long b = a;
      if (dash != std::string::npos) b = std::strtoul(part.c_str() + dash + 1, &end, 10);
      if (part.empty() || *end != '\0' || b < a || b > 65535)
        fail_opt(*o, "expected placement identifier indices such as 0,2 or 0-3");
      for (unsigned long i = a; i <= b; ++i) p.placements.push_back(static_cast<std::uint16_t>(i));
    }
  }
  if (p.placements.empty())
    p.placements.push_back(0);  // fio: all of the namespace's; here the first
  p.placement = p.placements.front();
  if (p.placements.size() == 1) p.placements.clear();
  if (const FioOption* o = r.find("fdp_pli_select")) {
    const std::string v = lower(o->value);
    if (v != "roundrobin" && v != "random") fail_opt(*o, "expected roundrobin or random");
    p.placement_random = v == "random";
  }
}

Mapped map_job(const FioSection& sec, const Job& job, const std::vector<std::uint64_t>& ns_bytes,
               const std::string& job_file, const std::string& out_dir, FioWorkload& w) {
  std::vector<std::string>& ignored = w.ignored;
  std::vector<std::string>& notes = w.notes;
  std::vector<std::string>& warnings = w.warnings;
  const std::uint32_t nsid = namespace_of(job, ns_bytes);
  const std::uint64_t user_bytes = ns_bytes[nsid];
  Reader r{job, user_bytes};
  Mapped m;
  PhaseSpec& p = m.spec;
  p.nsid = nsid;
  read_fdp(r, p);
  if (const FioOption* o = r.find("kb_base")) {
    r.kb_base = static_cast<std::uint32_t>(r.integer(*o, 1000, 1024));
    if (r.kb_base != 1000 && r.kb_base != 1024) fail_opt(*o, "expected 1000 or 1024");
  }
  for (const FioOption& o : job.opts) {
    if (mapped_options().count(o.key)) continue;
    if (host_only_options().count(o.key)) {
      if (std::find(ignored.begin(), ignored.end(), o.key) == ignored.end())
        ignored.push_back(o.key);
      continue;
    }
    fail_opt(o, "an fio option the simulator cannot honour (docs/FIO.md lists the supported ones)");
  }
  // Host-only options with values the simulator cannot honour.
  if (const FioOption* o = r.find("nrfiles"); o && r.integer(*o, 1, 1 << 20) != 1)
    fail_opt(*o, "expected 1: the simulated drive is one raw device");
  for (const char* k : {"verify", "do_verify"})
    if (const FioOption* o = r.find(k)) {
      const std::string v = lower(o->value);
      if (!(v == "0" || v == "none" || (std::string(k) == "do_verify" && v == "false")))
        fail_opt(*o,
                 "data verification is not simulated by job options: use `ssdtwin run --verify`");
    }
  if (const FioOption* o = r.find("unified_rw_reporting");
      o && !(o->value == "0" || lower(o->value) == "none"))
    fail_opt(*o, "expected 0 (fio.json reports read, write and trim apart)");
  if (const FioOption* o = r.find("log_offset"); o && o->value != "0")
    fail_opt(*o, "expected 0: logs are written averaged (log_avg_msec), without per-IO offsets");

  m.info.name = sec.name;
  if (const FioOption* o = r.find("name")) m.info.name = o->value;
  p.name = m.info.name;
  p.base_name = p.name;

  // rw and its :N modifier.
  std::string rw = "read";
  const FioOption* rwo = r.find_any({"rw", "readwrite"});
  std::uint64_t modifier = 0;
  bool has_modifier = false;
  if (rwo) {
    rw = lower(rwo->value);
    const std::size_t colon = rw.find(':');
    if (colon != std::string::npos) {
      has_modifier = true;
      const std::string mod = rw.substr(colon + 1);
      rw = rw.substr(0, colon);
      const auto x = parse_size_raw(mod, r.kb_base);
      if (!x || *x < 0)
        fail_opt(*rwo, "expected rw=<mode>:<N> with N a size (sequential) or an IO count (random)");
      modifier = static_cast<std::uint64_t>(*x);
    }
  }
  static const std::map<std::string, RwKind> kModes = {
      {"read", RwKind::kRead},           {"write", RwKind::kWrite},
      {"trim", RwKind::kTrim},           {"randread", RwKind::kRandRead},
      {"randwrite", RwKind::kRandWrite}, {"randtrim", RwKind::kRandTrim},
      {"rw", RwKind::kReadWrite},        {"readwrite", RwKind::kReadWrite},
      {"randrw", RwKind::kRandRw},       {"trimwrite", RwKind::kTrimWrite}};
  const auto mode = kModes.find(rw);
  if (mode == kModes.end())
    fail_opt(*rwo,
             "expected read, write, trim, randread, randwrite, randtrim, rw/readwrite, randrw or "
             "trimwrite");
  p.rw = mode->second;
  const bool random = p.rw == RwKind::kRandRead || p.rw == RwKind::kRandWrite ||
                      p.rw == RwKind::kRandTrim || p.rw == RwKind::kRandRw;
  if (has_modifier) {
    if (random) {
      if (modifier == 0) fail_opt(*rwo, "expected an IO count above 0 after ':'");
      p.rand_run = static_cast<std::uint32_t>(modifier);
    } else {
      if (modifier % kSectorBytes != 0)
        fail_opt(*rwo, "expected a skip that is a multiple of 4KiB");
      p.seq_skip = modifier;
    }
  }
  if (const FioOption* o = r.find("rw_sequencer")) {
    const std::string v = lower(o->value);
    if (v != "sequential" && v != "identical") fail_opt(*o, "expected sequential or identical");
    p.run_identical = v == "identical";
  }

  // Transfer sizes.
  p.bs = 4096;
  if (const FioOption* o = r.find_any({"bs", "blocksize"})) {
    const std::string v = one_value_for(*o, p.rw, "block size");
    if (!v.empty()) {
      const auto b = static_cast<std::uint64_t>(r.size_of(*o, v));
      check_transfer(*o, b);
      p.bs = static_cast<std::uint32_t>(b);
    }
  }
  std::uint32_t smallest = p.bs;
  if (const FioOption* o = r.find_any({"bsrange", "blocksize_range"})) {
    const std::string v = one_value_for(*o, p.rw, "block size range");
    const auto lh = split_at(v, '-');
    if (lh.size() != 2) fail_opt(*o, "expected min-max, such as 4k-64k");
    const auto lo = static_cast<std::uint64_t>(r.size_of(*o, lh[0]));
    const auto hi = static_cast<std::uint64_t>(r.size_of(*o, lh[1]));
    check_transfer(*o, lo);
    check_transfer(*o, hi);
    if (lo > hi) fail_opt(*o, "expected min <= max");
    if (lo < hi) p.bs_min = static_cast<std::uint32_t>(lo);
    p.bs = static_cast<std::uint32_t>(hi);
    smallest = static_cast<std::uint32_t>(lo);
  }
  if (const FioOption* o = r.find("bssplit")) {
    const std::string v = one_value_for(*o, p.rw, "bssplit");
    std::vector<std::pair<std::uint32_t, double>> parts;
    double given = 0;
    std::size_t blanks = 0;
    for (const std::string& part : split_at(v, ':')) {
      const auto bw = split_at(part, '/');
      if (bw.size() > 2 || bw[0].empty())
        fail_opt(*o, "expected size/percent:size/percent..., such as 4k/25:64k/75");
      const auto b = static_cast<std::uint64_t>(r.size_of(*o, bw[0]));
      check_transfer(*o, b);
      double w = -1;
      if (bw.size() == 2 && !bw[1].empty()) {
        char* end = nullptr;
        w = std::strtod(bw[1].c_str(), &end);
        if (*end != '\0' || w < 0 || w > 100)
          fail_opt(*o, "expected a percentage from 0 to 100 in '" + part + "'");
        given += w;
      } else {
        ++blanks;
      }
      parts.emplace_back(static_cast<std::uint32_t>(b), w);
    }
    if (given > 100 + 1e-9) fail_opt(*o, "expected percentages adding up to at most 100");
    // fio: sizes without a percentage share what the others leave equally.
    double total = 0;
    p.bs = 0;
    smallest = ~0u;
    for (auto& [b, w] : parts) {
      if (w < 0) w = blanks ? (100 - given) / static_cast<double>(blanks) : 0;
      if (w <= 0) continue;
      total += w;
      p.bssplit.push_back({b, total});
      p.bs = std::max(p.bs, b);
      smallest = std::min(smallest, b);
    }
    if (p.bssplit.empty() || total <= 0)
      fail_opt(*o, "expected at least one size with a share above 0");
    for (auto& s : p.bssplit) s.cumulative /= total;
    p.bssplit.back().cumulative = 1.0;
    p.bs_min = 0;
  }
  // fio aligns random offsets to the smallest block size unless told.
  p.block_align = smallest;
  if (const FioOption* o = r.find_any({"blockalign", "ba"})) {
    const std::string v = one_value_for(*o, p.rw, "blockalign");
    const auto b = static_cast<std::uint64_t>(r.size_of(*o, v));
    if (b == 0 || b % kSectorBytes != 0) fail_opt(*o, "expected a multiple of 4KiB");
    p.block_align = static_cast<std::uint32_t>(b);
  }

  if (const FioOption* o = r.find("iodepth"))
    p.iodepth = static_cast<std::uint32_t>(r.integer(*o, 1, 65536));
  // fio caps a synchronous engine's queue depth at 1 ("both iodepth >= 1 and
  // synchronous I/O engine are selected"); psync is its default on Linux.
  // The asynchronous engines keep the depth; nothing else of an engine is
  // modelled, so an engine in neither list runs as the asynchronous ones
  // do, with a warning naming them (a typo or an engine of another kind,
  // such as cpuio or net, would otherwise pass unnoticed).
  {
    const FioOption* engine = r.find("ioengine");
    const std::string name = engine ? lower(engine->value) : "psync";
    const bool sync = std::count(kSyncEngines.begin(), kSyncEngines.end(), name) > 0;
    if (!sync && std::count(kAsyncEngines.begin(), kAsyncEngines.end(), name) == 0) {
      // Once per line that gives it ([global]'s would repeat for each job).
      const std::string warning =
          engine->file + ":" + std::to_string(engine->line) + ": ioengine=" + engine->value +
          ": not an engine the simulator knows; run as the asynchronous engines (" +
          joined(kAsyncEngines) + "): the queue depth holds. The synchronous ones (" +
          joined(kSyncEngines) + ") cap it at 1";
      if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end())
        warnings.push_back(warning);
    }
    if (sync && p.iodepth > 1) {
      notes.push_back("[" + sec.name + "]: synchronous ioengine " + name +
                      (engine ? "" : " (fio's default)") +
                      ": queue depth capped at 1, as fio caps it");
      p.iodepth = 1;
    }
  }
  if (const FioOption* o = r.find("numjobs"))
    m.numjobs = static_cast<std::uint32_t>(r.integer(*o, 1, 4096));
  m.info.iodepth = p.iodepth;

  // The range.
  if (const FioOption* o = r.find("offset")) {
    p.offset = r.amount(*o, user_bytes);
    if (o->value.back() == '%') p.offset -= p.offset % kSectorBytes;
    if (p.offset % kSectorBytes != 0) fail_opt(*o, "expected a multiple of 4KiB");
    if (p.offset >= user_bytes)
      fail_opt(*o, "expected less than the drive's user capacity (" + std::to_string(user_bytes) +
                       " bytes)");
  }
  p.span = user_bytes - p.offset;
  if (const FioOption* o = r.find("size")) {
    const std::uint64_t s = r.amount(*o, user_bytes);
    if (p.offset + s > user_bytes) {
      if (o->value.back() != '%')
        fail_opt(*o, "expected offset + size within the drive's user capacity (" +
                         std::to_string(user_bytes) +
                         " bytes); scale the job with ${VAR} or a percentage");
    } else if (s > 0) {
      p.span = s;
    }
  }
  p.span -= p.span % kSectorBytes;
  if (const FioOption* o = r.find("offset_increment")) {
    m.offset_increment = r.bytes(*o);
    if (m.offset_increment % kSectorBytes != 0) fail_opt(*o, "expected a multiple of 4KiB");
    if (p.offset + (m.numjobs - 1) * m.offset_increment + p.span > user_bytes)
      fail_opt(*o, "expected the last clone's offset + size within the drive's user capacity (" +
                       std::to_string(user_bytes) + " bytes)");
  }
  if (p.span < p.bs)
    fail_at(sec.file, sec.line,
            "[" + sec.name + "]: expected a range (size) of at least one block (bs)");

  if (const FioOption* o = r.find("rwmixread"))
    p.read_share = static_cast<double>(r.integer(*o, 0, 100)) / 100.0;
  if (const FioOption* o = r.find("rwmixwrite")) {
    const double w = static_cast<double>(r.integer(*o, 0, 100)) / 100.0;
    const FioOption* rd = r.find("rwmixread");
    // fio: the one given last wins when both are given and disagree.
    if (!rd || rd->line < o->line || rd->file != o->file) p.read_share = 1.0 - w;
  }

  // Stop conditions. fio runs a job to io_size (default: size) unless it
  // is time_based; runtime caps either.
  const bool time_based = r.flag({"time_based"});
  std::uint64_t io_size = p.span;
  if (const FioOption* o = r.find_any({"io_size", "io_limit"})) io_size = r.amount(*o, p.span);
  std::uint64_t loops = 1;
  if (const FioOption* o = r.find("loops"))
    loops = static_cast<std::uint64_t>(r.integer(*o, 1, 1 << 20));
  if (!time_based) p.io_bytes = io_size * loops * (p.rw == RwKind::kTrimWrite ? 2 : 1);
  if (const FioOption* o = r.find("number_ios"))
    p.ios = static_cast<std::uint64_t>(r.integer(*o, 0, INT64_MAX));
  if (const FioOption* o = r.find_any({"runtime", "timeout"})) p.runtime = r.time(*o, kSec);
  if (time_based && p.runtime == 0)
    fail_at(sec.file, sec.line, "[" + sec.name + "]: time_based: expected a runtime");
  if (const FioOption* o = r.find("ramp_time")) p.ramp_time = r.time(*o, kSec);
  if (const FioOption* o = r.find("startdelay")) {
    if (o->value.find('-') != std::string::npos)
      fail_opt(*o, "a random start delay (a range) is not supported: give one time");
    p.start_delay = r.time(*o, kSec);
  }

  // Random offsets.
  if (const FioOption* o = r.find("random_distribution"))
    p.distribution = parse_distribution(r, *o);
  // fio keeps a random map unless norandommap; a skewed distribution turns it off.
  p.random_map = random && !r.flag({"norandommap"}) && p.distribution.kind == RandomDist::kUniform;
  if (const FioOption* o = r.find("randseed"))
    (void)r.integer(*o, 0, INT64_MAX);  // used by load_fio_workload

  // Rates: open-loop arrivals.
  const FioOption* rate = r.find("rate");
  const FioOption* rate_iops = r.find("rate_iops");
  if (rate && rate_iops) fail_opt(*rate_iops, "expected rate or rate_iops, not both");
  if (rate || rate_iops) {
    const FioOption& o = rate ? *rate : *rate_iops;
    const Dirs d = dirs_of(p.rw);
    if (d.read && d.write)
      fail_opt(o,
               "fio limits each direction of a mixed job apart; the simulator offers one arrival "
               "stream: give a single-direction rw with a rate");
    const std::string v = one_value_for(o, p.rw, "rate");
    if (v.empty()) fail_opt(o, "expected a rate for the direction this job does");
    const double x = r.size_of(o, v);
    if (!(x > 0)) fail_opt(o, "expected a rate above 0");
    if (rate && (!p.bssplit.empty() || p.bs_min))
      fail_opt(o, "a byte rate with mixed block sizes: give rate_iops");
    p.rate.iops = rate ? x / p.bs : x;
    p.rate.arrival = Arrival::kUniform;
    if (const FioOption* pr = r.find("rate_process")) {
      const std::string v2 = lower(pr->value);
      if (v2 == "poisson")
        p.rate.arrival = Arrival::kPoisson;
      else if (v2 != "linear")
        fail_opt(*pr, "expected linear or poisson");
    }
  }
  map_steadystate(r, sec, p, notes);
  if (const FioOption* o = r.find("thinktime")) {
    p.thinktime = r.time(*o, kUs);
    if (p.rate.open_loop() && p.thinktime > 0)
      fail_opt(*o, "expected no thinktime with rate (open-loop arrivals)");
  }
  if (const FioOption* o = r.find("thinktime_blocks"))
    p.thinktime_blocks = static_cast<std::uint32_t>(r.integer(*o, 1, 1 << 30));
  // Durability. On a raw block device fsync and fdatasync are both a
  // flush of the drive's volatile cache (NVMe Flush, SATA FLUSH CACHE),
  // and O_SYNC / O_DSYNC writes (sync=1, sync, dsync) go out with FUA.
  for (const char* k : {"fsync", "fdatasync"})
    if (const FioOption* o = r.find(k)) {
      const auto n = static_cast<std::uint32_t>(r.integer(*o, 0, 1 << 30));
      if (n) p.flush_every = p.flush_every ? std::min(p.flush_every, n) : n;
      if (n && p.rate.open_loop())
        fail_opt(*o,
                 "expected no fsync/fdatasync with rate or rate_iops (open-loop arrivals are "
                 "issued as they come, with no wait for a flush)");
    }
  p.end_flush = r.flag({"end_fsync"});
  if (const FioOption* o = r.find("sync")) {
    const std::string v = lower(o->value);
    if (o->flag || v == "1" || v == "sync" || v == "dsync")
      p.fua = true;
    else if (v != "0" && v != "none")
      fail_opt(*o, "expected none, 0, sync, 1 or dsync");
  }

  // Strided zones, or a zoned block device (zonemode=zbd, fio 3.35): writes
  // at the zones' write pointers (host/workload/zone_writer.h).
  const FioOption* zm = r.find("zonemode");
  const FioOption* zs = r.find("zonesize");
  const bool zbd = zm && lower(zm->value) == "zbd";
  if (zm) {
    const std::string v = lower(zm->value);
    if (v != "none" && v != "strided" && v != "zbd") fail_opt(*zm, "expected none, strided or zbd");
    if (v == "strided" && !zs) fail_opt(*zm, "expected a zonesize with zonemode=strided");
  }
  const FioOption* max_open = r.find_any({"max_open_zones", "job_max_open_zones"});
  const FioOption* append = r.find("zone_append");
  if (!zbd && (max_open || append))
    fail_opt(max_open ? *max_open : *append, "expected zonemode=zbd with this option");
  if (zbd) {
    // The zone size and capacity are the device's, as fio reads them.
    if (zs)
      notes.push_back("[" + sec.name +
                      "]: zonesize ignored with zonemode=zbd: the drive's zones are used");
    if (p.rw == RwKind::kWrite || p.rw == RwKind::kRandWrite) {
      p.zoned.enabled = true;
      // A sequential job writes one zone after another; a random one
      // spreads its writes over max_open_zones zones at their write pointers.
      if (max_open && p.rw == RwKind::kRandWrite)
        p.zoned.open_zones = static_cast<std::uint32_t>(r.integer(*max_open, 1, 4096));
      p.zoned.append = r.flag({"zone_append"});
      if (p.zoned.append) {
        const FioOption* engine = r.find("ioengine");
        const std::string e = engine ? lower(engine->value) : "psync";
        if (e != "io_uring" && e != "io_uring_cmd" && e != "libaio")
          fail_opt(*append,
                   "expected ioengine=io_uring_cmd, io_uring or libaio: zone append is an "
                   "asynchronous command whose completion carries the LBA");
      }
      if (!p.bssplit.empty() || p.bs_min != 0)
        fail_opt(*zm, "expected one transfer size (bs) with zonemode=zbd writes");
    } else if (p.rw != RwKind::kRead && p.rw != RwKind::kRandRead) {
      fail_opt(*zm, "expected rw=read, randread, write or randwrite with zonemode=zbd");
    }
  }
  if (zs && (!zm || lower(zm->value) == "strided")) {
    p.zone_size = r.bytes(*zs);
    p.zone_range = p.zone_size;
    if (const FioOption* o = r.find("zonerange")) p.zone_range = r.bytes(*o);
    if (const FioOption* o = r.find("zoneskip")) p.zone_skip = r.bytes(*o);
    if (p.zone_size == 0 || p.zone_range % kSectorBytes != 0 || p.zone_skip % kSectorBytes != 0 ||
        p.zone_range < p.bs)
      fail_opt(*zs,
               "expected zonesize above 0, and zonerange (at least one block) and zoneskip "
               "multiples of 4KiB");
    if (p.distribution.kind != RandomDist::kUniform)
      fail_opt(*zs, "expected random_distribution=random with strided zones");
  }

  // Replay of an iolog: a trace phase (host/trace), closed loop at iodepth
  // with replay_no_stall, else at the log's timestamps.
  if (const FioOption* o = r.find("read_iolog")) {
    std::string file = o->value;
    if (!fs::path(file).is_absolute() && !fs::exists(file))
      file = (fs::path(job_file).parent_path() / file).string();
    if (!fs::exists(file))
      fail_opt(*o, "cannot read the iolog (looked in the working folder and beside the job file)");
    p.rw = RwKind::kTrace;
    p.trace.file = file;
    p.trace.format = trace_format("fio");
    p.trace.replay.mode = r.flag({"replay_no_stall"}) ? ReplayMode::kClosed : ReplayMode::kOpen;
    p.trace.replay.iodepth = p.iodepth;
    p.trace.replay.map.mode = MapMode::kError;
    p.trace.replay.map.offset = p.offset;
    p.bs = p.trace.replay.max_transfer;
  }
  if (const FioOption* o = r.find("write_iolog")) {
    p.iolog_out = resolve_out(o->value, out_dir);
    p.iolog_device = m.info.name;
    if (const FioOption* f = r.find("filename")) p.iolog_device = f->value;
  }

  // Output.
  m.info.group_reporting = r.flag({"group_reporting"});
  if (const FioOption* o = r.find("write_bw_log"))
    m.info.bw_log = resolve_out(o->flag || o->value.empty() ? m.info.name : o->value, out_dir);
  if (const FioOption* o = r.find("write_iops_log"))
    m.info.iops_log = resolve_out(o->flag || o->value.empty() ? m.info.name : o->value, out_dir);
  if (const FioOption* o = r.find("write_lat_log"))
    m.info.lat_log = resolve_out(o->flag || o->value.empty() ? m.info.name : o->value, out_dir);
  const bool logs = !m.info.bw_log.empty() || !m.info.iops_log.empty() || !m.info.lat_log.empty();
  if (const FioOption* o = r.find("log_avg_msec")) m.info.log_avg = r.time(*o, kMs);
  if (logs && m.info.log_avg == 0)
    fail_at(sec.file, sec.line,
            "[" + sec.name +
                "]: write_*_log: expected log_avg_msec (logs are written "
                "per interval; a row per IO is not kept)");
  p.log_interval = m.info.log_avg;
  // fio samples bandwidth and IOPS every bwavgtime / iopsavgtime (500 ms);
  // averaged logs set the sampling interval too.
  p.sample_interval = m.info.log_avg ? m.info.log_avg : 500 * kMs;
  if (const FioOption* o = r.find_any({"bwavgtime", "iopsavgtime"}); o && !m.info.log_avg)
    p.sample_interval = r.time(*o, kMs);
  m.info.percentiles = kDefaultPercentiles;
  if (const FioOption* o = r.find("percentile_list")) {
    m.info.percentiles.clear();
    for (const std::string& s : split_at(o->value, ':')) {
      char* end = nullptr;
      const double x = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || x < 0 || x > 100)
        fail_opt(*o, "expected percentages from 0 to 100 separated by ':'");
      m.info.percentiles.push_back(x);
    }
    std::sort(m.info.percentiles.begin(), m.info.percentiles.end());
  }
  m.info.lat_percentiles = r.flag({"lat_percentiles"});
  p.stream_results = true;

  m.new_phase = r.flag({"stonewall", "wait_for_previous"});
  m.new_group = m.new_phase || r.flag({"new_group"});
  return m;
}

// The simulator judges steady state over a whole phase and stops all its
// streams at once: what fio does for the jobs of one reporting group with
// group_reporting. Jobs judged apart, or by different rules, it cannot run.
void check_phase_steadystate(const FioSection& sec, const PhaseSpec& phase,
                             const std::vector<FioJobInfo>& earlier, const FioJobInfo& job) {
  if (phase.streams() == 1) return;
  bool any = false, same = true;
  const UntilSteady& a = phase.until_steady;
  for (std::size_t k = 0; k < phase.streams(); ++k) {
    const UntilSteady& b = phase.stream(k).until_steady;
    any |= b.round != 0;
    same &= b.round == a.round && b.rounds == a.rounds && b.tolerance == a.tolerance &&
            b.slope_tolerance == a.slope_tolerance && b.after == a.after;
  }
  if (!any) return;
  bool grouped = job.group_reporting;
  for (const FioJobInfo& j : earlier)
    if (j.phase == job.phase) grouped &= j.group_reporting && j.groupid == job.groupid;
  if (!same || !grouped)
    fail_at(sec.file, sec.line,
            "[" + sec.name +
                "]: steadystate: the simulator judges steady state over all the jobs that run "
                "together (between stonewalls, numjobs clones included) and stops them at once: "
                "expected the same steadystate, ss_dur and ss_ramp on each, in one reporting "
                "group with group_reporting");
}

}  // namespace

FioWorkload load_fio_workload(const std::string& path, std::uint64_t user_bytes,
                              const std::string& out_dir, const Env& getenv,
                              const std::vector<std::uint64_t>& given_ns_bytes) {
  const std::vector<std::uint64_t> ns_bytes =
      given_ns_bytes.empty() ? std::vector<std::uint64_t>{0, user_bytes} : given_ns_bytes;
  const std::vector<FioSection> sections = read_fio_sections(path, getenv);
  FioWorkload w;
  w.workload.name = fs::path(path).filename().string();
  std::vector<FioOption> globals;
  std::uint32_t group = 0;
  std::size_t job_number = 0;
  std::set<std::string> phase_names;
  bool phase_fresh = false;         // the last phase has no stream yet
  std::vector<bool> own_seed;       // per phase: a job of it gave its own randseed
  std::uint64_t workload_seed = 1;  // the YAML default
  for (const FioSection& sec : sections) {
    if (sec.name == "global") {
      for (const FioOption& o : sec.options) {
        if (o.key == "randseed") {
          char* end = nullptr;
          workload_seed = std::strtoull(o.value.c_str(), &end, 10);
          if (o.value.empty() || *end != '\0') fail_opt(o, "expected an integer seed");
        }
        globals.push_back(o);
        if (!o.flag) w.global_options.emplace_back(o.key, o.value);
      }
      continue;
    }
    Job job;
    job.opts = globals;
    job.opts.insert(job.opts.end(), sec.options.begin(), sec.options.end());
    Mapped m = map_job(sec, job, ns_bytes, path, out_dir, w);
    // Concurrent streams: each seeded from randseed and its job number, so
    // none depends on the others. A job's own randseed gives it its own
    // stream even alone; [global]'s seeds the workload's.
    std::uint64_t base_seed = workload_seed;
    const FioOption* seed_opt = job.find("randseed");
    if (seed_opt) base_seed = std::strtoull(seed_opt->value.c_str(), nullptr, 10);
    bool job_seed = false;
    for (const FioOption& o : sec.options) job_seed |= o.key == "randseed";
    for (const FioOption& o : sec.options)
      if (!o.flag) m.info.options.emplace_back(o.key, o.value);
    const bool first = w.workload.phases.empty();
    if (!first && m.new_group) ++group;
    m.info.groupid = group;
    if (first || m.new_phase) {
      PhaseSpec phase;
      phase.stream_results = true;
      w.workload.phases.push_back(phase);
      own_seed.push_back(false);
      phase_fresh = true;
    }
    if (job_seed) own_seed.back() = true;
    const std::size_t pi = w.workload.phases.size() - 1;
    PhaseSpec& phase = w.workload.phases[pi];
    const bool phase_empty = phase_fresh;
    phase_fresh = false;
    m.info.phase = pi;
    m.info.first_stream = phase_empty ? 0 : phase.streams();
    m.info.numjobs = m.numjobs;
    for (std::uint32_t k = 0; k < m.numjobs; ++k) {
      PhaseSpec s = m.spec;
      s.offset += k * m.offset_increment;
      s.seed = (base_seed + job_number + 1) * 0x9E3779B97F4A7C15ull + 1;
      if (s.seed == 0) s.seed = 1;
      ++job_number;
      if (phase_empty && k == 0) {
        phase = s;
      } else {
        if (phase.rw == RwKind::kTrace || s.rw == RwKind::kTrace)
          fail_at(
              sec.file, sec.line,
              "[" + sec.name + "]: read_iolog: expected a job of its own (stonewall, numjobs=1)");
        phase.concurrent.push_back(s);
      }
    }
    check_phase_steadystate(sec, phase, w.jobs, m.info);
    // Phase names are unique (results are reported by phase name).
    if (m.info.first_stream == 0) {
      std::string name = phase.name;
      for (int n = 2; phase_names.count(name); ++n) name = phase.name + "_" + std::to_string(n);
      phase.name = phase.base_name = name;
      phase_names.insert(name);
    }
    w.jobs.push_back(m.info);
  }
  if (w.jobs.empty()) throw ConfigError(path + ": no job sections (only [global])");
  for (std::size_t i = 0; i < w.workload.phases.size(); ++i) {
    PhaseSpec& phase = w.workload.phases[i];
    phase.source_index = i;
    // A job running alone draws from the workload's random stream, as a
    // YAML phase does (so a job file and its YAML version issue the same
    // IOs); concurrent streams each draw from their own.
    if (phase.streams() == 1 && !own_seed[i]) phase.seed = 0;
    // The start delay every stream of a phase waits is idle time after the
    // phase before (fio starts the next group's jobs when the last one
    // ends, and they wait startdelay): counted with that phase, as a YAML
    // idle_after, so that the drive's work in it is not this phase's.
    if (i == 0) continue;
    Tick common = phase.start_delay;
    for (std::size_t k = 1; k < phase.streams(); ++k)
      common = std::min(common, phase.stream(k).start_delay);
    if (common == 0) continue;
    w.workload.phases[i - 1].idle_after += common;
    phase.start_delay -= common;
    for (PhaseSpec& c : phase.concurrent) c.start_delay -= common;
  }
  w.workload.seed = workload_seed;
  w.workload.latency_thresholds = {20 * kUs, 50 * kUs, 100 * kUs, 200 * kUs, 500 * kUs,
                                   1 * kMs,  5 * kMs,  10 * kMs,  50 * kMs,  100 * kMs};
  // An iolog's timestamps past what its replay can reach are bad lines for
  // `check` and `run` alike, as in a YAML trace phase.
  for (PhaseSpec& phase : w.workload.phases)
    if (phase.rw == RwKind::kTrace) phase.trace.limit_times(w.workload.interval);
  return w;
}

}  // namespace ssdtwin
