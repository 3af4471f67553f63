#include "app/block_metrics.h"

#include <algorithm>
#include <utility>

#include "app/metric_json.h"

namespace ssdtwin {

namespace {

using Json = nlohmann::ordered_json;
using V = MetricValue;

const PhaseReport& report(const RowView& r) { return r.phase.phase; }
V ratio(std::uint64_t num, std::uint64_t den) {
  return den > 0 ? V::real(static_cast<double>(num) / static_cast<double>(den)) : V::null();
}

// --- Latency in microseconds, unrounded (arg packs an op and a statistic) --
enum LatencyStat { kMean, kP50, kP99, kMax, kP99_9, kLatencyStats };
constexpr const char* kStatNames[kLatencyStats] = {"mean", "p50", "p99", "max", "p99_9"};
constexpr const char* kStatDescriptions[kLatencyStats] = {"mean", "median", "99th percentile",
                                                          "slowest", "99.9th percentile"};
int op_stat(int op, int stat) { return op * kLatencyStats + stat; }
V latency_us(const LatencyHistogram& h, int stat) {
  switch (stat) {
    case kMean:
      return V::real(h.mean() / 1e3);
    case kP50:
      return V::real(static_cast<double>(h.percentile(0.50)) / 1e3);
    case kP99:
      return V::real(static_cast<double>(h.percentile(0.99)) / 1e3);
    case kMax:
      return V::real(static_cast<double>(h.max()) / 1e3);
    default:
      return V::real(static_cast<double>(h.percentile(0.999)) / 1e3);
  }
}
// `<prefix>.<stat>` for the first `stats` statistics of one histogram
// (`what` describes the mean; `op` picks the histogram of a per-op family).
void add_latencies(std::vector<RowMetric>& t, const std::string& prefix, int stats,
                   const char* what, V (*fn)(const RowView&, int), int op = 0) {
  for (int s = 0; s < stats; ++s)
    t.push_back({prefix + "." + kStatNames[s], "us", s == kMean ? what : kStatDescriptions[s], fn,
                 op_stat(op, s)});
}

// --- Durability: flushes and FUA writes of a phase that asked for them ----
bool asks_durability(const PhaseView& v) {
  const PhaseSpec& s = *v.phase.spec;
  for (std::size_t k = 0; k < s.streams(); ++k) {
    const PhaseSpec& t = s.stream(k);
    if (t.fua || t.flush_every != 0 || t.end_flush) return true;
  }
  return false;
}
template <auto Count>
V completed(const RowView& r, int) {
  return V::integer(report(r).result.*Count);
}
// A latency block is null when no command of its kind completed.
template <auto Count>
V latency_none(const RowView& r, int) {
  return report(r).result.*Count ? V::absent() : V::null();
}
template <auto Count, auto Latency>
V latency_of(const RowView& r, int stat) {
  const PhaseResult& p = report(r).result;
  return p.*Count ? latency_us(p.*Latency, stat) : V::absent();
}

std::vector<RowMetric> durability_table() {
  std::vector<RowMetric> t = {
      {"flushes", "commands", "Flush commands completed (flush_every, end_flush)",
       completed<&PhaseResult::flushes>},
      {"flush_latency_us", "us", "null without flushes", latency_none<&PhaseResult::flushes>},
  };
  add_latencies(t, "flush_latency_us", 4, "mean Flush latency",
                latency_of<&PhaseResult::flushes, &PhaseResult::flush_latency>);
  t.push_back({"fua_writes", "commands", "FUA writes completed (in the phase's write figures too)",
               completed<&PhaseResult::fua_writes>});
  t.push_back(
      {"fua_latency_us", "us", "null without FUA writes", latency_none<&PhaseResult::fua_writes>});
  add_latencies(t, "fua_latency_us", 4, "mean FUA write latency",
                latency_of<&PhaseResult::fua_writes, &PhaseResult::fua_latency>);
  return t;
}

// --- Trace replay (rw: trace): per phase, no counter to difference --------
const TraceStats& read(const RowView& r) { return report(r).trace_read; }
const TraceReplayStats& replay(const RowView& r) { return *report(r).trace; }
const TracePhaseSpec& trace_spec(const RowView& r) { return report(r).spec->trace; }
template <auto M>
V read_count(const RowView& r, int) {
  return V::integer(read(r).*M);
}
template <auto M>
V replay_count(const RowView& r, int) {
  return V::integer(replay(r).*M);
}
V trace_file(const RowView& r, int) { return V::of_text(trace_spec(r).file); }
V trace_format(const RowView& r, int) { return V::of_text(report(r).trace_format); }
V replay_mode(const RowView& r, int) {
  return V::of_text(replay_mode_name(trace_spec(r).replay.mode));
}
V time_scale(const RowView& r, int) { return V::real(trace_spec(r).replay.time_scale); }
V map_mode(const RowView& r, int) {
  return V::of_text(map_mode_name(trace_spec(r).replay.map.mode));
}
V trace_records(const RowView& r, int op) { return V::integer(read(r).records[op]); }
V records_skipped_by_device(const RowView& r, int) {
  V::Counts c;
  for (const auto& [dev, n] : read(r).other_devices) c.emplace_back(std::to_string(dev), n);
  return V::of_counts(std::move(c));
}
V trace_commands(const RowView& r, int) {
  const TraceReplayStats& s = replay(r);
  return V::integer(s.commands[0] + s.commands[1] + s.commands[2]);
}
V bad_lines(const RowView& r, int) { return V::integer(read(r).bad_lines()); }
V first_bad_line(const RowView& r, int) {
  return read(r).bad_lines() > 0 ? V::of_text(read(r).first_bad) : V::absent();
}
V mean_outstanding(const RowView& r, int) { return V::real(replay(r).mean_outstanding()); }
// Null when no command waited at all; otherwise the ops that did fill it.
V queue_delay_none(const RowView& r, int) {
  for (const LatencyHistogram& h : replay(r).queue_delay)
    if (h.count() > 0) return V::absent();
  return V::null();
}
V queue_delay(const RowView& r, int arg) {
  const LatencyHistogram& h = replay(r).queue_delay[arg / kLatencyStats];
  return h.count() > 0 ? latency_us(h, arg % kLatencyStats) : V::absent();
}

std::vector<RowMetric> trace_table() {
  std::vector<RowMetric> t = {
      {"file", "path", "the trace file, as the workload names it", trace_file},
      {"format", "name", "its format (as detected when trace.format is auto)", trace_format},
      {"mode", "name", "open (at the trace's times) or closed (at trace.iodepth)", replay_mode},
      {"time_scale", "ratio", "trace time over replay time (open loop)", time_scale},
      {"map", "name", "how offsets beyond the user capacity were mapped", map_mode},
      {"lines", "lines", "lines read", read_count<&TraceStats::lines>},
  };
  for (int op = 0; op < kTraceOps; ++op)
    t.push_back({std::string("records.") + trace_op_name(static_cast<TraceOp>(op)), "records",
                 "records read of this kind", trace_records, op});
  const std::vector<RowMetric> rest = {
      {"records_skipped_by_device", "records",
       "records a trace.device filter left out, per device (the first 64 met)",
       records_skipped_by_device},
      {"records_of_other_devices", "records", "records a trace.device filter left out",
       read_count<&TraceStats::other_device>},
      {"commands", "commands", "read, write and trim commands issued to the drive", trace_commands},
      {"split_records", "records", "records issued as more than one command",
       replay_count<&TraceReplayStats::split_records>},
      {"unaligned_records", "records", "records not aligned to the drive's 4 KiB pages",
       replay_count<&TraceReplayStats::unaligned_records>},
      {"partial_page_writes", "records", "writes covering some page only partly",
       replay_count<&TraceReplayStats::partial_page_writes>},
      {"read_modify_write_pages", "pages", "pages those writes covered partly (each a RMW)",
       replay_count<&TraceReplayStats::rmw_pages>},
      {"trims_dropped", "records", "trims holding no whole page",
       replay_count<&TraceReplayStats::trims_dropped>},
      {"wrapped_records", "records", "records mapped back into the user capacity",
       replay_count<&TraceReplayStats::wrapped_records>},
      {"flushes", "commands",
       "flush records sent as Flush commands (latency in the phase's durability block)",
       replay_count<&TraceReplayStats::flushes>},
      {"time_backsteps", "records", "records stamped before the one before them",
       read_count<&TraceStats::backsteps>},
      {"bad_lines_skipped", "lines", "bad lines skipped (trace.skip_bad_lines)", bad_lines},
      {"first_bad_line", "text", "the first one's message (file:line: what), when there was one",
       first_bad_line},
      {"mean_outstanding", "commands", "commands outstanding on average", mean_outstanding},
      {"max_outstanding", "commands", "most commands outstanding at once",
       replay_count<&TraceReplayStats::max_outstanding>},
      {"queue_delay_us", "us", "null when no command was issued", queue_delay_none},
  };
  t.insert(t.end(), rest.begin(), rest.end());
  for (int op = 0; op < PhaseResult::kOps; ++op)
    add_latencies(t, std::string("queue_delay_us.") + kOpNames[op], 4,
                  "arrival to issue, mean (device latency is in read/write/trim)", queue_delay, op);
  return t;
}

// --- Host figures of a job or a namespace, per op (absent without IOs) ----
bool did(const RowView& r, int op) { return r.host->ios[op] > 0; }
V host_ios(const RowView& r, int op) {
  return did(r, op) ? V::integer(r.host->ios[op]) : V::absent();
}
V host_iops(const RowView& r, int op) {
  if (!did(r, op)) return V::absent();
  const double s = r.host->seconds;
  return V::real(s > 0 ? static_cast<double>(r.host->ios[op]) / s : 0.0);
}
V host_mb_per_s(const RowView& r, int op) {
  if (!did(r, op)) return V::absent();
  const double s = r.host->seconds;
  return V::real(s > 0 ? static_cast<double>(r.host->bytes[op]) / s / 1e6 : 0.0);
}
V host_latency(const RowView& r, int arg) {
  const int op = arg / kLatencyStats;
  return did(r, op) ? latency_us(r.host->latency[op], arg % kLatencyStats) : V::absent();
}
void add_host_figures(std::vector<RowMetric>& t) {
  for (int op = 0; op < PhaseResult::kOps; ++op) {
    const std::string o = kOpNames[op];
    t.push_back({o + ".ios", "IOs", "host commands completed", host_ios, op});
    t.push_back({o + ".iops", "IOPS", "host commands per simulated second", host_iops, op});
    t.push_back({o + ".mb_per_s", "MB/s", "host throughput (10^6 B/s)", host_mb_per_s, op});
    add_latencies(t, o + ".latency_us", kLatencyStats, "mean command latency", host_latency, op);
  }
}

// --- Jobs: one row per concurrent job (tenant) of the phase ----------------
const PhaseSpec& job(const RowView& r) { return report(r).spec->stream(r.row); }
V job_name(const RowView& r, int) {
  const PhaseSpec& s = *report(r).spec;
  return V::of_text(r.row < s.stream_names.size() ? s.stream_names[r.row] : job(r).name);
}
V job_namespace(const RowView& r, int) { return V::integer(job(r).nsid); }
V job_placement(const RowView& r, int) { return V::integer(job(r).placement); }
std::size_t job_rows(const PhaseView& v) {
  return std::min(v.phase.spec->streams(), v.phase.result.streams.size());
}
HostFigures job_host(const PhaseView& v, std::size_t k) {
  const StreamResult& s = v.phase.result.streams[k];
  HostFigures h;
  for (int op = 0; op < PhaseResult::kOps; ++op) {
    h.latency[op] = s.latency[op];
    h.ios[op] = s.ios[op];
    h.bytes[op] = s.bytes[op];
  }
  h.seconds = to_seconds(s.end - s.start);
  return h;
}

std::vector<RowMetric> jobs_table() {
  std::vector<RowMetric> t = {
      {"name", "name", "the job's name", job_name},
      {"namespace", "nsid", "the namespace it addressed", job_namespace},
      {"placement", "index", "its placement identifier (NVMe FDP)", job_placement},
  };
  add_host_figures(t);
  return t;
}

// --- Namespaces: one row per namespace of a drive that declares several ---
const Namespace& name_space(const RowView& r) { return r.phase.drive.namespaces.list()[r.row]; }
V ns_id(const RowView& r, int) { return V::integer(name_space(r).id); }
V ns_bytes(const RowView& r, int) { return V::integer(name_space(r).bytes()); }
template <auto M>
V ftl_row_bytes(const RowView& r, int) {  // a row's count of 4 KiB slots, in bytes
  return V::integer(ftl_delta<M>(report(r), r.row) * kSectorBytes);
}
template <auto M>
V ftl_row(const RowView& r, int) {
  return V::integer(ftl_delta<M>(report(r), r.row));
}
V ns_write_amplification(const RowView& r, int) {
  const std::uint64_t flash = ftl_delta<&FtlStats::ns_host_slots>(report(r), r.row) +
                              ftl_delta<&FtlStats::ns_moved_slots>(report(r), r.row);
  return ratio(flash * kSectorBytes, r.host->bytes[static_cast<int>(IoOp::kWrite)]);
}
// The streams that addressed the namespace, merged (a stream without its own
// results is the whole phase's).
HostFigures ns_host(const PhaseView& v, std::size_t i) {
  const std::uint32_t id = v.drive.namespaces.list()[i].id;
  const PhaseSpec& s = *v.phase.spec;
  const PhaseResult& r = v.phase.result;
  HostFigures h;
  for (std::size_t k = 0; k < s.streams(); ++k) {
    if (s.stream(k).nsid != id) continue;
    const bool own = k < r.streams.size();
    for (int op = 0; op < PhaseResult::kOps; ++op) {
      h.latency[op].merge(own ? r.streams[k].latency[op] : r.latency[op]);
      h.ios[op] += own ? r.streams[k].ios[op] : r.ios[op];
      h.bytes[op] += own ? r.streams[k].bytes[op] : r.bytes[op];
    }
  }
  h.seconds = v.seconds;
  return h;
}

std::vector<RowMetric> namespaces_table() {
  std::vector<RowMetric> t = {
      {"id", "nsid", "the namespace's NVMe id", ns_id},
      {"bytes", "B", "its size", ns_bytes},
  };
  add_host_figures(t);
  t.push_back({"flash_host_bytes", "B", "its host data programmed",
               ftl_row_bytes<&FtlStats::ns_host_slots>});
  t.push_back(
      {"flash_moved_bytes", "B", "its data GC moved", ftl_row_bytes<&FtlStats::ns_moved_slots>});
  t.push_back({"write_amplification", "ratio",
               "those flash writes per host byte written to it (null without writes)",
               ns_write_amplification});
  return t;
}

// --- NVMe FDP (ftl.fdp): the statistics log and per reclaim unit handle ---
const FdpConfig& fdp(const PhaseView& v) { return v.drive.ftl_cfg.fdp; }
std::uint64_t fdp_host_bytes(const RowView& r) {
  std::uint64_t slots = 0;
  for (std::uint32_t h = 0; h < fdp(r.phase).handles(); ++h)
    slots += ftl_delta<&FtlStats::fdp_host_slots>(report(r), h);
  return slots * kSectorBytes;
}
// Every page programmed (GC, parity, padding and map pages included); a
// fast phase, which programs nothing, counts the pages the FTL placed.
std::uint64_t media_bytes(const RowView& r) {
  const PhaseReport& p = report(r);
  if (p.spec->fast)
    return (ftl_delta<&FtlStats::host_write_slots>(p) + ftl_delta<&FtlStats::gc_moved_slots>(p) +
            ftl_delta<&FtlStats::flush_padding_slots>(p)) *
           kSectorBytes;
  return nand_delta<&NandStats::page_programs>(p) * r.phase.drive.geo.page_size;
}
V ru_bytes(const RowView& r, int) {
  return V::integer(fdp(r.phase).reclaim_unit_slots * kSectorBytes);
}
V fdp_host(const RowView& r, int) { return V::integer(fdp_host_bytes(r)); }
V fdp_media(const RowView& r, int) { return V::integer(media_bytes(r)); }
V fdp_write_amplification(const RowView& r, int) {
  return ratio(media_bytes(r), fdp_host_bytes(r));
}
V handle(const RowView& r, int) { return V::integer(r.row); }
V handle_type(const RowView& r, int) {
  return V::of_text(fdp(r.phase).persistent[r.row] ? "persistently_isolated"
                                                   : "initially_isolated");
}
V handle_write_amplification(const RowView& r, int) {
  return ratio(ftl_delta<&FtlStats::fdp_media_slots>(report(r), r.row),
               ftl_delta<&FtlStats::fdp_host_slots>(report(r), r.row));
}

std::vector<RowMetric> fdp_table() {
  return {
      {"reclaim_unit_bytes", "B", "size of a reclaim unit (ftl.fdp)", ru_bytes},
      {"host_bytes_written", "B", "host bytes written, all handles (the FDP statistics log)",
       fdp_host},
      {"media_bytes_written", "B",
       "bytes programmed (GC, parity, padding, map included); a fast phase counts pages placed",
       fdp_media},
      {"write_amplification", "ratio", "media over host bytes (null without host writes)",
       fdp_write_amplification},
  };
}

std::vector<RowMetric> fdp_handles_table() {
  return {
      {"handle", "index", "the reclaim unit handle", handle},
      {"type", "name", "persistently_isolated or initially_isolated", handle_type},
      {"host_bytes_written", "B", "host data written through it",
       ftl_row_bytes<&FtlStats::fdp_host_slots>},
      {"media_bytes_written", "B", "flash its data cost (host writes and GC moves)",
       ftl_row_bytes<&FtlStats::fdp_media_slots>},
      {"moved_bytes", "B", "its data GC moved", ftl_row_bytes<&FtlStats::fdp_moved_slots>},
      {"moved_shared_bytes", "B", "of those, moved into a unit shared with other handles",
       ftl_row_bytes<&FtlStats::fdp_moved_shared_slots>},
      {"write_amplification", "ratio", "media over host bytes (null without host writes)",
       handle_write_amplification},
      {"reclaim_units_filled", "units", "reclaim units it filled",
       ftl_row<&FtlStats::fdp_ru_filled>},
      {"events.media_reallocated", "events", "Media Reallocated events",
       ftl_row<&FtlStats::fdp_media_reallocated>},
      {"events.ru_not_fully_written", "events", "Reclaim Unit Not Fully Written events",
       ftl_row<&FtlStats::fdp_ru_not_fully_written>},
  };
}

bool has_fdp(const PhaseView& v) { return fdp(v).enabled; }

std::vector<MetricBlock> build_blocks() {
  return {
      {"durability", "a phase that asks for flushes or FUA writes: those and their latency",
       durability_table(), asks_durability},
      {"trace", "a trace replay (rw: trace): what it read and issued, its host-side queueing",
       trace_table(), [](const PhaseView& v) { return v.phase.trace != nullptr; }},
      {"jobs[]", "a phase with jobs: each job's own figures (tenants of a shared drive)",
       jobs_table(), [](const PhaseView& v) { return !v.phase.spec->stream_names.empty(); },
       job_rows, job_host},
      {"namespaces[]",
       "a drive with several namespaces: per namespace, the host figures of the streams that "
       "addressed it and the flash writes its data caused",
       namespaces_table(), [](const PhaseView& v) { return v.drive.namespaces.size() > 1; },
       [](const PhaseView& v) { return v.drive.namespaces.size(); }, ns_host},
      {"fdp", "NVMe FDP (ftl.fdp), as the host reads it", fdp_table(), has_fdp},
      {"fdp.handles[]", "per reclaim unit handle", fdp_handles_table(), has_fdp,
       [](const PhaseView& v) { return std::size_t{fdp(v).handles()}; }},
  };
}

}  // namespace

const std::vector<MetricBlock>& metric_blocks() {
  static const std::vector<MetricBlock> blocks = build_blocks();
  return blocks;
}

void add_block_metrics(const PhaseView& v, Json& j) {
  for (const MetricBlock& b : metric_blocks()) {
    if (!b.applies(v)) continue;
    const bool family = b.rows != nullptr;
    Json block = family ? Json::array() : Json::object();
    for (std::size_t i = 0, n = family ? b.rows(v) : 1; i < n; ++i) {
      const HostFigures host = b.host ? b.host(v, i) : HostFigures{};
      Json row = Json::object();
      add_metrics(b.metrics, RowView{v, i, b.host ? &host : nullptr}, row);
      if (family)
        block.push_back(std::move(row));
      else
        block = std::move(row);
    }
    put_at(j, family ? b.path.substr(0, b.path.size() - 2) : b.path, std::move(block));
  }
}

void print_block_metrics(std::FILE* out) {
  for (const MetricBlock& b : metric_blocks()) {
    std::fprintf(out, "\n%s: %s\n", b.path.c_str(), b.description);
    for (const RowMetric& m : b.metrics)
      std::fprintf(out, "  %-42s %-11s %s\n", m.name.c_str(), m.unit, m.description);
  }
}

}  // namespace ssdtwin
