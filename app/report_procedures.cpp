#include "app/report_procedures.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

#include "app/metric_json.h"
#include "app/phase_metrics.h"
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

// Per full interval with a latency row: its IOPS; and per interval in which
// a command completed, its latency.
struct IntervalLatency {
  std::vector<double> iops;
  std::vector<double> p50_us, p99_us, max_us;
};

IntervalLatency interval_latency(const PhaseReport& p) {
  IntervalLatency l;
  l.iops = interval_iops(p);
  const auto& rows = p.result.interval_latency->rows();
  l.iops.resize(std::min(l.iops.size(), rows.size()));
  for (std::size_t i = 0; i < l.iops.size(); ++i) {
    if (rows[i].count == 0) continue;
    l.p50_us.push_back(to_us(rows[i].p50));
    l.p99_us.push_back(to_us(rows[i].p99));
    l.max_us.push_back(to_us(rows[i].max));
  }
  return l;
}

double max_or_zero(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

std::vector<double> pass_mb_per_s(const PhaseReport& p) {
  const ByteStepSeries& s = *p.result.passes;
  std::vector<double> r(s.segments());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = s.rate(k) / 1e6;
  return r;
}

std::vector<double> interval_mb_per_s(const PhaseReport& p) {
  std::vector<double> mbs = interval_rates(p, Rate::kBytes);
  for (double& v : mbs) v /= 1e6;
  return mbs;
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

// ---- The declared keys: what each block reads ------------------------------
using V = MetricValue;
using Series = std::vector<double> (*)(const PhaseReport& p);

const PhaseReport& phase(const ProcedureView& v) { return *v.phase; }

template <Series S>
V series_count(const ProcedureView& v, int) {
  return V::integer(S(phase(v)).size());
}
template <Series S>
V series_mean(const ProcedureView& v, int) {
  return V::real(mean_of(S(phase(v))));
}
template <Series S>
V series_median(const ProcedureView& v, int) {
  return V::real(median_of(S(phase(v))));
}
// Null for a series without an interval.
template <Series S>
V series_min(const ProcedureView& v, int) {
  const std::vector<double> s = S(phase(v));
  return s.empty() ? V::null() : V::real(*std::min_element(s.begin(), s.end()));
}
template <Series S>
V series_max(const ProcedureView& v, int) {
  const std::vector<double> s = S(phase(v));
  return s.empty() ? V::null() : V::real(*std::max_element(s.begin(), s.end()));
}
template <auto M>
std::vector<double> latency_column(const PhaseReport& p) {
  return interval_latency(p).*M;
}
constexpr Series kLatencyIops = latency_column<&IntervalLatency::iops>;
constexpr Series kP50 = latency_column<&IntervalLatency::p50_us>;
constexpr Series kP99 = latency_column<&IntervalLatency::p99_us>;
constexpr Series kMax = latency_column<&IntervalLatency::max_us>;

// --- A phase's own keys and open-loop arrivals -------------------------------
V device_qd_peak(const ProcedureView& v, int) { return V::integer(phase(v).result.peak_device_qd); }
V role(const ProcedureView& v, int) {
  const RecoveryRole r = phase(v).spec->role;
  return r == RecoveryRole::kNone ? V::absent() : V::of_text(recovery_role_name(r));
}
V offered_iops(const ProcedureView& v, int) { return V::real(phase(v).result.offered_iops); }
V arrivals(const ProcedureView& v, int) { return V::integer(phase(v).result.arrivals); }
V queue_us(const ProcedureView& v, int) { return V::real(host_queue_us(phase(v))); }
V left_on_host(const ProcedureView& v, int) { return V::integer(phase(v).result.left_on_host); }

ProcedureMetric offered_iops_metric() {
  return {"offered_iops", "IOPS", "the arrival rate offered", offered_iops};
}
ProcedureMetric left_on_host_metric() {
  return {"left_on_host", "IOs", "arrivals still waiting on the host at the phase's end",
          left_on_host};
}

// --- Bandwidth (report: bandwidth) ------------------------------------------
V pass_bytes(const ProcedureView& v, int) { return V::integer(phase(v).spec->span); }
V pass_rates(const ProcedureView& v, int) { return V::of_reals(pass_mb_per_s(phase(v))); }

// --- Steady state (until_steady) --------------------------------------------
const SteadyStateMonitor& monitor(const ProcedureView& v) { return *phase(v).result.steady; }
// The steady round counted from 1, as a reviewer counts rounds, and when it
// ended; null when the monitor (if any) found none.
V steady_round(const SteadyStateMonitor* m) {
  return m && m->steady() ? V::integer(m->steady_round() + 1) : V::null();
}
V steady_at_s(const SteadyStateMonitor* m) {
  return m && m->steady()
             ? V::real(to_seconds(m->round()) * static_cast<double>(m->steady_round() + 1))
             : V::null();
}
V round_s(const ProcedureView& v, int) { return V::real(to_seconds(monitor(v).round())); }
V window_rounds(const ProcedureView& v, int) { return V::integer(monitor(v).window()); }
V tolerance(const ProcedureView& v, int) { return V::real(monitor(v).tolerance()); }
V slope_tolerance(const ProcedureView& v, int) {
  const SteadyStateMonitor& m = monitor(v);
  return m.slope_tolerance() != m.tolerance() ? V::real(m.slope_tolerance()) : V::absent();
}
V after_s(const ProcedureView& v, int) { return V::real(to_seconds(monitor(v).earned().after)); }
V while_gc(const ProcedureView& v, int) { return V::boolean(monitor(v).earned().need_work); }
V reached(const ProcedureView& v, int) { return V::boolean(monitor(v).steady()); }
// GC moves beside the figure: a steady state with none is the fresh drive's
// plateau, not the state GC holds the drive in.
V window_gc_moved(const ProcedureView& v, int) {
  const SteadyStateMonitor& m = monitor(v);
  const std::vector<double>& work = m.round_work();
  const std::size_t last = std::min(m.window(), work.size());
  return V::real(std::accumulate(work.end() - static_cast<std::ptrdiff_t>(last), work.end(), 0.0));
}
V phase_steady_round(const ProcedureView& v, int) { return steady_round(&monitor(v)); }
V phase_steady_at_s(const ProcedureView& v, int) { return steady_at_s(&monitor(v)); }
// The monitor stops at the steady round, so the last window is the one.
template <auto M>
V steady_window(const ProcedureView& v, int) {
  const SteadyStateMonitor& m = monitor(v);
  if (!m.steady()) return V::absent();
  return V::real(snia_steady_state(m.rounds(), m.window(), m.tolerance(), m.slope_tolerance()).*M);
}
V round_iops(const ProcedureView& v, int) { return V::of_reals(monitor(v).rounds()); }
V round_gc_moved(const ProcedureView& v, int) { return V::of_reals(monitor(v).round_work()); }

// --- A phase as one row of a sweep or of the recovery -------------------------
V phase_name(const ProcedureView& v, int) { return V::of_text(phase(v).spec->name); }
V sweep_name(const ProcedureView& v, int) { return V::of_text(phase(v).spec->base_name); }
V bs_bytes(const ProcedureView& v, int) { return V::integer(phase(v).spec->bs); }
V rw(const ProcedureView& v, int) { return V::of_text(rw_kind_name(phase(v).spec->rw)); }
V iodepth(const ProcedureView& v, int) { return V::integer(phase(v).spec->iodepth); }
template <auto M>
V figure(const ProcedureView& v, int) {
  return V::real(phase_figures(phase(v)).*M);
}
V step(const ProcedureView& v, int) { return V::of_text(load_step(phase(v))); }
V gc_moved(const ProcedureView& v, int) {
  return V::integer(ftl_delta<&FtlStats::gc_moved_slots>(phase(v)));
}

ProcedureMetric phase_metric() { return {"phase", "name", "the phase", phase_name}; }
ProcedureMetric role_metric() {
  return {"role", "name", "its part in degrade and recover (fob, degrade, steady, recovered)",
          role};
}
ProcedureMetric step_metric() {
  return {"step", "name", "percent of the closed-loop maximum offered, or max", step};
}
// The first `n` of a phase's figures over all its ops.
void add_figures(std::vector<ProcedureMetric>& t, std::size_t n) {
  const std::vector<ProcedureMetric> all = {
      {"iops", "IOPS", "commands per simulated second, all ops", figure<&PhaseFigures::iops>},
      {"mb_per_s", "MB/s", "reads and writes (10^6 B/s)", figure<&PhaseFigures::mb_per_s>},
      {"mean_latency_us", "us", "mean command latency, all ops",
       figure<&PhaseFigures::mean_latency_us>},
      {"p99_latency_us", "us", "99th percentile command latency, all ops",
       figure<&PhaseFigures::p99_latency_us>},
  };
  t.insert(t.end(), all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
}
void add_phase_figures(std::vector<ProcedureMetric>& t) {
  t.push_back(phase_metric());
  t.push_back({"rw", "name", "its IO pattern", rw});
  t.push_back({"iodepth", "commands", "its queue depth", iodepth});
  t.push_back({"device_qd", "commands", "most commands the device held at once", device_qd_peak});
  add_figures(t, 4);
}

// --- Noisy neighbor: the watched tenant's reads -----------------------------
V tenant(const ProcedureView& v, int) { return V::of_text(tenant_reads(phase(v)).tenant); }
V priority(const ProcedureView& v, int) {
  return V::of_text(sq_priority_name(tenant_reads(phase(v)).priority));
}
V streams(const ProcedureView& v, int) { return V::integer(phase(v).spec->streams()); }
V tenant_count(const ProcedureView& v, int) { return V::integer(tenant_reads(phase(v)).reads); }
template <auto M>
V tenant_figure(const ProcedureView& v, int) {
  return V::real(tenant_reads(phase(v)).*M);
}

// --- Recovery: the role phases' scores ----------------------------------------
const SteadyStateMonitor* degrade_monitor(const RunReport& r) {
  const PhaseReport* degrade = role_phase(r, RecoveryRole::kDegrade);
  return degrade ? degrade->result.steady.get() : nullptr;
}
V ratio(double a, double b) { return b > 0 ? V::real(a / b) : V::null(); }
V fob_iodepth(const ProcedureView& v, int) {
  const RecoveryScores s = recovery_scores(*v.run);
  return s.fob ? V::integer(s.fob->spec->iodepth) : V::null();
}
// Null without the role's phase.
template <auto Phase, auto Iops>
V role_iops(const ProcedureView& v, int) {
  const RecoveryScores s = recovery_scores(*v.run);
  return s.*Phase ? V::real(s.*Iops) : V::null();
}
V steady_over_fob(const ProcedureView& v, int) {
  const RecoveryScores s = recovery_scores(*v.run);
  return s.steady ? ratio(s.steady_iops, s.steady_fob_iops) : V::null();
}
V recovered_over_fob(const ProcedureView& v, int) {
  const RecoveryScores s = recovery_scores(*v.run);
  return s.recovered ? ratio(s.recovered_iops, s.fob_iops) : V::null();
}
V degrade_round(const ProcedureView& v, int) { return steady_round(degrade_monitor(*v.run)); }
V degrade_at_s(const ProcedureView& v, int) { return steady_at_s(degrade_monitor(*v.run)); }

// --- The tables -------------------------------------------------------------
std::vector<ProcedureMetric> own_table() {
  return {{"device_qd_peak", "commands", "most commands the device held at once", device_qd_peak},
          role_metric()};
}

std::vector<ProcedureMetric> latency_table() {
  return {
      {"intervals", "intervals", "full intervals (the last, partial one is a drain)",
       series_count<kLatencyIops>},
      {"average_iops", "IOPS", "mean of the intervals' IOPS", series_mean<kLatencyIops>},
      {"min_interval_iops", "IOPS", "the slowest interval's IOPS (null without one)",
       series_min<kLatencyIops>},
      {"median_interval_p50_us", "us", "median of the intervals' median latency",
       series_median<kP50>},
      {"median_interval_p99_us", "us", "median of the intervals' 99th percentile",
       series_median<kP99>},
      {"worst_interval_p99_us", "us", "the highest interval's 99th percentile (null without one)",
       series_max<kP99>},
      {"max_us", "us", "the slowest command of any interval (null without one)", series_max<kMax>},
  };
}

std::vector<ProcedureMetric> bandwidth_table() {
  return {
      {"intervals", "intervals", "full intervals (the last, partial one is a drain)",
       series_count<interval_mb_per_s>},
      {"average_mb_per_s", "MB/s", "mean of the intervals' reads and writes",
       series_mean<interval_mb_per_s>},
      {"min_interval_mb_per_s", "MB/s", "the slowest interval (null without one)",
       series_min<interval_mb_per_s>},
      {"max_interval_mb_per_s", "MB/s", "the fastest interval (null without one)",
       series_max<interval_mb_per_s>},
      {"pass_bytes", "B", "one pass over the phase's range", pass_bytes},
      {"pass_mb_per_s", "MB/s", "per whole pass over the range (a list)", pass_rates},
  };
}

std::vector<ProcedureMetric> steady_table() {
  return {
      {"round_s", "s", "one round, whose IOPS is one sample", round_s},
      {"window_rounds", "rounds", "rounds in the window", window_rounds},
      {"tolerance", "ratio", "how far a round may be from the window's mean (null: not tested)",
       tolerance},
      {"slope_tolerance", "ratio", "the same for the line's change, when it differs",
       slope_tolerance},
      {"after_s", "s", "no window ending earlier was tested", after_s},
      {"while_gc", "bool", "a window counted only if GC moved data in each round", while_gc},
      {"reached", "bool", "whether a window was steady", reached},
      {"window_gc_moved_pages", "pages", "GC moves in the last window's rounds", window_gc_moved},
      {"round", "rounds", "the steady round, from 1 (null when not reached)", phase_steady_round},
      {"at_s", "s", "when it ended, from the phase's measuring start (null when not reached)",
       phase_steady_at_s},
      {"window_mean_iops", "IOPS", "the steady window's mean",
       steady_window<&SteadyStateResult::mean>},
      {"window_max_excursion_iops", "IOPS", "its round farthest from the mean",
       steady_window<&SteadyStateResult::max_excursion>},
      {"window_line_change_iops", "IOPS", "the least-squares line's change across it",
       steady_window<&SteadyStateResult::line_change>},
      {"round_iops", "IOPS", "per closed round (a list)", round_iops},
      {"round_gc_moved_pages", "pages", "GC moves per closed round (a list)", round_gc_moved},
  };
}

std::vector<ProcedureMetric> open_loop_table() {
  return {
      offered_iops_metric(),
      {"arrivals", "IOs", "arrivals generated", arrivals},
      {"host_queue_us_mean", "us",
       "mean wait from arrival to issue (latency_us is issue to completion)", queue_us},
      left_on_host_metric(),
  };
}

// A sweep's row: the sweep's name, the transfer size (`sizes`), the phase.
std::vector<ProcedureMetric> sweep_table(bool sizes) {
  std::vector<ProcedureMetric> t = {
      {"sweep", "name", "the workload entry the phase came from", sweep_name}};
  if (sizes) t.push_back({"bs_bytes", "B", "transfer size", bs_bytes});
  add_phase_figures(t);
  return t;
}

std::vector<ProcedureMetric> load_steps_table() {
  std::vector<ProcedureMetric> t = {
      {"profile", "name", "the workload entry the step came from", sweep_name},
      step_metric(),
      offered_iops_metric(),
  };
  add_figures(t, 4);
  t.push_back({"host_queue_us", "us", "mean wait from arrival to issue", queue_us});
  t.push_back(left_on_host_metric());
  return t;
}

std::vector<ProcedureMetric> load_peaks_table() {
  std::vector<ProcedureMetric> t = {step_metric()};
  add_figures(t, 3);
  return t;
}

std::vector<ProcedureMetric> recovery_table() {
  return {
      {"iodepth", "commands", "the FOB phase's queue depth (null without one)", fob_iodepth},
      {"fob_iops", "IOPS", "fresh out of the box, at the recovered (else steady) depth",
       role_iops<&RecoveryScores::fob, &RecoveryScores::fob_iops>},
      {"steady_iops", "IOPS", "the steady phase's (null without one)",
       role_iops<&RecoveryScores::steady, &RecoveryScores::steady_iops>},
      {"recovered_iops", "IOPS", "the recovered phase's (null without one)",
       role_iops<&RecoveryScores::recovered, &RecoveryScores::recovered_iops>},
      {"steady_over_fob", "ratio", "steady over FOB at the steady phase's depth", steady_over_fob},
      {"recovered_over_fob", "ratio", "recovered over FOB", recovered_over_fob},
      {"degrade_steady_round", "rounds", "the degrade phase's steady round, from 1 (or null)",
       degrade_round},
      {"degrade_steady_at_s", "s", "when it ended (or null)", degrade_at_s},
  };
}

std::vector<ProcedureMetric> recovery_phases_table() {
  std::vector<ProcedureMetric> t = {role_metric()};
  add_phase_figures(t);
  t.push_back({"gc_moved_pages", "pages", "GC moves in the phase", gc_moved});
  return t;
}

std::vector<ProcedureMetric> noisy_neighbor_table() {
  return {
      phase_metric(),
      {"tenant", "name", "the watched tenant: the phase's first job", tenant},
      {"priority", "name", "its arbitration class", priority},
      {"streams", "jobs", "jobs in the phase", streams},
      {"reads", "IOs", "its reads completed", tenant_count},
      {"read_iops", "IOPS", "its reads per simulated second", tenant_figure<&TenantReads::iops>},
      {"read_p50_us", "us", "its median read latency", tenant_figure<&TenantReads::p50_us>},
      {"read_p99_us", "us", "its 99th percentile", tenant_figure<&TenantReads::p99_us>},
      {"read_p99_9_us", "us", "its 99.9th percentile", tenant_figure<&TenantReads::p999_us>},
  };
}

template <PhaseReportKind K>
std::vector<const PhaseReport*> phases_of(const RunReport& r) {
  std::vector<const PhaseReport*> out;
  for (const auto& p : r.phases)
    if (p.spec->report == K) out.push_back(&p);
  return out;
}

std::vector<const PhaseReport*> role_phases(const RunReport& r) {
  std::vector<const PhaseReport*> out;
  for (const auto& p : r.phases)
    if (p.spec->role != RecoveryRole::kNone) out.push_back(&p);
  return out;
}

// Per profile, in workload order: the open-loop step with the highest
// achieved IOPS (the first of equals).
std::vector<const PhaseReport*> load_peaks(const RunReport& r) {
  std::vector<const PhaseReport*> out;
  std::vector<double> best;
  for (const PhaseReport* p : phases_of<PhaseReportKind::kLoadCurve>(r)) {
    if (!p->spec->rate.open_loop()) continue;
    const double iops = phase_figures(*p).iops;
    std::size_t k = 0;
    while (k < out.size() && out[k]->spec->base_name != p->spec->base_name) ++k;
    if (k == out.size()) {
      out.push_back(p);
      best.push_back(iops);
    } else if (iops > best[k]) {
      out[k] = p;
      best[k] = iops;
    }
  }
  return out;
}

std::vector<ProcedureBlock> build_phase_blocks() {
  return {
      {"", "every phase", own_table(), [](const ProcedureView&) { return true; }},
      {"latency_over_time", "report: latency: IOPS and latency per interval, summarized",
       latency_table(),
       [](const ProcedureView& v) { return phase(v).result.interval_latency != nullptr; }},
      {"bandwidth", "report: bandwidth: MB/s per interval and per pass over the range",
       bandwidth_table(), [](const ProcedureView& v) { return phase(v).result.passes != nullptr; }},
      {"steady_state", "until_steady: the SNIA steady-state test, round by round", steady_table(),
       [](const ProcedureView& v) { return phase(v).result.steady != nullptr; }},
      {"open_loop", "rate or load_curve: arrivals offered whatever the device does",
       open_loop_table(), [](const ProcedureView& v) { return phase(v).result.offered_iops > 0; }},
  };
}

std::vector<ProcedureBlock> build_run_blocks() {
  return {
      {"qd_sweep[]", "report: qd_sweep: one row per phase of the sweeps", sweep_table(false),
       nullptr, phases_of<PhaseReportKind::kQdSweep>},
      {"load_curve.steps[]", "load_curve: one row per step", load_steps_table(), nullptr,
       phases_of<PhaseReportKind::kLoadCurve>},
      {"load_curve.peaks{}", "per profile, its open-loop step of the highest IOPS",
       load_peaks_table(),
       [](const ProcedureView& v) {
         return !phases_of<PhaseReportKind::kLoadCurve>(*v.run).empty();
       },
       load_peaks},
      {"size_sweep[]", "report: size_sweep: one row per phase of the sweeps", sweep_table(true),
       nullptr, phases_of<PhaseReportKind::kSizeSweep>},
      {"recovery", "role: degrade and recover, scored against fresh out of the box",
       recovery_table(), [](const ProcedureView& v) { return !role_phases(*v.run).empty(); }},
      {"recovery.phases[]", "one row per phase with a role", recovery_phases_table(), nullptr,
       role_phases},
      {"noisy_neighbor[]", "report: noisy_neighbor: one row per phase", noisy_neighbor_table(),
       nullptr, phases_of<PhaseReportKind::kNoisyNeighbor>},
  };
}

// Each block that applies to `v` at its path in `j`.
void add_blocks(const std::vector<ProcedureBlock>& blocks, const ProcedureView& v, Json& j) {
  for (const ProcedureBlock& b : blocks) {
    if (b.rows == nullptr) {
      if (!b.applies(v)) continue;
      Json block = Json::object();
      add_metrics(b.metrics, v, b.path.empty() ? j : block);
      if (!b.path.empty()) put_at(j, b.path, std::move(block));
      continue;
    }
    const std::vector<const PhaseReport*> rows = b.rows(*v.run);
    if (b.applies ? !b.applies(v) : rows.empty()) continue;
    const bool by_name = b.path.back() == '}';
    Json block = by_name ? Json::object() : Json::array();
    for (const PhaseReport* p : rows) {
      Json row = Json::object();
      add_metrics(b.metrics, ProcedureView{v.run, p}, row);
      if (by_name)
        block[p->spec->base_name] = std::move(row);
      else
        block.push_back(std::move(row));
    }
    put_at(j, b.path.substr(0, b.path.size() - 2), std::move(block));
  }
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
  const IntervalLatency s = interval_latency(p);
  char title[256];
  std::snprintf(title, sizeof title, "IOPS per interval: %s, %s (average %.0f IOPS)",
                drive.name.c_str(), p.spec->name.c_str(), mean_of(s.iops));
  Chart top{title, "time (s)", "IOPS", {}, true};
  top.series.push_back({csv, 1, 2, "IOPS", ""});
  std::snprintf(
      title, sizeof title,
      "Latency per interval (log scale): median p50 %.0f us, median p99 %.0f us, max %.0f us",
      median_of(s.p50_us), median_of(s.p99_us), max_or_zero(s.max_us));
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

void write_bandwidth(const std::filesystem::path& dir, const Drive& drive, const PhaseReport& p,
                     ChartBatch& charts) {
  const std::string csv = (dir / "bandwidth.csv").string();
  charts.wait_for_file(csv);  // an earlier phase's chart may still be reading it
  OutputFile f = open_csv(csv, "second,mb_per_s");
  const std::vector<double> mbs = interval_mb_per_s(p);
  const double secs = to_seconds(p.result.series->interval());
  char line[96];
  for (std::size_t i = 0; i < mbs.size(); ++i) {
    std::snprintf(line, sizeof line, "%g,%.3f\n", secs * static_cast<double>(i + 1), mbs[i]);
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

const std::vector<ProcedureBlock>& procedure_phase_blocks() {
  static const std::vector<ProcedureBlock> blocks = build_phase_blocks();
  return blocks;
}

const std::vector<ProcedureBlock>& procedure_run_blocks() {
  static const std::vector<ProcedureBlock> blocks = build_run_blocks();
  return blocks;
}

void add_procedure_phase_json(const PhaseReport& p, Json& j) {
  add_blocks(procedure_phase_blocks(), ProcedureView{nullptr, &p}, j);
}

void add_procedure_summary_json(const RunReport& report, Json& summary) {
  add_blocks(procedure_run_blocks(), ProcedureView{&report, nullptr}, summary);
}

namespace {

// `in`: the object the blocks' paths are in ("" for the top level).
void print_blocks(std::FILE* out, const std::vector<ProcedureBlock>& blocks,
                  const std::string& in) {
  for (const ProcedureBlock& b : blocks) {
    const std::string path = in.empty() ? b.path : b.path.empty() ? in : in + "." + b.path;
    std::fprintf(out, "\n%s: %s\n", path.c_str(), b.description);
    for (const ProcedureMetric& m : b.metrics)
      std::fprintf(out, "  %-42s %-11s %s\n", m.name.c_str(), m.unit, m.description);
  }
}

}  // namespace

void print_procedure_metrics(std::FILE* out) {
  std::fprintf(out,
               "\nReview procedures: summary.json phases[] and its top level, when they apply "
               "(\"[]\": one row per phase, \"{}\": one row per profile)\n");
  print_blocks(out, procedure_phase_blocks(), "phases[]");
  print_blocks(out, procedure_run_blocks(), "");
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
