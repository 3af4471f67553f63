#include "app/fio_report.h"

#include <algorithm>
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

// fio's latency statistic: min, max, mean, stddev, N; percentiles when
// asked and there is data; json+ adds the histogram's bins (value in ns ->
// IOs), at the simulator's bucket midpoints.
Json lat_json(const LatencyHistogram* h, const std::vector<double>* pct, bool bins) {
  Json j;
  const bool any = h && h->count() > 0;
  j["min"] = any ? h->min() : Tick{0};
  j["max"] = any ? h->max() : Tick{0};
  j["mean"] = any ? h->mean() : 0.0;
  j["stddev"] = any ? stddev_of(*h) : 0.0;
  j["N"] = any ? h->count() : std::uint64_t{0};
  if (any && pct) {
    Json p = Json::object();
    for (const double q : *pct) p[pct_key(q)] = h->percentile(q / 100.0);
    j["percentile"] = p;
  }
  if (any && bins) {
    Json b = Json::object();
    for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i)
      if (const std::uint64_t n = h->bucket_count(i))
        b[std::to_string(
            std::clamp((LatencyHistogram::bucket_low(i) + LatencyHistogram::bucket_high(i) - 1) / 2,
                       h->min(), h->max()))] = n;
    j["bins"] = b;
  }
  return j;
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

Json dir_json(const StreamResult& r, int op, const FioJobInfo& info, double group_bw_kib,
              bool plus) {
  const std::uint64_t ios = r.ios[op], bytes = r.bytes[op];
  const Tick runtime = ios ? std::max<Tick>(r.end - r.start, 1) : 0;
  const double secs = to_seconds(runtime);
  Json j;
  j["io_bytes"] = bytes;
  j["io_kbytes"] = bytes >> 10;
  const std::uint64_t bw_bytes =
      ios ? static_cast<std::uint64_t>(static_cast<double>(bytes) / secs) : 0;
  j["bw_bytes"] = bw_bytes;
  j["bw"] = bw_bytes >> 10;
  j["iops"] = ios ? static_cast<double>(ios) / secs : 0.0;
  j["runtime"] = static_cast<std::uint64_t>(std::llround(static_cast<double>(runtime) / 1e6));
  j["total_ios"] = ios;
  j["short_ios"] = 0;
  j["drop_ios"] = 0;
  // No submission latency: the host model issues a command as it is due
  // (fio leaves slat empty the same way for engines that do not time it).
  j["slat_ns"] = lat_json(nullptr, nullptr, false);
  j["clat_ns"] = lat_json(&r.latency[op], &info.percentiles, plus);
  j["lat_ns"] = lat_json(&r.latency[op], info.lat_percentiles ? &info.percentiles : nullptr,
                         plus && info.lat_percentiles);
  const SampleStats bw = sample_stats(r, op, false);
  j["bw_min"] = bw.min;
  j["bw_max"] = bw.max;
  j["bw_agg"] = group_bw_kib > 0 && bw.samples ? bw.mean * 100.0 / group_bw_kib : 0.0;
  j["bw_mean"] = bw.mean;
  j["bw_dev"] = bw.dev;
  j["bw_samples"] = bw.samples;
  const SampleStats io = sample_stats(r, op, true);
  j["iops_min"] = io.min;
  j["iops_max"] = io.max;
  j["iops_mean"] = io.mean;
  j["iops_stddev"] = io.dev;
  j["iops_samples"] = io.samples;
  return j;
}

// fio's latency_ns/us/ms tables: the share of IOs (%) in each bucket up to
// its bound, from the histogram of every direction.
Json latency_table(const LatencyHistogram& h, const std::vector<double>& bounds, Tick unit,
                   bool open_end, Tick below) {
  Json j;
  double prev = h.count() ? h.share_below(below + 1) : 0;
  for (const double b : bounds) {
    const double cur = h.count() ? h.share_below(static_cast<Tick>(b) * unit + 1) : 0;
    char key[16];
    std::snprintf(key, sizeof key, "%g", b);
    j[key] = std::max(0.0, (cur - prev) * 100.0);
    prev = cur;
  }
  if (open_end) j[">=2000"] = h.count() ? std::max(0.0, (1.0 - prev) * 100.0) : 0.0;
  return j;
}

struct Entry {
  const FioJobInfo* info;
  StreamResult r;
  Tick phase_start = 0;
};

Json job_json(const Entry& e, double group_bw_kib[3], const RunReport& report, bool plus) {
  const FioJobInfo& info = *e.info;
  const StreamResult& r = e.r;
  Json j;
  j["jobname"] = info.name;
  j["groupid"] = info.groupid;
  j["error"] = 0;
  j["eta"] = 0;
  const Tick phase_end = std::max(r.end, e.phase_start);
  j["elapsed"] = static_cast<std::uint64_t>(std::ceil(to_seconds(phase_end - e.phase_start)));
  Json opts = Json::object();
  for (const auto& [k, v] : info.options) opts[k] = v;
  j["job options"] = opts;
  for (int op = 0; op < 3; ++op) j[kDirNames[op]] = dir_json(r, op, info, group_bw_kib[op], plus);
  Json sync;
  sync["total_ios"] = r.syncs;
  // Each fsync / fdatasync is a Flush command: its latency, issue to completion.
  sync["lat_ns"] = lat_json(&r.sync_latency, nullptr, false);
  j["sync"] = sync;
  j["job_runtime"] =
      static_cast<std::uint64_t>(std::llround(static_cast<double>(r.end - r.start) / 1e6));
  j["usr_cpu"] = 0.0;
  j["sys_cpu"] = 0.0;
  j["ctx"] = 0;
  j["majf"] = 0;
  j["minf"] = 0;
  std::uint64_t issued = 0;
  for (const std::uint64_t n : r.depth_levels) issued += n;
  Json level;
  static const char* kLevels[7] = {"1", "2", "4", "8", "16", "32", ">=64"};
  for (int i = 0; i < 7; ++i)
    level[kLevels[i]] =
        issued ? 100.0 * static_cast<double>(r.depth_levels[i]) / static_cast<double>(issued) : 0.0;
  j["iodepth_level"] = level;
  // Commands are submitted and reaped one at a time: every call moves 1-4.
  static const char* kBatch[7] = {"0", "4", "8", "16", "32", "64", ">=64"};
  Json batch;
  for (int i = 0; i < 7; ++i) batch[kBatch[i]] = issued && i == 1 ? 100.0 : 0.0;
  j["iodepth_submit"] = batch;
  j["iodepth_complete"] = batch;
  LatencyHistogram all;
  for (int op = 0; op < 3; ++op) all.merge(r.latency[op]);
  const std::vector<double> b10 = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
  j["latency_ns"] = latency_table(all, b10, kNs, false, 0);
  j["latency_us"] = latency_table(all, b10, kUs, false, 1000 * kNs);
  std::vector<double> bms = b10;
  bms.push_back(2000);
  j["latency_ms"] = latency_table(all, bms, kMs, true, 1000 * kUs);
  j["latency_depth"] = info.iodepth;
  j["latency_target"] = 0;
  j["latency_percentile"] = 100.0;
  j["latency_window"] = 0;
  (void)report;
  return j;
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

Json disk_util_json(const Drive& drive, const RunReport& report) {
  std::uint64_t ios[3] = {};
  double ticks[3] = {};
  Tick busy = 0;
  for (const PhaseReport& p : report.phases) {
    for (int op = 0; op < 3; ++op) {
      ios[op] += p.result.ios[op];
      ticks[op] +=
          p.result.latency[op].mean() * static_cast<double>(p.result.latency[op].count()) / 1e6;
    }
    busy += p.result.busy;
  }
  Json d;
  d["name"] = drive.hif_cfg.protocol->block_device();
  d["read_ios"] = ios[0];
  d["write_ios"] = ios[1];
  d["read_merges"] = 0;
  d["write_merges"] = 0;
  d["read_ticks"] = static_cast<std::uint64_t>(std::llround(ticks[0]));
  d["write_ticks"] = static_cast<std::uint64_t>(std::llround(ticks[1]));
  d["in_queue"] = static_cast<std::uint64_t>(std::llround(ticks[0] + ticks[1] + ticks[2]));
  d["util"] =
      report.sim_end > 0
          ? std::min(100.0, 100.0 * static_cast<double>(busy) / static_cast<double>(report.sim_end))
          : 0.0;
  return Json::array({d});
}

}  // namespace

Json fio_json(const Drive& drive, const FioWorkload& fio, const RunReport& report,
              FioOutputFormat format) {
  const bool plus = format == FioOutputFormat::kJsonPlus;
  Json j;
  // The fio release whose output this reproduces (scripts check it).
  j["fio version"] = "fio-3.33";
  // Simulated time from the epoch, so that a run's output is the same every
  // time it is run.
  const auto secs = static_cast<std::time_t>(report.sim_end / kSec);
  j["timestamp"] = static_cast<std::uint64_t>(secs);
  j["timestamp_ms"] = static_cast<std::uint64_t>(report.sim_end / kMs);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char when[64];
  std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
  j["time"] = when;
  Json g = Json::object();
  for (const auto& [k, v] : fio.global_options) g[k] = v;
  j["global options"] = g;
  const std::vector<Entry> entries = entries_of(fio, report);
  // Each group's aggregate bandwidth (KiB/s) per direction, for bw_agg.
  std::vector<std::array<double, 3>> group_bw;
  for (const Entry& e : entries) {
    if (group_bw.size() <= e.info->groupid) group_bw.resize(e.info->groupid + 1, {0, 0, 0});
    for (int op = 0; op < 3; ++op)
      group_bw[e.info->groupid][op] += sample_stats(e.r, op, false).mean;
  }
  Json jobs = Json::array();
  for (const Entry& e : entries)
    jobs.push_back(job_json(e, group_bw[e.info->groupid].data(), report, plus));
  j["jobs"] = jobs;
  j["disk_util"] = disk_util_json(drive, report);
  return j;
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

Json fio_job_json(const FioWorkload& fio, const std::string& path) {
  Json j;
  j["fio_file"] = path;
  Json g = Json::object();
  for (const auto& [k, v] : fio.global_options) g[k] = v;
  j["global options"] = g;
  Json jobs = Json::array();
  for (const FioJobInfo& info : fio.jobs) {
    Json o = Json::object();
    for (const auto& [k, v] : info.options) o[k] = v;
    jobs.push_back({{"name", info.name},
                    {"phase", fio.workload.phases[info.phase].name},
                    {"numjobs", info.numjobs},
                    {"groupid", info.groupid},
                    {"options", o}});
  }
  j["jobs"] = jobs;
  Json ignored = Json::array();
  for (const auto& o : fio.ignored) ignored.push_back(o);
  j["ignored"] = ignored;
  return j;
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
