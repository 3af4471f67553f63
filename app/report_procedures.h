// Results of the review procedures that look at a phase over time or
// compare phases (docs/RUNNING.md "Results"):
//   report: latency    latency.csv, latency.png   IOPS and latency p50/p99/max per interval (D)
//   report: qd_sweep   qd_sweep.csv, qd_sweep.png IOPS, MB/s, latency per queue depth (E)
//   report: bandwidth  bandwidth.csv, .png        MB/s per interval, MB/s per pass (F)
//   report: size_sweep size_sweep.csv, .png       MB/s, IOPS, latency per transfer size (ATTO)
//   report: noisy_neighbor noisy_neighbor.csv, .png  the first job's read latency p50/p99/p99.9
//                                                 per phase: a tenant alone, beside others (issue
//                                                 31)
//   role: fob|degrade|steady|recovered            degrade_recover.csv, .png and the
//                                                 recovered/FOB ratio (F)
//   until_steady                                  the round that reached steady state
#pragma once

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/drive.h"
#include "app/runner.h"
#include "sim/chart.h"
#include "sim/metric.h"

namespace ssdtwin {

// Per-interval IOPS of a phase (all ops), full intervals only: the phase's
// last, partial interval is a drain, not a measurement.
std::vector<double> interval_iops(const PhaseReport& p);

// What a procedure's metric is read from: a phase (its own blocks), the run
// (a block over phases) or a row of such a block (the run and the row's phase).
struct ProcedureView {
  const RunReport* run;
  const PhaseReport* phase;
};

using ProcedureMetric = MetricDef<ProcedureView>;

// One block of procedure results. Its keys are declared once, in the order
// summary.json writes them; a family (one row per phase) declares each key
// once and the writer supplies the rows.
struct ProcedureBlock {
  // Dotted; "" puts the keys in the phase's own object, a trailing "[]" makes
  // an array of rows and a trailing "{}" an object of rows by sweep name.
  std::string path;
  const char* description;
  std::vector<ProcedureMetric> metrics;
  bool (*applies)(const ProcedureView& v) = nullptr;  // nullptr: a family with rows
  std::vector<const PhaseReport*> (*rows)(const RunReport& r) = nullptr;  // nullptr: one object
};

// A phase's blocks (summary.json phases[]) and the run's (summary.json's
// top level), in report order.
const std::vector<ProcedureBlock>& procedure_phase_blocks();
const std::vector<ProcedureBlock>& procedure_run_blocks();

// `ssdtwin metrics`: a section per block, one line per metric.
void print_procedure_metrics(std::FILE* out);

// Adds the phase's blocks: device_qd_peak always; latency_over_time,
// bandwidth, steady_state and role when the phase asks for them.
void add_procedure_phase_json(const PhaseReport& p, nlohmann::ordered_json& phase);

// Adds the blocks that span phases: `qd_sweep` and `size_sweep` (one row per
// phase of the sweep), `recovery` (role phases and their scores) and
// `noisy_neighbor` (one row per phase).
void add_procedure_summary_json(const RunReport& report, nlohmann::ordered_json& summary);

// Writes the CSVs and charts above for the phases that ask for them; the
// charts are drawn in `charts` (finished by the caller).
void write_procedure_results(const std::filesystem::path& dir, const Drive& drive,
                             const WorkloadSpec& workload, const RunReport& report,
                             ChartBatch& charts);

}  // namespace ssdtwin
