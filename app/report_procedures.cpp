#include "app/report_procedures.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/chart.h"
#include "sim/output_file.h"

namespace ssdtwin {

using Json = nlohmann::ordered_json;

namespace {

constexpr int kRead = static_cast<int>(IoOp::kRead);
constexpr int kWrite = static_cast<int>(IoOp::kWrite);
constexpr int kTrim = static_cast<int>(IoOp::kTrim);

enum class Rate { kIops, kBytes };

// Per full interval: commands of every op, or bytes moved (reads and writes:
// a trim moves no data), per second.
std::vector<double> interval_rates(const PhaseReport& p, Rate what) {
  const IntervalSeries& s = *p.result.series;
  const double secs = to_seconds(s.interval());
  std::vector<double> out;
  for (std::size_t i = 0; i < s.bins().size(); ++i) {
    if (s.start() + s.interval() * (i + 1) > p.result.end) break;
    const auto& b = s.bins()[i];
    const std::uint64_t n = what == Rate::kIops ? b.ios[kRead] + b.ios[kWrite] + b.ios[kTrim]
                                                : b.bytes[kRead] + b.bytes[kWrite];
    out.push_back(static_cast<double>(n) / secs);
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Json min_of(const std::vector<double>& v) {
  return v.empty() ? Json(nullptr) : Json(*std::min_element(v.begin(), v.end()));
}

Json max_of(const std::vector<double>& v) {
  return v.empty() ? Json(nullptr) : Json(*std::max_element(v.begin(), v.end()));
}

// A phase's figures over all its ops together, as fio's group report gives
// them (a randrw phase is one point of a sweep, not two).
struct PhaseFigures {
  double iops = 0;
  double mb_per_s = 0;
  double mean_latency_us = 0;
  double p99_latency_us = 0;
};

PhaseFigures phase_figures(const PhaseReport& p) {
  const PhaseResult& r = p.result;
  LatencyHistogram all;
  for (int op = 0; op < PhaseResult::kOps; ++op) all.merge(r.latency[op]);
  const double secs = to_seconds(r.end - r.start);
  PhaseFigures f;
  f.iops = r.iops();
  if (secs > 0) f.mb_per_s = static_cast<double>(r.bytes[kRead] + r.bytes[kWrite]) / secs / 1e6;
  f.mean_latency_us = all.mean() / 1e3;
  f.p99_latency_us = to_us(all.percentile(0.99));
  return f;
}

Json figures_json(const PhaseReport& p) {
  const PhaseFigures f = phase_figures(p);
  Json j;
  j["phase"] = p.spec->name;
  j["rw"] = rw_kind_name(p.spec->rw);
  j["iodepth"] = p.spec->iodepth;
  j["device_qd"] = p.result.peak_device_qd;
  j["iops"] = f.iops;
  j["mb_per_s"] = f.mb_per_s;
  j["mean_latency_us"] = f.mean_latency_us;
  j["p99_latency_us"] = f.p99_latency_us;
  return j;
}

Json latency_json(const PhaseReport& p) {
  std::vector<double> iops = interval_iops(p);
  const auto& rows = p.result.interval_latency->rows();
  const std::size_t n = std::min(iops.size(), rows.size());
  iops.resize(n);
  std::vector<double> p50, p99, max;
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i].count == 0) continue;
    p50.push_back(to_us(rows[i].p50));
    p99.push_back(to_us(rows[i].p99));
    max.push_back(to_us(rows[i].max));
  }
  Json j;
  j["intervals"] = n;
  j["average_iops"] = mean_of(iops);
  j["min_interval_iops"] = min_of(iops);
  j["median_interval_p50_us"] = median_of(p50);
  j["median_interval_p99_us"] = median_of(p99);
  j["worst_interval_p99_us"] = max_of(p99);
  j["max_us"] = max_of(max);
  return j;
}

std::vector<double> pass_mb_per_s(const PhaseReport& p) {
  const ByteStepSeries& s = *p.result.passes;
  std::vector<double> r(s.segments());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = s.rate(k) / 1e6;
  return r;
}

Json bandwidth_json(const PhaseReport& p) {
  std::vector<double> mbs = interval_rates(p, Rate::kBytes);
  for (double& v : mbs) v /= 1e6;
  Json j;
  j["intervals"] = mbs.size();
  j["average_mb_per_s"] = mean_of(mbs);
  j["min_interval_mb_per_s"] = min_of(mbs);
  j["max_interval_mb_per_s"] = max_of(mbs);
  j["pass_bytes"] = p.spec->span;
  j["pass_mb_per_s"] = pass_mb_per_s(p);  // whole passes only
  return j;
}

Json steady_json(const PhaseReport& p) {
  const SteadyStateMonitor& m = *p.result.steady;
  Json j;
  j["round_s"] = to_seconds(m.round());
  j["window_rounds"] = m.window();
  j["tolerance"] = m.tolerance();  // infinite (null): not tested
  if (m.slope_tolerance() != m.tolerance()) j["slope_tolerance"] = m.slope_tolerance();
  j["after_s"] = to_seconds(m.earned().after);
  j["while_gc"] = m.earned().need_work;
  j["reached"] = m.steady();
  // GC moves beside the figure: a steady state with none is the fresh
  // drive's plateau, not the state GC holds the drive in.
  const std::vector<double>& work = m.round_work();
  const std::size_t last = std::min(m.window(), work.size());
  j["window_gc_moved_pages"] =
      std::accumulate(work.end() - static_cast<std::ptrdiff_t>(last), work.end(), 0.0);
  if (m.steady()) {
    // The monitor stops at the steady round, so the last window is the one.
    const SteadyStateResult r =
        snia_steady_state(m.rounds(), m.window(), m.tolerance(), m.slope_tolerance());
    j["round"] = m.steady_round() + 1;  // counted from 1, as a reviewer counts rounds
    j["at_s"] = to_seconds(m.round()) * static_cast<double>(m.steady_round() + 1);
    j["window_mean_iops"] = r.mean;
    j["window_max_excursion_iops"] = r.max_excursion;
    j["window_line_change_iops"] = r.line_change;
  } else {
    j["round"] = nullptr;
    j["at_s"] = nullptr;
  }
  j["round_iops"] = m.rounds();
  j["round_gc_moved_pages"] = work;
  return j;
}

// The phase with `role` (at `iodepth`, when given), or null.
const PhaseReport* role_phase(const RunReport& r, RecoveryRole role, std::uint32_t iodepth = 0) {
  for (const auto& p : r.phases)
    if (p.spec->role == role && (iodepth == 0 || p.spec->iodepth == iodepth)) return &p;
  return nullptr;
}

struct RecoveryScores {
  const PhaseReport* fob = nullptr;  // at the recovered (else steady) phase's depth
  const PhaseReport* steady = nullptr;
  const PhaseReport* recovered = nullptr;
  double fob_iops = 0, steady_iops = 0, recovered_iops = 0;
  double steady_fob_iops = 0;  // FOB at the steady phase's depth
};

RecoveryScores recovery_scores(const RunReport& r) {
  RecoveryScores s;
  s.steady = role_phase(r, RecoveryRole::kSteady);
  s.recovered = role_phase(r, RecoveryRole::kRecovered);
  const PhaseReport* ref = s.recovered ? s.recovered : s.steady;
  s.fob = ref ? role_phase(r, RecoveryRole::kFob, ref->spec->iodepth) : nullptr;
  if (s.fob) s.fob_iops = phase_figures(*s.fob).iops;
  if (s.recovered) s.recovered_iops = phase_figures(*s.recovered).iops;
  if (s.steady) {
    s.steady_iops = phase_figures(*s.steady).iops;
    if (const PhaseReport* f = role_phase(r, RecoveryRole::kFob, s.steady->spec->iodepth))
      s.steady_fob_iops = phase_figures(*f).iops;
  }
  return s;
}

Json ratio(double a, double b) { return b > 0 ? Json(a / b) : Json(nullptr); }

Json recovery_json(const RunReport& r) {
  const RecoveryScores s = recovery_scores(r);
  Json j;
  j["iodepth"] = s.fob ? Json(s.fob->spec->iodepth) : Json(nullptr);
  j["fob_iops"] = s.fob ? Json(s.fob_iops) : Json(nullptr);
  j["steady_iops"] = s.steady ? Json(s.steady_iops) : Json(nullptr);
  j["recovered_iops"] = s.recovered ? Json(s.recovered_iops) : Json(nullptr);
  j["steady_over_fob"] = s.steady ? ratio(s.steady_iops, s.steady_fob_iops) : Json(nullptr);
  j["recovered_over_fob"] = s.recovered ? ratio(s.recovered_iops, s.fob_iops) : Json(nullptr);
  const PhaseReport* degrade = role_phase(r, RecoveryRole::kDegrade);
  const SteadyStateMonitor* m = degrade ? degrade->result.steady.get() : nullptr;
  j["degrade_steady_round"] = m && m->steady() ? Json(m->steady_round() + 1) : Json(nullptr);
  j["degrade_steady_at_s"] =
      m && m->steady() ? Json(to_seconds(m->round()) * static_cast<double>(m->steady_round() + 1))
                       : Json(nullptr);
  Json phases = Json::array();
  for (const auto& p : r.phases) {
    if (p.spec->role == RecoveryRole::kNone) continue;
    Json row;
    row["role"] = recovery_role_name(p.spec->role);
    row.update(figures_json(p));
    row["gc_moved_pages"] = p.ftl_after.gc_moved_slots - p.ftl_before.gc_moved_slots;
    phases.push_back(row);
  }
  j["phases"] = phases;
  return j;
}

OutputFile open_csv(const std::filesystem::path& path, const char* header) {
  OutputFile f(path.string());
  f << header << "\n";
  return f;
}

void write_latency(const std::filesystem::path& dir, const Drive& drive, const PhaseReport& p,
                   ChartBatch& charts) {
  const std::string csv = (dir / "latency.csv").string();
  charts.wait_for_file(csv);  // an earlier phase's chart may still be reading it
  OutputFile f = open_csv(csv, "second,iops,p50_us,p99_us,max_us");
  const std::vector<double> iops = interval_iops(p);
  const auto& rows = p.result.interval_latency->rows();
  const double secs = to_seconds(p.result.series->interval());
  char line[160];
  for (std::size_t i = 0; i < std::min(iops.size(), rows.size()); ++i) {
    const auto& r = rows[i];
    // An interval in which no command completed has no latency to show.
    if (r.count == 0)
      std::snprintf(line, sizeof line, "%g,%.1f,,,\n", secs * static_cast<double>(i + 1), iops[i]);
    else
      std::snprintf(line, sizeof line, "%g,%.1f,%.3f,%.3f,%.3f\n",
                    secs * static_cast<double>(i + 1), iops[i], to_us(r.p50), to_us(r.p99),
                    to_us(r.max));
    f << line;
  }
  f.commit();
  const Json s = latency_json(p);
  char title[256];
  std::snprintf(title, sizeof title, "IOPS per interval: %s, %s (average %.0f IOPS)",
                drive.name.c_str(), p.spec->name.c_str(), s["average_iops"].get<double>());
  Chart top{title, "time (s)", "IOPS", {}, true};
  top.series.push_back({csv, 1, 2, "IOPS", ""});
  std::snprintf(
      title, sizeof title,
      "Latency per interval (log scale): median p50 %.0f us, median p99 %.0f us, max %.0f us",
      s["median_interval_p50_us"].get<double>(), s["median_interval_p99_us"].get<double>(),
      s["max_us"].is_null() ? 0.0 : s["max_us"].get<double>());
  Chart bottom{title, "time (s)", "latency (us)", {}, false};
  bottom.log_y = true;
  bottom.series.push_back({csv, 1, 5, "max", ""});
  bottom.series.push_back({csv, 1, 4, "p99", ""});
  bottom.series.push_back({csv, 1, 3, "p50", ""});
  charts.draw_stacked({top, bottom}, (dir / "latency.png").string());
}

// A sweep's file and chart: one CSV row per phase of the report kind, one
// chart line per sweep (phases from one workload entry).
struct SweepFormat {
  PhaseReportKind kind;
  const char* stem;  // <stem>.csv, <stem>.png
  const char* header;
  void (*row)(char* line, std::size_t size, const PhaseReport& p, const PhaseFigures& fig);
  const char* title;
  const char* x_label;
  const char* y_label;
  int x_col, y_col;
  bool log_y;
  bool log_x = true;
  const char* exclude = nullptr;  // rows whose column 2 is this stay out of the chart
};

void write_sweep(const std::filesystem::path& dir, const Drive& drive, const WorkloadSpec& workload,
                 const RunReport& report, const SweepFormat& fmt, ChartBatch& charts) {
  const std::string csv = (dir / (std::string(fmt.stem) + ".csv")).string();
  OutputFile f = open_csv(csv, fmt.header);
  std::vector<std::string> sweeps;  // in workload order
  char line[320];
  for (const auto& p : report.phases) {
    if (p.spec->report != fmt.kind) continue;
    fmt.row(line, sizeof line, p, phase_figures(p));
    f << line;
    if (std::find(sweeps.begin(), sweeps.end(), p.spec->base_name) == sweeps.end())
      sweeps.push_back(p.spec->base_name);
  }
  f.commit();
  Chart c{std::string(fmt.title) + ": " + drive.name + ", " + workload.name,
          fmt.x_label,
          fmt.y_label,
          {},
          false};
  c.log_x = fmt.log_x;
  c.log_y = fmt.log_y;
  for (const auto& s : sweeps)
    c.series.push_back(
        {csv, fmt.x_col, fmt.y_col, s,
         "strcol(1) eq " + gnuplot_string(s) +
             (fmt.exclude ? " && strcol(2) ne " + gnuplot_string(fmt.exclude) : "")});
  charts.draw(c, (dir / (std::string(fmt.stem) + ".png")).string());
}

void qd_row(char* line, std::size_t size, const PhaseReport& p, const PhaseFigures& fig) {
  std::snprintf(line, size, "%s,%s,%s,%u,%u,%.1f,%.3f,%.3f,%.3f\n", p.spec->base_name.c_str(),
                p.spec->name.c_str(), rw_kind_name(p.spec->rw), p.spec->iodepth,
                p.result.peak_device_qd, fig.iops, fig.mb_per_s, fig.mean_latency_us,
                fig.p99_latency_us);
}

void size_row(char* line, std::size_t size, const PhaseReport& p, const PhaseFigures& fig) {
  std::snprintf(line, size, "%s,%s,%s,%u,%u,%.3f,%.1f,%.3f,%.3f\n", p.spec->base_name.c_str(),
                p.spec->name.c_str(), rw_kind_name(p.spec->rw), p.spec->bs / 1024, p.spec->iodepth,
                fig.mb_per_s, fig.iops, fig.mean_latency_us, fig.p99_latency_us);
}

// Sweeps differ by orders of magnitude in IOPS (FOB reads of unwritten LBAs
// never touch the flash), so a linear axis would flatten all but one.
const SweepFormat kQdSweep{
    PhaseReportKind::kQdSweep,
    "qd_sweep",
    "sweep,phase,rw,iodepth,device_qd,iops,mb_per_s,mean_latency_us,p99_latency_us",
    qd_row,
    "Queue-depth sweep",
    "queue depth (iodepth, log2)",
    "IOPS (log scale)",
    4,
    6,
    true};
const SweepFormat kSizeSweep{
    PhaseReportKind::kSizeSweep,
    "size_sweep",
    "sweep,phase,rw,bs_kib,iodepth,mb_per_s,iops,mean_latency_us,p99_latency_us",
    size_row,
    "Transfer-size sweep",
    "transfer size (KiB, log2)",
    "MB/s",
    4,
    6,
    false};

// The load curve's step: "max" for the closed-loop maximum, else the offered
// rate's percentage of it.
std::string load_step(const PhaseReport& p) {
  if (!p.spec->rate.open_loop()) return "max";
  char s[32];
  std::snprintf(s, sizeof s, "%.0f", 100 * p.spec->rate.fraction);
  return s;
}

double host_queue_us(const PhaseReport& p) {
  LatencyHistogram all;
  for (int op = 0; op < PhaseResult::kOps; ++op) all.merge(p.result.queue_delay[op]);
  return all.mean() / 1e3;
}

void load_row(char* line, std::size_t size, const PhaseReport& p, const PhaseFigures& fig) {
  std::snprintf(line, size, "%s,%s,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%llu\n", p.spec->base_name.c_str(),
                load_step(p).c_str(), p.result.offered_iops, fig.iops, fig.mb_per_s,
                fig.mean_latency_us, fig.p99_latency_us, host_queue_us(p),
                static_cast<unsigned long long>(p.result.left_on_host));
}

// As reviews draw it: average latency against achieved IOPS, one line per
// profile, over the open-loop steps (the closed-loop maximum is in the CSV).
SweepFormat load_curve_format() {
  SweepFormat f{PhaseReportKind::kLoadCurve,
                "load_curve",
                "profile,step,offered_iops,iops,mb_per_s,mean_latency_us,p99_latency_us,"
                "host_queue_us,left_on_host",
                load_row,
                "Load curve",
                "IOPS (achieved)",
                "average latency (us)",
                4,
                6,
                false};
  f.log_x = false;
  f.exclude = "max";
  return f;
}
const SweepFormat kLoadCurve = load_curve_format();

Json load_curve_json(const RunReport& report) {
  Json rows = Json::array(), peaks = Json::object();
  for (const auto& p : report.phases) {
    if (p.spec->report != PhaseReportKind::kLoadCurve) continue;
    const PhaseFigures f = phase_figures(p);
    Json row;
    row["profile"] = p.spec->base_name;
    row["step"] = load_step(p);
    row["offered_iops"] = p.result.offered_iops;
    row["iops"] = f.iops;
    row["mb_per_s"] = f.mb_per_s;
    row["mean_latency_us"] = f.mean_latency_us;
    row["p99_latency_us"] = f.p99_latency_us;
    row["host_queue_us"] = host_queue_us(p);
    row["left_on_host"] = p.result.left_on_host;
    rows.push_back(row);
    // The peak: the open-loop step with the highest achieved IOPS.
    if (!p.spec->rate.open_loop()) continue;
    Json& peak = peaks[p.spec->base_name];
    if (peak.is_null() || f.iops > peak["iops"].get<double>()) {
      peak["step"] = load_step(p);
      peak["iops"] = f.iops;
      peak["mb_per_s"] = f.mb_per_s;
      peak["mean_latency_us"] = f.mean_latency_us;
    }
  }
  Json j;
  j["steps"] = rows;
  j["peaks"] = peaks;
  return j;
}

void write_bandwidth(const std::filesystem::path& dir, const Drive& drive, const PhaseReport& p,
                     ChartBatch& charts) {
  const std::string csv = (dir / "bandwidth.csv").string();
  charts.wait_for_file(csv);  // an earlier phase's chart may still be reading it
  OutputFile f = open_csv(csv, "second,mb_per_s");
  const std::vector<double> bytes = interval_rates(p, Rate::kBytes);
  const double secs = to_seconds(p.result.series->interval());
  char line[96];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(line, sizeof line, "%g,%.3f\n", secs * static_cast<double>(i + 1),
                  bytes[i] / 1e6);
    f << line;
  }
  f.commit();
  std::string passes;
  for (double v : pass_mb_per_s(p)) {
    char one[32];
    std::snprintf(one, sizeof one, "%s%.0f", passes.empty() ? "" : ", ", v);
    passes += one;
  }
  Chart c{"Bandwidth over time: " + drive.name + ", " + p.spec->name +
              (passes.empty() ? "" : " (MB/s per pass over the range: " + passes + ")"),
          "time (s)",
          "MB/s",
          {},
          false};
  c.series.push_back({csv, 1, 2, "MB/s", ""});
  charts.draw(c, (dir / "bandwidth.png").string());
}

void write_recovery(const std::filesystem::path& dir, const Drive& drive, const RunReport& report,
                    ChartBatch& charts) {
  const std::string csv = (dir / "degrade_recover.csv").string();
  OutputFile f = open_csv(csv, "phase,role,time_s,iops");
  Chart c{"", "simulated time (s)", "IOPS", {}, true};
  char line[192];
  for (const auto& p : report.phases) {
    if (p.spec->role == RecoveryRole::kNone) continue;
    const IntervalSeries& s = *p.result.series;
    const std::vector<double> iops = interval_iops(p);
    for (std::size_t i = 0; i < iops.size(); ++i) {
      std::snprintf(line, sizeof line, "%s,%s,%.3f,%.1f\n", p.spec->name.c_str(),
                    recovery_role_name(p.spec->role),
                    to_seconds(s.start() + s.interval() * (i + 1)), iops[i]);
      f << line;
    }
    const std::string role = recovery_role_name(p.spec->role);
    c.series.push_back({csv, 3, 4, p.spec->name == role ? role : p.spec->name + " (" + role + ")",
                        "strcol(1) eq " + gnuplot_string(p.spec->name)});
  }
  f.commit();
  const RecoveryScores s = recovery_scores(report);
  char title[320];
  std::snprintf(
      title, sizeof title,
      "Degrade and recover: %s (QD%u: FOB %.0f, steady %.0f, recovered %.0f IOPS = %.0f%% "
      "of FOB)",
      drive.name.c_str(), s.fob ? s.fob->spec->iodepth : 0, s.fob_iops, s.steady_iops,
      s.recovered_iops, s.fob_iops > 0 ? 100 * s.recovered_iops / s.fob_iops : 0.0);
  c.title = title;
  charts.draw(c, (dir / "degrade_recover.png").string());
}

// The noisy-neighbor procedure: the watched tenant (each phase's first
// stream) alone, beside a neighbor, and beside it in a higher arbitration
// class; one row per phase, in workload order.
struct TenantReads {
  std::string tenant;
  SqPriority priority;
  std::uint64_t reads;
  double iops, p50_us, p99_us, p999_us;
};

TenantReads tenant_reads(const PhaseReport& p) {
  const PhaseSpec& s = *p.spec;
  const bool own = !p.result.streams.empty();
  const auto read = static_cast<std::size_t>(IoOp::kRead);
  const LatencyHistogram& h = own ? p.result.streams[0].latency[read] : p.result.latency[read];
  const std::uint64_t n = own ? p.result.streams[0].ios[read] : p.result.ios[read];
  const Tick span =
      own ? p.result.streams[0].end - p.result.streams[0].start : p.result.end - p.result.start;
  const double secs = to_seconds(span);
  return {s.stream_names.empty() ? s.name : s.stream_names[0],
          s.priority,
          n,
          secs > 0 ? static_cast<double>(n) / secs : 0.0,
          static_cast<double>(h.percentile(0.50)) / 1e3,
          static_cast<double>(h.percentile(0.99)) / 1e3,
          static_cast<double>(h.percentile(0.999)) / 1e3};
}

Json noisy_neighbor_json(const RunReport& report) {
  Json rows = Json::array();
  for (const auto& p : report.phases) {
    if (p.spec->report != PhaseReportKind::kNoisyNeighbor) continue;
    const TenantReads t = tenant_reads(p);
    Json row;
    row["phase"] = p.spec->name;
    row["tenant"] = t.tenant;
    row["priority"] = sq_priority_name(t.priority);
    row["streams"] = p.spec->streams();
    row["reads"] = t.reads;
    row["read_iops"] = t.iops;
    row["read_p50_us"] = t.p50_us;
    row["read_p99_us"] = t.p99_us;
    row["read_p99_9_us"] = t.p999_us;
    rows.push_back(row);
  }
  return rows;
}

void write_noisy_neighbor(const std::filesystem::path& dir, const Drive& drive,
                          const WorkloadSpec& workload, const RunReport& report,
                          ChartBatch& charts) {
  const std::string csv = (dir / "noisy_neighbor.csv").string();
  OutputFile f = open_csv(csv,
                          "scenario,phase,tenant,priority,streams,reads,read_iops,"
                          "read_p50_us,read_p99_us,read_p99_9_us");
  std::string scenarios;
  char line[320];
  int k = 0;
  for (const auto& p : report.phases) {
    if (p.spec->report != PhaseReportKind::kNoisyNeighbor) continue;
    const TenantReads t = tenant_reads(p);
    std::snprintf(line, sizeof line, "%d,%s,%s,%s,%zu,%llu,%.1f,%.3f,%.3f,%.3f\n", ++k,
                  p.spec->name.c_str(), t.tenant.c_str(), sq_priority_name(t.priority),
                  p.spec->streams(), static_cast<unsigned long long>(t.reads), t.iops, t.p50_us,
                  t.p99_us, t.p999_us);
    f << line;
    scenarios += (scenarios.empty() ? "" : ", ") + std::to_string(k) + " " + p.spec->name;
  }
  f.commit();
  // Percentiles a decade or more apart (a read behind GC waits for a whole
  // program or erase): a log axis keeps p50 visible beside p99.9.
  Chart c{"Noisy neighbor, watched tenant's reads: " + drive.name + ", " + workload.name,
          "scenario (" + scenarios + ")",
          "read latency (us, log scale)",
          {},
          false};
  c.log_y = true;
  c.x_tic = 1;
  const char* const kNames[] = {"p50", "p99", "p99.9"};
  for (int i = 0; i < 3; ++i) {
    ChartSeries s{csv, 1, 8 + i, kNames[i], ""};
    s.marked = true;
    c.series.push_back(s);
  }
  charts.draw(c, (dir / "noisy_neighbor.png").string());
}

}  // namespace

std::vector<double> interval_iops(const PhaseReport& p) { return interval_rates(p, Rate::kIops); }

void add_procedure_phase_json(const PhaseReport& p, Json& j) {
  j["device_qd_peak"] = p.result.peak_device_qd;
  if (p.spec->role != RecoveryRole::kNone) j["role"] = recovery_role_name(p.spec->role);
  if (p.result.interval_latency) j["latency_over_time"] = latency_json(p);
  if (p.result.passes) j["bandwidth"] = bandwidth_json(p);
  if (p.result.steady) j["steady_state"] = steady_json(p);
  if (p.result.offered_iops > 0) {
    Json o;
    o["offered_iops"] = p.result.offered_iops;
    o["arrivals"] = p.result.arrivals;
    o["host_queue_us_mean"] =
        host_queue_us(p);  // arrival to issue; latency_us is issue to completion
    o["left_on_host"] = p.result.left_on_host;
    j["open_loop"] = o;
  }
}

void add_procedure_summary_json(const RunReport& report, Json& summary) {
  Json sweep = Json::array(), sizes = Json::array();
  bool roles = false, load = false;
  for (const auto& p : report.phases) {
    roles |= p.spec->role != RecoveryRole::kNone;
    load |= p.spec->report == PhaseReportKind::kLoadCurve;
    const bool qd = p.spec->report == PhaseReportKind::kQdSweep;
    if (!qd && p.spec->report != PhaseReportKind::kSizeSweep) continue;
    Json row;
    row["sweep"] = p.spec->base_name;
    if (!qd) row["bs_bytes"] = p.spec->bs;
    row.update(figures_json(p));
    (qd ? sweep : sizes).push_back(row);
  }
  if (!sweep.empty()) summary["qd_sweep"] = sweep;
  if (load) summary["load_curve"] = load_curve_json(report);
  if (!sizes.empty()) summary["size_sweep"] = sizes;
  if (roles) summary["recovery"] = recovery_json(report);
  const Json noisy = noisy_neighbor_json(report);
  if (!noisy.empty()) summary["noisy_neighbor"] = noisy;
}

void write_procedure_results(const std::filesystem::path& dir, const Drive& drive,
                             const WorkloadSpec& workload, const RunReport& report,
                             ChartBatch& charts) {
  bool sweep = false, sizes = false, roles = false, load = false, noisy = false;
  for (const auto& p : report.phases) {
    sweep |= p.spec->report == PhaseReportKind::kQdSweep;
    noisy |= p.spec->report == PhaseReportKind::kNoisyNeighbor;
    load |= p.spec->report == PhaseReportKind::kLoadCurve;
    sizes |= p.spec->report == PhaseReportKind::kSizeSweep;
    roles |= p.spec->role != RecoveryRole::kNone;
    if (p.result.interval_latency) write_latency(dir, drive, p, charts);
    if (p.result.passes) write_bandwidth(dir, drive, p, charts);
  }
  if (sweep) write_sweep(dir, drive, workload, report, kQdSweep, charts);
  if (sizes) write_sweep(dir, drive, workload, report, kSizeSweep, charts);
  if (load) write_sweep(dir, drive, workload, report, kLoadCurve, charts);
  if (roles) write_recovery(dir, drive, report, charts);
  if (noisy) write_noisy_neighbor(dir, drive, workload, report, charts);
}

}  // namespace ssdtwin
