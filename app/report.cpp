#include "app/report.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "app/block_metrics.h"
#include "app/metric_json.h"
#include "app/phase_metrics.h"
#include "app/report_procedures.h"
#include "app/run_metrics.h"
#include "app/timeseries_columns.h"
#include "ftl/zoned_ftl.h"
#include "sim/chart.h"
#include "sim/csv.h"
#include "sim/fill_curve.h"
#include "sim/output_file.h"

namespace ssdtwin {

using Json = nlohmann::ordered_json;

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

Json summary_json(const Drive& drive, const WorkloadSpec& workload, const RunReport& report,
                  const RunMeta& meta) {
  std::optional<VerifySummary> verify;
  if (meta.verify) verify = verify_summary(drive, report);
  // The wall times count up to now: this file is written last.
  const RunView v{drive,
                  workload,
                  report,
                  meta,
                  SSDTWIN_VERSION,  // the CMake project's version
                  std::chrono::steady_clock::now(),
                  verify ? &*verify : nullptr};
  Json j;
  add_run_blocks(v, RunPlace::kBeforeProcedures, j);
  add_procedure_summary_json(report, j);
  add_run_blocks(v, RunPlace::kLast, j);
  return j;
}

void prepare_output_folder(const std::string& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw OutputError(out_dir + ": cannot create the output folder (--out): " + ec.message());
  // Permissions, a read-only mount or a folder that is not one: the probe
  // meets them as the results would (root passes permission checks anyway).
  const std::string probe = (std::filesystem::path(out_dir) / ".ssdtwin_write_test").string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw OutputError(out_dir +
                      ": cannot write in the output folder (--out): " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_results(const std::string& out_dir, const Drive& drive, const WorkloadSpec& workload,
                   const RunReport& report, const RunMeta& run_meta) {
  namespace fs = std::filesystem;
  RunMeta meta = run_meta;
  meta.write_started = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw OutputError(out_dir + ": cannot create the output folder: " + ec.message());
  const fs::path dir(out_dir);
  // summary.json is the folder's completion marker: an earlier run's goes
  // first, and this run's is written last, so a folder holding one was
  // written whole (each file itself is renamed into place when complete).
  const std::string summary = (dir / "summary.json").string();
  remove_output_file(summary);
  // Each chart draws while the files after it are written; all are finished
  // before summary.json.
  ChartBatch charts(meta.charts);

  {
    // The whole latency distribution of every phase and op: the histogram's
    // non-empty buckets (each at most 3.1% wide), for tail analysis.
    // share_above (1 - cumulative) is the tail, drawn on log axes.
    const std::string csv = (dir / "latency_hist.csv").string();
    OutputFile f(csv);
    f << "phase,op,bucket_upper_us,count,cumulative_share,share_above\n";
    char line[256];
    long rows = 0;  // data rows written so far
    Chart tail{"Latency tail: " + drive.name + ", " + workload.name,
               "latency (us, log scale)",
               "share of IOs slower (log scale)",
               {},
               false};
    tail.log_x = true;
    tail.log_y = true;
    // One line per measured phase and op; preconditioning phases only when
    // nothing else was measured; at most 12 lines stay readable.
    bool measured = false;
    for (const auto& p : report.phases) measured |= !p.spec->precondition && !p.spec->fast;
    for (const auto& p : report.phases) {
      for (int op = 0; op < PhaseResult::kOps; ++op) {
        const LatencyHistogram& h = p.result.latency[op];
        if (h.count() == 0) continue;
        std::uint64_t seen = 0;
        int buckets = 0;
        const long first_row = rows;
        for (std::size_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
          const std::uint64_t n = h.bucket_count(b);
          if (n == 0) continue;
          seen += n;
          ++buckets;
          const double share = static_cast<double>(seen) / static_cast<double>(h.count());
          // as snprintf's "%s,%s,%.3f,%llu,%.7f,%.7f\n" (its %f was most of
          // the tpcc row's output time: thousands of rows)
          PrintfLine row(line, sizeof line);
          row.text(p.spec->name.c_str()).text(",").text(kOpNames[op]).text(",");
          row.fixed(to_us(LatencyHistogram::bucket_high(b)), 3).text(",");
          row.whole(n).text(",").fixed(share, 7).text(",").fixed(1.0 - share, 7).text("\n");
          f << row.view();
          ++rows;
        }
        if ((measured && p.spec->precondition) || tail.series.size() >= 12) continue;
        // Every IO in one bucket leaves no tail to draw on a log axis (its
        // one share above is 0); gnuplot rejects a chart with no point.
        if (buckets < 2) continue;
        tail.series.push_back({csv, 3, 6, p.spec->name + " " + kOpNames[op],
                               "strcol(1) eq " + gnuplot_string(p.spec->name) +
                                   " && strcol(2) eq '" + kOpNames[op] + "'"});
        tail.series.back().first_row = first_row;
        tail.series.back().last_row = rows - 1;
      }
    }
    f.commit();
    if (!tail.series.empty()) charts.draw(tail, (dir / "latency_hist.png").string());
  }
  bool have_by_bytes = false;
  {
    OutputFile f((dir / "timeseries.csv").string());
    // Activity columns: counters as per-interval differences, levels as
    // sampled at the interval's end (app/runner.h, activity_columns()).
    const auto& cols = activity_columns();
    const char* sep = "";
    for (const TimeseriesColumn& c : timeseries_columns(drive.power_meter != nullptr)) {
      f << sep << c.name;
      sep = ",";
    }
    f << "\n";
    char line[256];
    for (const auto& p : report.phases) {
      const IntervalSeries& s = *p.result.series;
      const BoundarySampler* a = p.activity.get();
      for (std::size_t i = 0; i < s.bins().size(); ++i) {
        const IntervalSeries::Bin& b = s.bins()[i];
        // The phase's last interval is usually partial: rate over what it covered.
        const Tick bin_start = s.start() + s.interval() * i;
        const Tick covered = std::min(s.interval(), p.result.end - bin_start);
        if (covered == 0) continue;
        const double secs = to_seconds(covered);
        std::snprintf(
            line, sizeof line, "%s,%.6f,%.3f,%.3f,%.1f,%.1f,%.1f,%.4f", p.spec->name.c_str(),
            to_seconds(bin_start + covered), static_cast<double>(b.bytes[0]) / secs / 1e6,
            static_cast<double>(b.bytes[1]) / secs / 1e6, static_cast<double>(b.ios[0]) / secs,
            static_cast<double>(b.ios[1]) / secs, static_cast<double>(b.ios[2]) / secs, b.gauge);
        f << line;
        for (std::size_t c = 0; c < cols.size(); ++c) {
          if (!a || a->rows() < 2) {
            f << ",";
            continue;
          }
          const std::size_t k = std::min(i + 1, a->rows() - 1);
          const double v = cols[c].running_total ? a->row(k)[c] - a->row(i)[c] : a->row(k)[c];
          // A running total's difference as printf's ",%.0f", a level as
          // ",%.4g" (printf's own %f was 3% of the tpcc row).
          PrintfLine cell(line, sizeof line);
          cell.text(",");
          if (cols[c].running_total)
            cell.fixed(v, 0);
          else
            cell.general(v, 4);
          f << cell.view();
        }
        if (drive.power_meter) {
          const BoundarySampler* e = p.energy.get();
          if (e && e->rows() >= 2) {
            const std::size_t k = std::min(i + 1, e->rows() - 1);
            std::snprintf(line, sizeof line, ",%.4f", (e->row(k)[0] - e->row(i)[0]) / secs);
            f << line;
          } else {
            f << ",";
          }
        }
        f << "\n";
      }
      have_by_bytes = have_by_bytes || p.result.by_bytes->segments() > 0;
    }
    f.commit();
  }
  if (have_by_bytes) {
    OutputFile f((dir / "timeseries_by_bytes.csv").string());
    f << "phase,gb_written,write_mb_per_s\n";
    char line[256];
    for (const auto& p : report.phases) {
      const ByteStepSeries& s = *p.result.by_bytes;
      for (std::size_t k = 0; k < s.segments(); ++k) {
        std::snprintf(line, sizeof line, "%s,%.3f,%.3f\n", p.spec->name.c_str(),
                      static_cast<double>((k + 1) * s.step()) / 1e9, s.rate(k) / 1e6);
        f << line;
      }
    }
    f.commit();
  }

  for (const auto& p : report.phases) {
    if (p.spec->report != PhaseReportKind::kFillCurve) continue;
    const std::string csv = (dir / "fill.csv").string();
    charts.wait_for_file(csv);  // an earlier phase's chart may still be reading it
    OutputFile f(csv);
    f << "gb_written,mb_per_s\n";
    const ByteStepSeries& s = *p.result.by_bytes;
    char line[128];
    for (std::size_t k = 0; k < s.segments(); ++k) {
      std::snprintf(line, sizeof line, "%.3f,%.3f\n", static_cast<double>((k + 1) * s.step()) / 1e9,
                    s.rate(k) / 1e6);
      f << line;
    }
    f.commit();
    const PhaseView v = phase_view(drive, workload, p);
    char title[256];
    std::snprintf(
        title, sizeof title,
        "Whole-drive fill: %s (SLC cache %.1f GB, last 16 GB %.0f MB/s, overall %.0f MB/s)",
        drive.name.c_str(), phase_metric(v, "fill.slc_cache_gb"),
        phase_metric(v, "fill.last16gb_mb_per_s"), phase_metric(v, "fill.overall_mb_per_s"));
    Chart c{title, "GB written", "MB/s", {}, false};
    c.series.push_back({csv, 1, 2, "MB/s per GB written", ""});
    charts.draw(c, (dir / "fill.png").string());
  }

  for (const auto& p : report.phases) {
    if (p.spec->report != PhaseReportKind::kConsistency) continue;
    const std::string csv = (dir / "consistency.csv").string();
    charts.wait_for_file(csv);  // an earlier phase's chart may still be reading it
    OutputFile f(csv);
    f << "second,iops\n";
    const std::vector<double> iops = interval_iops(p);
    const double secs = to_seconds(p.result.series->interval());
    char line[96];
    for (std::size_t i = 0; i < iops.size(); ++i) {
      std::snprintf(line, sizeof line, "%g,%.1f\n", secs * static_cast<double>(i + 1), iops[i]);
      f << line;
    }
    f.commit();
    const PhaseView v = phase_view(drive, workload, p);
    const double score = phase_metric(v, "consistency.average_over_stddev");
    char title[256];
    std::snprintf(title, sizeof title,
                  "Performance consistency: %s (last %.0f s: %.0f IOPS, avg/stddev %.1f)",
                  drive.name.c_str(), phase_metric(v, "consistency.score_window_s"),
                  phase_metric(v, "consistency.average_iops"), std::isnan(score) ? 0.0 : score);
    Chart chart{title, "time (s)", "IOPS", {}, true};
    chart.series.push_back({csv, 1, 2, "IOPS", ""});
    charts.draw(chart, (dir / "consistency.png").string());
  }

  bool have_ws = false;
  for (const auto& p : report.phases) have_ws |= p.spec->report == PhaseReportKind::kWorkingSet;
  if (have_ws) {
    const std::string csv = (dir / "working_set.csv").string();
    OutputFile f(csv);
    f << "span_gb,iops,mean_latency_us,map_hit_rate\n";
    char line[160];
    for (const auto& p : report.phases) {
      if (p.spec->report != PhaseReportKind::kWorkingSet) continue;
      const int rd = static_cast<int>(IoOp::kRead);
      const double secs = to_seconds(p.result.end - p.result.start);
      std::snprintf(line, sizeof line, "%.3f,%.1f,%.3f,%.4f\n",
                    static_cast<double>(p.spec->span) / 1e9,
                    secs > 0 ? static_cast<double>(p.result.ios[rd]) / secs : 0.0,
                    p.result.latency[rd].mean() / 1e3,
                    phase_metric(phase_view(drive, workload, p), "map_cache.hit_rate"));
      f << line;
    }
    f.commit();
    Chart c{"Working set: 4 KiB random reads vs span, " + drive.name,
            "span (GB, log scale)",
            "IOPS",
            {},
            false};
    c.log_x = true;
    c.series.push_back({csv, 1, 2, "IOPS", ""});
    charts.draw(c, (dir / "working_set.png").string());
  }

  write_procedure_results(dir, drive, workload, report, charts);

  // Fast (state-only) phases take no simulated time: nothing to draw if all are.
  bool timed = false;
  for (const auto& p : report.phases) timed |= !p.spec->fast;
  if (timed) {
    Chart tput{"Throughput over time: " + drive.name + ", " + workload.name,
               "simulated time (s)",
               "MB/s",
               {},
               false};
    const bool power = drive.power_meter != nullptr;
    const int time_col = timeseries_column("time_s", power);
    tput.series.push_back({(dir / "timeseries.csv").string(), time_col,
                           timeseries_column("write_mb_per_s", power), "write MB/s", ""});
    tput.series.push_back({(dir / "timeseries.csv").string(), time_col,
                           timeseries_column("read_mb_per_s", power), "read MB/s", ""});
    charts.draw(tput, (dir / "timeseries.png").string());
    if (drive.power_meter) {
      // Power over time above, throughput below, on one time axis.
      const std::string csv = (dir / "timeseries.csv").string();
      const int power_col = timeseries_column("power_w", power);
      Chart watts{"Power over time: " + drive.name + ", " + workload.name,
                  "simulated time (s)",
                  "W",
                  {},
                  false};
      watts.series.push_back({csv, time_col, power_col, "power (W)", ""});
      charts.draw_stacked({watts, tput}, (dir / "power.png").string());
    }
  }
  if (have_by_bytes) {
    Chart c{"Write speed per amount written: " + drive.name,
            "GB written (per phase)",
            "MB/s",
            {},
            false};
    c.series.push_back({(dir / "timeseries_by_bytes.csv").string(), 2, 3, "write MB/s", ""});
    charts.draw(c, (dir / "timeseries_by_bytes.png").string());
  }
  // The flat table sweeps and `ssdtwin compare` read: one row per phase.
  write_output_file((dir / "metrics.csv").string(), metrics_csv(drive, workload, report));
  charts.finish();
  write_output_file(summary, summary_json(drive, workload, report, meta).dump(2) + "\n");
}

}  // namespace ssdtwin
