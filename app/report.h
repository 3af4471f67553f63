// Results of a run, written into the output folder:
//   summary.json            per-phase figures, run statistics, resolved config
//   metrics.csv             the per-phase metrics (app/phase_metrics.h) as one flat table
//   timeseries.csv          throughput and IOPS per interval of simulated time
//   timeseries_by_bytes.csv write MB/s per fixed amount written (when asked for)
//   *.png (+ .gp)           charts of the CSVs
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/runner.h"
#include "host/workload/workload.h"
#include "sim/chart.h"

namespace ssdtwin {

struct RunMeta {
  std::string drive_file;
  std::string workload_file;
  std::string drive_resolved_json;  // ConfigDoc::resolved_json()
  std::string workload_resolved_json;
  std::vector<std::string> overrides;
  bool verify = false;
  ChartOutput charts = ChartOutput::kPng;  // --charts
  double build_seconds = 0;                // wall time to build the drive before the first event
  // When the command began (configs read, drive built, simulated, results
  // written: run.wall_seconds counts from here); unset: the sum of the
  // parts. write_results() sets write_started for run.write_seconds.
  std::optional<std::chrono::steady_clock::time_point> started, write_started;
};

nlohmann::ordered_json summary_json(const Drive& drive, const WorkloadSpec& workload,
                                    const RunReport& report, const RunMeta& meta);

// Creates `out_dir` if needed and checks that files can be created in it,
// so that a run whose results could not be written stops before it starts;
// throws OutputError naming the folder.
void prepare_output_folder(const std::string& out_dir);

// Creates `out_dir` if needed and writes every file above, each under a
// temporary name renamed into place once whole, and summary.json last (an
// earlier run's is removed first): a folder with a summary.json is
// complete. Throws OutputError naming the file that could not be written.
void write_results(const std::string& out_dir, const Drive& drive, const WorkloadSpec& workload,
                   const RunReport& report, const RunMeta& meta);

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

}  // namespace ssdtwin
