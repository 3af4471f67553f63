#include "app/fio_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "sim/config.h"
#include "sim/output_file.h"

namespace ssdtwin {

using Json = nlohmann::ordered_json;

FioOutputFormat parse_fio_output_format(const std::string& s) {
  if (s == "json") return FioOutputFormat::kJson;
  if (s == "json+") return FioOutputFormat::kJsonPlus;
  throw ConfigError("--output-format " + s +
                    ": expected json or json+ (fio.json is written in fio's JSON)");
}

namespace {

constexpr const char* kDirNames[3] = {"read", "write", "trim"};

// Adds `from`'s interval rows into `into`, placed by time (streams of a
// reporting group may have started apart).
void merge_rows(IntervalTotals& into, const IntervalTotals& from) {
  if (from.interval == 0) return;
  if (into.interval == 0) {
    into = from;
    return;
  }
  for (std::size_t i = 0; i < from.bins.size(); ++i) {
    const Tick t = from.start + i * from.interval;
    if (t < into.start) continue;
    const std::size_t j = static_cast<std::size_t>((t - into.start) / into.interval);
    if (j >= into.bins.size()) into.bins.resize(j + 1);
    for (int op = 0; op < IntervalTotals::kOps; ++op) {
      into.bins[j].bytes[op] += from.bins[i].bytes[op];
      into.bins[j].ios[op] += from.bins[i].ios[op];
      into.bins[j].latency_ns[op] += from.bins[i].latency_ns[op];
    }
  }
}

void merge_stream(StreamResult& into, const StreamResult& from, bool first) {
  if (first) {
    into = from;
    return;
  }
  for (int op = 0; op < StreamResult::kOps; ++op) {
    into.latency[op].merge(from.latency[op]);
    into.ios[op] += from.ios[op];
    into.bytes[op] += from.bytes[op];
  }
  into.start = std::min(into.start, from.start);
  into.end = std::max(into.end, from.end);
  into.syncs += from.syncs;
  into.sync_latency.merge(from.sync_latency);
  for (int i = 0; i < 7; ++i) into.depth_levels[i] += from.depth_levels[i];
  merge_rows(into.samples, from.samples);
}

// A stream's result, or for a replay (which keeps no streams) the phase's.
StreamResult stream_of(const PhaseResult& r, std::size_t k) {
  if (k < r.streams.size()) return r.streams[k];
  StreamResult s;
  for (int op = 0; op < StreamResult::kOps; ++op) {
    s.latency[op] = r.latency[op];
    s.ios[op] = r.ios[op];
    s.bytes[op] = r.bytes[op];
  }
  s.start = r.start;
  s.end = r.end;
  return s;
}

// A standard deviation from the histogram's buckets (each at most 3.1%
// wide, so within that of the exact figure), as the histogram keeps no sum
// of squares.
double stddev_of(const LatencyHistogram& h) {
  if (h.count() < 2) return 0.0;
  const double mean = h.mean();
  double sq = 0;
  for (std::size_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    const std::uint64_t n = h.bucket_count(b);
    if (!n) continue;
    const double mid = std::clamp(static_cast<double>(LatencyHistogram::bucket_low(b) +
                                                      LatencyHistogram::bucket_high(b) - 1) /
                                      2,
                                  static_cast<double>(h.min()), static_cast<double>(h.max()));
    sq += static_cast<double>(n) * (mid - mean) * (mid - mean);
  }
  return std::sqrt(sq / static_cast<double>(h.count() - 1));
}

std::string pct_key(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

struct SampleStats {
  std::uint64_t min = 0, max = 0, samples = 0;
  double mean = 0, dev = 0;
};

// fio's bw/iops samples: one per whole sampling interval of the job.
SampleStats sample_stats(const StreamResult& r, int op, bool iops) {
  SampleStats s;
  const IntervalTotals& t = r.samples;
  if (t.interval == 0 || r.ios[op] == 0) return s;
  const std::size_t whole = static_cast<std::size_t>((r.end - r.start) / t.interval);
  const double secs = to_seconds(t.interval);
  std::vector<double> v;
  for (std::size_t i = 0; i < whole; ++i) {
    const IntervalTotals::Bin b = i < t.bins.size() ? t.bins[i] : IntervalTotals::Bin{};
    v.push_back(iops ? static_cast<double>(b.ios[op]) / secs
                     : static_cast<double>(b.bytes[op]) / 1024.0 / secs);
  }
  if (v.empty()) return s;
  s.samples = v.size();
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (const double x : v) sq += (x - s.mean) * (x - s.mean);
  s.dev = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0.0;
  s.min = static_cast<std::uint64_t>(*std::min_element(v.begin(), v.end()));
  s.max = static_cast<std::uint64_t>(*std::max_element(v.begin(), v.end()));
  return s;
}

// A fio.json key: fio's name for it, its unit and meaning, and how it is
// read from `Source` (`arg` lets one function serve a family: the same key
// per direction). A discarded value leaves the key out, as fio leaves out
// percentiles and bins it has no data for.
template <class Source>
struct FioKey {
  const char* name;
  const char* unit;
  const char* description;
  Json (*value)(const Source& src, int arg);
  int arg = 0;
};

template <class Source>
using FioKeys = std::vector<FioKey<Source>>;

Json left_out() { return Json(Json::value_t::discarded); }

// An object of `keys`, in table order: the order fio writes them in.
template <class Source>
Json object_of(const FioKeys<Source>& keys, const Source& src) {
  Json j = Json::object();
  for (const FioKey<Source>& k : keys)
    if (Json v = k.value(src, k.arg); !v.is_discarded()) j[k.name] = std::move(v);
  return j;
}

// Fields fio fills with a constant the simulator has no figure for.
template <class Source>
Json zero(const Source&, int) {
  return 0;
}
template <class Source>
Json zero_real(const Source&, int) {
  return 0.0;
}

Json options_json(const std::vector<std::pair<std::string, std::string>>& options) {
  Json o = Json::object();
  for (const auto& [k, v] : options) o[k] = v;
  return o;
}

// --- fio's latency statistic (slat_ns, clat_ns, lat_ns, sync.lat_ns) -----
struct LatView {
  const LatencyHistogram* h;       // nullptr: a statistic not modelled (empty)
  const std::vector<double>* pct;  // the percentiles asked for, if any
  bool bins;                       // json+: the histogram's bins
  bool any() const { return h && h->count() > 0; }
};
Json lat_min(const LatView& v, int) { return v.any() ? v.h->min() : Tick{0}; }
Json lat_max(const LatView& v, int) { return v.any() ? v.h->max() : Tick{0}; }
Json lat_mean(const LatView& v, int) { return v.any() ? v.h->mean() : 0.0; }
Json lat_stddev(const LatView& v, int) { return v.any() ? stddev_of(*v.h) : 0.0; }
Json lat_n(const LatView& v, int) { return v.any() ? v.h->count() : std::uint64_t{0}; }
Json lat_percentile(const LatView& v, int) {
  if (!v.any() || !v.pct) return left_out();
  Json p = Json::object();
  for (const double q : *v.pct) p[pct_key(q)] = v.h->percentile(q / 100.0);
  return p;
}
// At the simulator's bucket midpoints (value in ns -> IOs).
Json lat_bins(const LatView& v, int) {
  if (!v.any() || !v.bins) return left_out();
  const LatencyHistogram& h = *v.h;
  Json b = Json::object();
  for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i)
    if (const std::uint64_t n = h.bucket_count(i))
      b[std::to_string(
          std::clamp((LatencyHistogram::bucket_low(i) + LatencyHistogram::bucket_high(i) - 1) / 2,
                     h.min(), h.max()))] = n;
  return b;
}

const FioKeys<LatView>& lat_keys() {
  static const FioKeys<LatView> keys = {
      {"min", "ns", "fastest", lat_min},
      {"max", "ns", "slowest", lat_max},
      {"mean", "ns", "mean", lat_mean},
      {"stddev", "ns", "standard deviation, from the histogram's buckets", lat_stddev},
      {"N", "IOs", "IOs measured", lat_n},
      {"percentile", "ns", "at each percentile asked for (percentile_list), keyed \"99.000000\"",
       lat_percentile},
      {"bins", "IOs", "json+: IOs per latency (ns, at bucket midpoints)", lat_bins},
  };
  return keys;
}

// --- A job's entry: its own figures or its reporting group's --------------
struct Entry {
  const FioJobInfo* info;
  StreamResult r;
  Tick phase_start = 0;
};

struct JobView {
  const Entry& e;
  const double* group_bw_kib;  // per direction: the group's aggregate bandwidth (KiB/s)
  bool plus;
};

// --- One direction of a job: read, write or trim --------------------------
struct DirView {
  const JobView& job;
  int op;
  SampleStats bw, iops;  // sample_stats of the direction (bw in KiB/s)
  std::uint64_t ios() const { return job.e.r.ios[op]; }
  std::uint64_t bytes() const { return job.e.r.bytes[op]; }
  Tick runtime() const { return ios() ? std::max<Tick>(job.e.r.end - job.e.r.start, 1) : 0; }
  std::uint64_t bw_bytes() const {
    return ios() ? static_cast<std::uint64_t>(static_cast<double>(bytes()) / to_seconds(runtime()))
                 : 0;
  }
};
Json io_bytes(const DirView& v, int) { return v.bytes(); }
Json io_kbytes(const DirView& v, int) { return v.bytes() >> 10; }
Json bw_bytes(const DirView& v, int) { return v.bw_bytes(); }
Json bw_kib(const DirView& v, int) { return v.bw_bytes() >> 10; }
Json dir_iops(const DirView& v, int) {
  return v.ios() ? static_cast<double>(v.ios()) / to_seconds(v.runtime()) : 0.0;
}
Json dir_runtime(const DirView& v, int) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(v.runtime()) / 1e6));
}
Json total_ios(const DirView& v, int) { return v.ios(); }
// No submission latency: the host model issues a command as it is due
// (fio leaves slat empty the same way for engines that do not time it).
Json slat(const DirView&, int) { return object_of(lat_keys(), LatView{nullptr, nullptr, false}); }
Json clat(const DirView& v, int) {
  const FioJobInfo& info = *v.job.e.info;
  return object_of(lat_keys(), LatView{&v.job.e.r.latency[v.op], &info.percentiles, v.job.plus});
}
Json lat(const DirView& v, int) {
  const FioJobInfo& info = *v.job.e.info;
  return object_of(lat_keys(), LatView{&v.job.e.r.latency[v.op],
                                       info.lat_percentiles ? &info.percentiles : nullptr,
                                       v.job.plus && info.lat_percentiles});
}
// arg: 0 the bandwidth samples, 1 the IOPS samples.
template <auto M>
Json sample(const DirView& v, int arg) {
  return (arg ? v.iops : v.bw).*M;
}
Json bw_agg(const DirView& v, int) {
  const double group = v.job.group_bw_kib[v.op];
  return group > 0 && v.bw.samples ? v.bw.mean * 100.0 / group : 0.0;
}

const FioKeys<DirView>& dir_keys() {
  static const FioKeys<DirView> keys = {
      {"io_bytes", "B", "bytes transferred in the measured window", io_bytes},
      {"io_kbytes", "KiB", "the same in KiB", io_kbytes},
      {"bw_bytes", "B/s", "bandwidth over the window", bw_bytes},
      {"bw", "KiB/s", "the same in KiB/s", bw_kib},
      {"iops", "IOPS", "IOs per simulated second", dir_iops},
      {"runtime", "ms", "the measured window (0 without IOs)", dir_runtime},
      {"total_ios", "IOs", "IOs completed", total_ios},
      {"short_ios", "IOs", "0: no short IOs are modelled", zero<DirView>},
      {"drop_ios", "IOs", "0: no IO is dropped", zero<DirView>},
      {"slat_ns", "ns", "submission latency: empty, none is modelled", slat},
      {"clat_ns", "ns", "completion latency, issue to completion", clat},
      {"lat_ns", "ns", "total latency, the same (percentiles with lat_percentiles)", lat},
      {"bw_min", "KiB/s", "lowest bandwidth sample (one per bwavgtime)", sample<&SampleStats::min>},
      {"bw_max", "KiB/s", "highest bandwidth sample", sample<&SampleStats::max>},
      {"bw_agg", "%", "the job's share of its reporting group's bandwidth", bw_agg},
      {"bw_mean", "KiB/s", "mean bandwidth sample", sample<&SampleStats::mean>},
      {"bw_dev", "KiB/s", "standard deviation of the bandwidth samples", sample<&SampleStats::dev>},
      {"bw_samples", "samples", "bandwidth samples (whole intervals)",
       sample<&SampleStats::samples>},
      {"iops_min", "IOPS", "lowest IOPS sample", sample<&SampleStats::min>, 1},
      {"iops_max", "IOPS", "highest IOPS sample", sample<&SampleStats::max>, 1},
      {"iops_mean", "IOPS", "mean IOPS sample", sample<&SampleStats::mean>, 1},
      {"iops_stddev", "IOPS", "standard deviation of the IOPS samples", sample<&SampleStats::dev>,
       1},
      {"iops_samples", "samples", "IOPS samples (whole intervals)", sample<&SampleStats::samples>,
       1},
  };
  return keys;
}

// --- A job's Flush commands (fsync, fdatasync, end_fsync) -----------------
Json sync_ios(const JobView& v, int) { return v.e.r.syncs; }
// Each fsync / fdatasync is a Flush command: its latency, issue to completion.
Json sync_lat(const JobView& v, int) {
  return object_of(lat_keys(), LatView{&v.e.r.sync_latency, nullptr, false});
}

const FioKeys<JobView>& sync_keys() {
  static const FioKeys<JobView> keys = {
      {"total_ios", "commands", "Flush commands completed", sync_ios},
      {"lat_ns", "ns", "their latency, issue to completion (no percentiles)", sync_lat},
  };
  return keys;
}

// --- A job (or a reporting group) -----------------------------------------
Json jobname(const JobView& v, int) { return v.e.info->name; }
Json groupid(const JobView& v, int) { return v.e.info->groupid; }
Json elapsed(const JobView& v, int) {
  const Tick phase_end = std::max(v.e.r.end, v.e.phase_start);
  return static_cast<std::uint64_t>(std::ceil(to_seconds(phase_end - v.e.phase_start)));
}
Json job_options(const JobView& v, int) { return options_json(v.e.info->options); }
Json direction(const JobView& v, int op) {
  const DirView d{v, op, sample_stats(v.e.r, op, false), sample_stats(v.e.r, op, true)};
  return object_of(dir_keys(), d);
}
Json sync(const JobView& v, int) { return object_of(sync_keys(), v); }
Json job_runtime(const JobView& v, int) {
  return static_cast<std::uint64_t>(
      std::llround(static_cast<double>(v.e.r.end - v.e.r.start) / 1e6));
}
std::uint64_t issued(const StreamResult& r) {
  std::uint64_t n = 0;
  for (const std::uint64_t d : r.depth_levels) n += d;
  return n;
}
Json iodepth_level(const JobView& v, int) {
  static const char* kLevels[7] = {"1", "2", "4", "8", "16", "32", ">=64"};
  const std::uint64_t all = issued(v.e.r);
  Json level;
  for (int i = 0; i < 7; ++i)
    level[kLevels[i]] =
        all ? 100.0 * static_cast<double>(v.e.r.depth_levels[i]) / static_cast<double>(all) : 0.0;
  return level;
}
// Commands are submitted and reaped one at a time: every call moves 1-4.
Json iodepth_batch(const JobView& v, int) {
  static const char* kBatch[7] = {"0", "4", "8", "16", "32", "64", ">=64"};
  const bool any = issued(v.e.r) > 0;
  Json batch;
  for (int i = 0; i < 7; ++i) batch[kBatch[i]] = any && i == 1 ? 100.0 : 0.0;
  return batch;
}
// fio's latency_ns/us/ms tables: the share of IOs (%) in each bucket up to
// its bound, from the histogram of every direction; arg: 0 ns, 1 us, 2 ms.
Json latency_table(const JobView& v, int arg) {
  LatencyHistogram h;
  for (int op = 0; op < 3; ++op) h.merge(v.e.r.latency[op]);
  std::vector<double> bounds = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
  const Tick unit = arg == 0 ? kNs : arg == 1 ? kUs : kMs;
  const Tick below = arg == 0 ? 0 : unit;  // the previous table's end: 1000 of its unit
  const bool open_end = arg == 2;
  if (open_end) bounds.push_back(2000);
  Json j;
  double prev = h.count() ? h.share_below(below + 1) : 0;
  char key[16];
  for (const double b : bounds) {
    const double cur = h.count() ? h.share_below(static_cast<Tick>(b) * unit + 1) : 0;
    std::snprintf(key, sizeof key, "%g", b);
    j[key] = std::max(0.0, (cur - prev) * 100.0);
    prev = cur;
  }
  // fio names its last, open bucket after the bound before it.
  std::snprintf(key, sizeof key, ">=%g", bounds.back());
  if (open_end) j[key] = h.count() ? std::max(0.0, (1.0 - prev) * 100.0) : 0.0;
  return j;
}
Json latency_depth(const JobView& v, int) { return v.e.info->iodepth; }
Json latency_percentile(const JobView&, int) { return 100.0; }

const FioKeys<JobView>& job_keys() {
  static const FioKeys<JobView> keys = [] {
    FioKeys<JobView> t = {
        {"jobname", "name", "the job's name", jobname},
        {"groupid", "index", "its reporting group", groupid},
        {"error", "code", "0: no errors are modelled", zero<JobView>},
        {"eta", "s", "0: the run is over", zero<JobView>},
        {"elapsed", "s", "simulated seconds from the phase's start, rounded up", elapsed},
        {"job options", "text", "the job's own options as the file gives them", job_options},
    };
    for (int op = 0; op < 3; ++op)
      t.push_back({kDirNames[op], "block", "this direction's figures (the keys of read|write|trim)",
                   direction, op});
    const FioKeys<JobView> rest = {
        {"sync", "block", "Flush commands (the keys of sync)", sync},
        {"job_runtime", "ms", "the measured window", job_runtime},
        {"usr_cpu", "%", "0: no host CPU is modelled", zero_real<JobView>},
        {"sys_cpu", "%", "0: no host CPU is modelled", zero_real<JobView>},
        {"ctx", "switches", "0: no host CPU is modelled", zero<JobView>},
        {"majf", "faults", "0: no host CPU is modelled", zero<JobView>},
        {"minf", "faults", "0: no host CPU is modelled", zero<JobView>},
        {"iodepth_level", "%", "commands outstanding at each issue, in fio's buckets",
         iodepth_level},
        {"iodepth_submit", "%", "100 in 4 (1-4): commands are submitted one at a time",
         iodepth_batch},
        {"iodepth_complete", "%", "100 in 4 (1-4): commands are reaped one at a time",
         iodepth_batch},
        {"latency_ns", "%", "IOs (all directions) in each bucket of 2-1000 ns", latency_table, 0},
        {"latency_us", "%", "IOs in each bucket of 2-1000 us", latency_table, 1},
        {"latency_ms", "%", "IOs in each bucket of 2-2000 ms and beyond", latency_table, 2},
        {"latency_depth", "commands", "the job's iodepth", latency_depth},
        {"latency_target", "us", "0: no latency target", zero<JobView>},
        {"latency_percentile", "%", "100: no latency target", latency_percentile},
        {"latency_window", "us", "0: no latency target", zero<JobView>},
    };
    t.insert(t.end(), rest.begin(), rest.end());
    return t;
  }();
  return keys;
}

// The reported entries: each job, or each reporting group merged (fio's
// group_reporting), in file order.
std::vector<Entry> entries_of(const FioWorkload& fio, const RunReport& report) {
  std::vector<Entry> out;
  for (std::size_t j = 0; j < fio.jobs.size(); ++j) {
    const FioJobInfo& info = fio.jobs[j];
    if (info.phase >= report.phases.size()) continue;  // a run cut short
    const PhaseReport& pr = report.phases[info.phase];
    const Tick phase_start = pr.result.start;
    auto add = [&](Entry& e, std::size_t k, bool first) {
      merge_stream(e.r, stream_of(pr.result, k), first);
    };
    if (info.group_reporting && !out.empty() && out.back().info->group_reporting &&
        out.back().info->groupid == info.groupid) {
      for (std::uint32_t k = 0; k < info.numjobs; ++k)
        add(out.back(), info.first_stream + k, false);
      continue;
    }
    if (info.group_reporting) {
      Entry e{&info, {}, phase_start};
      for (std::uint32_t k = 0; k < info.numjobs; ++k) add(e, info.first_stream + k, k == 0);
      out.push_back(std::move(e));
    } else {
      for (std::uint32_t k = 0; k < info.numjobs; ++k) {
        Entry e{&info, {}, phase_start};
        add(e, info.first_stream + k, true);
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

// --- The drive (disk_util): the whole run's host commands -----------------
struct DiskView {
  const Drive& drive;
  const RunReport& report;
  std::uint64_t ios[3] = {};
  double ticks[3] = {};  // ms of latency summed
  Tick busy = 0;
};
DiskView disk_of(const Drive& drive, const RunReport& report) {
  DiskView d{drive, report};
  for (const PhaseReport& p : report.phases) {
    for (int op = 0; op < 3; ++op) {
      d.ios[op] += p.result.ios[op];
      d.ticks[op] +=
          p.result.latency[op].mean() * static_cast<double>(p.result.latency[op].count()) / 1e6;
    }
    d.busy += p.result.busy;
  }
  return d;
}
Json disk_name(const DiskView& d, int) { return d.drive.hif_cfg.protocol->block_device(); }
Json disk_ios(const DiskView& d, int op) { return d.ios[op]; }
Json disk_ticks(const DiskView& d, int op) {
  return static_cast<std::uint64_t>(std::llround(d.ticks[op]));
}
Json in_queue(const DiskView& d, int) {
  return static_cast<std::uint64_t>(std::llround(d.ticks[0] + d.ticks[1] + d.ticks[2]));
}
Json util(const DiskView& d, int) {
  const Tick end = d.report.sim_end;
  return end > 0 ? std::min(100.0, 100.0 * static_cast<double>(d.busy) / static_cast<double>(end))
                 : 0.0;
}

const FioKeys<DiskView>& disk_keys() {
  static const FioKeys<DiskView> keys = {
      {"name", "name", "the block device (nvme0n1 or sda)", disk_name},
      {"read_ios", "IOs", "host reads completed", disk_ios, 0},
      {"write_ios", "IOs", "host writes completed", disk_ios, 1},
      {"read_merges", "IOs", "0: no merging is modelled", zero<DiskView>},
      {"write_merges", "IOs", "0: no merging is modelled", zero<DiskView>},
      {"read_ticks", "ms", "read latency summed", disk_ticks, 0},
      {"write_ticks", "ms", "write latency summed", disk_ticks, 1},
      {"in_queue", "ms", "latency of every direction summed", in_queue},
      {"util", "%", "simulated time with a command outstanding", util},
  };
  return keys;
}

// --- The whole output -----------------------------------------------------
struct RunView {
  const Drive& drive;
  const FioWorkload& fio;
  const RunReport& report;
  bool plus;
  // Simulated time from the epoch, so that a run's output is the same every
  // time it is run.
  std::time_t secs() const { return static_cast<std::time_t>(report.sim_end / kSec); }
};
// The fio release whose output this reproduces (scripts check it).
Json fio_version(const RunView&, int) { return "fio-3.33"; }
Json timestamp(const RunView& v, int) { return static_cast<std::uint64_t>(v.secs()); }
Json timestamp_ms(const RunView& v, int) {
  return static_cast<std::uint64_t>(v.report.sim_end / kMs);
}
Json time_text(const RunView& v, int) {
  const std::time_t secs = v.secs();
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char when[64];
  std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
  return when;
}
Json global_options(const RunView& v, int) { return options_json(v.fio.global_options); }
Json jobs(const RunView& v, int) {
  const std::vector<Entry> entries = entries_of(v.fio, v.report);
  // Each group's aggregate bandwidth (KiB/s) per direction, for bw_agg.
  std::vector<std::array<double, 3>> group_bw;
  for (const Entry& e : entries) {
    if (group_bw.size() <= e.info->groupid) group_bw.resize(e.info->groupid + 1, {0, 0, 0});
    for (int op = 0; op < 3; ++op)
      group_bw[e.info->groupid][op] += sample_stats(e.r, op, false).mean;
  }
  Json out = Json::array();
  for (const Entry& e : entries)
    out.push_back(object_of(job_keys(), JobView{e, group_bw[e.info->groupid].data(), v.plus}));
  return out;
}
Json disk_util(const RunView& v, int) {
  return Json::array({object_of(disk_keys(), disk_of(v.drive, v.report))});
}

const FioKeys<RunView>& run_keys() {
  static const FioKeys<RunView> keys = {
      {"fio version", "text", "fio-3.33, the release whose output format is reproduced",
       fio_version},
      {"timestamp", "s", "the simulated clock at the end of the run, from the epoch", timestamp},
      {"timestamp_ms", "ms", "the same in ms", timestamp_ms},
      {"time", "text", "the same as a date", time_text},
      {"global options", "text", "the [global] options as the file gives them", global_options},
      {"jobs", "block", "one entry per job (clones included) or reporting group", jobs},
      {"disk_util", "block", "one entry: the drive", disk_util},
  };
  return keys;
}

template <class Source>
FioBlockDoc doc_of(const char* path, const char* description, const FioKeys<Source>& keys) {
  FioBlockDoc d{path, description, {}};
  for (const FioKey<Source>& k : keys) d.keys.push_back({k.name, k.unit, k.description});
  return d;
}

}  // namespace

Json fio_json(const Drive& drive, const FioWorkload& fio, const RunReport& report,
              FioOutputFormat format) {
  return object_of(run_keys(), RunView{drive, fio, report, format == FioOutputFormat::kJsonPlus});
}

namespace {

// fio's averaged log rows: "msec, value, ddir, bs, prio", bs 0 when averaged.
void write_log(const std::string& path, const StreamResult& r, int kind) {
  OutputFile f(path);
  const IntervalTotals& t = r.log;
  bool dirs[3] = {};
  for (int op = 0; op < 3; ++op) dirs[op] = r.ios[op] > 0;
  // Whole intervals of the measured window, as fio's bw/iops samples: the
  // commands completing after the runtime do not make a short last row.
  const std::size_t whole =
      std::min<std::size_t>(t.bins.size(), (r.end - r.start) / std::max<Tick>(t.interval, 1));
  for (std::size_t i = 0; i < whole; ++i) {
    const Tick to = (i + 1) * t.interval;
    const double secs = to_seconds(t.interval);
    for (int op = 0; op < 3; ++op) {
      if (!dirs[op]) continue;
      const IntervalTotals::Bin& b = t.bins[i];
      double v = 0;
      if (kind == 0)
        v = static_cast<double>(b.bytes[op]) / 1024.0 / secs;
      else if (kind == 1)
        v = static_cast<double>(b.ios[op]) / secs;
      else if (b.ios[op] == 0)
        continue;  // no latency to average
      else
        v = b.latency_ns[op] / static_cast<double>(b.ios[op]);
      char line[96];
      std::snprintf(line, sizeof line, "%llu, %llu, %d, 0, 0\n",
                    static_cast<unsigned long long>(to / kMs),
                    static_cast<unsigned long long>(std::llround(v)), op);
      f << line;
    }
  }
  f.commit();
}

}  // namespace

namespace {

// --- The job file as run (summary.json's resolved config) -----------------
struct JobFileView {
  const FioWorkload& fio;
  const std::string& path;
};
struct JobInfoView {
  const FioWorkload& fio;
  const FioJobInfo& info;
};
Json info_name(const JobInfoView& v, int) { return v.info.name; }
Json info_phase(const JobInfoView& v, int) { return v.fio.workload.phases[v.info.phase].name; }
Json info_numjobs(const JobInfoView& v, int) { return v.info.numjobs; }
Json info_groupid(const JobInfoView& v, int) { return v.info.groupid; }
Json info_options(const JobInfoView& v, int) { return options_json(v.info.options); }

const FioKeys<JobInfoView>& job_info_keys() {
  static const FioKeys<JobInfoView> keys = {
      {"name", "name", "the job's name", info_name},
      {"phase", "name", "the phase it ran in (one per group of jobs between stonewalls)",
       info_phase},
      {"numjobs", "jobs", "its clones", info_numjobs},
      {"groupid", "index", "its reporting group", info_groupid},
      {"options", "text", "its own options as the file gives them", info_options},
  };
  return keys;
}

Json job_file(const JobFileView& v, int) { return v.path; }
Json file_global_options(const JobFileView& v, int) { return options_json(v.fio.global_options); }
Json file_jobs(const JobFileView& v, int) {
  Json jobs = Json::array();
  for (const FioJobInfo& info : v.fio.jobs)
    jobs.push_back(object_of(job_info_keys(), JobInfoView{v.fio, info}));
  return jobs;
}
Json ignored(const JobFileView& v, int) {
  Json out = Json::array();
  for (const auto& o : v.fio.ignored) out.push_back(o);
  return out;
}

const FioKeys<JobFileView>& job_file_keys() {
  static const FioKeys<JobFileView> keys = {
      {"fio_file", "path", "the job file", job_file},
      {"global options", "text", "the [global] options as the file gives them",
       file_global_options},
      {"jobs", "block", "one entry per job section", file_jobs},
      {"ignored", "text", "host-only options accepted and ignored, once each", ignored},
  };
  return keys;
}

}  // namespace

Json fio_job_json(const FioWorkload& fio, const std::string& path) {
  return object_of(job_file_keys(), JobFileView{fio, path});
}

std::vector<FioBlockDoc> fio_blocks() {
  return {
      doc_of("fio.json", "fio's --output-format=json (json+: with latency bins)", run_keys()),
      doc_of("fio.json jobs[]", "per job, or per reporting group with group_reporting", job_keys()),
      doc_of("fio.json jobs[].read|write|trim", "per direction, the same keys", dir_keys()),
      doc_of("fio.json jobs[].sync", "Flush commands", sync_keys()),
      doc_of("fio.json jobs[].*.slat_ns|clat_ns|lat_ns, jobs[].sync.lat_ns",
             "a latency statistic, the same keys", lat_keys()),
      doc_of("fio.json disk_util[]", "the drive over the whole run", disk_keys()),
      doc_of("summary.json config.workload (a run of an fio job file)", "the job file as run",
             job_file_keys()),
      doc_of("summary.json config.workload.jobs[]", "per job section", job_info_keys()),
  };
}

void print_fio_keys(std::FILE* out) {
  std::fprintf(out, "\nfio output: fio.json's keys (fio's names) and the job file as run\n");
  for (const FioBlockDoc& b : fio_blocks()) {
    std::fprintf(out, "\n%s: %s\n", b.path, b.description);
    for (const FioKeyDoc& k : b.keys)
      std::fprintf(out, "  %-42s %-11s %s\n", k.name, k.unit, k.description);
  }
}

void prepare_fio_outputs(const FioWorkload& fio) {
  for (const PhaseSpec& p : fio.workload.phases)
    for (std::size_t k = 0; k < p.streams(); ++k)
      if (!p.stream(k).iolog_out.empty()) remove_output_file(p.stream(k).iolog_out);
}

void write_fio_results(const std::string& out_dir, const Drive& drive, const FioWorkload& fio,
                       const RunReport& report, FioOutputFormat format) {
  std::size_t job_number = 0;  // fio numbers every job, clones included, from 1
  for (const FioJobInfo& info : fio.jobs) {
    for (std::uint32_t k = 0; k < info.numjobs; ++k) {
      const std::string n = "." + std::to_string(++job_number) + ".log";
      if (info.phase >= report.phases.size()) continue;
      const StreamResult r = stream_of(report.phases[info.phase].result, info.first_stream + k);
      if (!info.bw_log.empty()) write_log(info.bw_log + "_bw" + n, r, 0);
      if (!info.iops_log.empty()) write_log(info.iops_log + "_iops" + n, r, 1);
      if (!info.lat_log.empty()) {
        write_log(info.lat_log + "_lat" + n, r, 2);
        write_log(info.lat_log + "_clat" + n, r, 2);
        // No submission latency is modelled (slat_ns is empty): no rows.
        write_output_file(info.lat_log + "_slat" + n, "");
      }
    }
  }
  write_output_file(out_dir + "/fio.json", fio_json(drive, fio, report, format).dump(2) + "\n");
}

}  // namespace ssdtwin
