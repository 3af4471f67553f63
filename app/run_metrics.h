// The run-level keys of summary.json and each phase's header: what was run
// (versions, files, the phase's shape), the drive model built, the run's
// cost, verification, power cuts, the configuration. Every key is declared
// once (name, unit, description, how it is read), as app/block_metrics.h
// does for a phase's sub-blocks; a family (one key per power state or
// latency bound, one row per power cut) declares each key once and the
// writer supplies the rows. summary.json and `ssdtwin metrics` read these
// tables.
#pragma once

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/phase_metrics.h"
#include "app/report.h"

namespace ssdtwin {

// What a run-level metric is read from: what summary_json() has at hand.
struct RunView {
  const Drive& drive;
  const WorkloadSpec& workload;
  const RunReport& report;
  const RunMeta& meta;
  // The build's version: the one compile definition report.cpp alone gets.
  const char* version;
  // One instant for run.write_seconds and run.wall_seconds, so the parts
  // add up to the whole.
  std::chrono::steady_clock::time_point now;
  const VerifySummary* verify;  // with --verify only
  std::size_t row = 0;          // a family's row: the power cut
};

using RunMetric = MetricDef<RunView>;

// Where a run block goes around what the writer nests itself: the review
// procedures' figures.
enum class RunPlace : std::uint8_t { kBeforeProcedures, kLast };

// One block of summary.json's top level.
struct RunBlock {
  std::string path;  // dotted; "" the summary itself; a trailing "[]" makes it an array of rows
  const char* description;
  std::vector<RunMetric> metrics;  // in the order of the block's keys
  RunPlace place;
  bool (*applies)(const RunView& v) = nullptr;      // nullptr: always
  std::size_t (*rows)(const RunView& v) = nullptr;  // a family's rows; nullptr: one object
  // A row another set of tables writes (a phase); nullptr: `metrics` do.
  nlohmann::ordered_json (*row_json)(const RunView& v, std::size_t row) = nullptr;
};

// In report order.
const std::vector<RunBlock>& run_blocks();

// Adds each block placed at `place` that applies to `j`, the summary.
void add_run_blocks(const RunView& v, RunPlace place, nlohmann::ordered_json& j);

// A phase's header: its name and the shape of its IO, from the workload.
const std::vector<PhaseMetric>& phase_header_metrics();

// What a phase family's key is read from: the phase and the row (a power
// state, a latency bound).
struct PhaseRow {
  const PhaseView& phase;
  std::size_t row;
};

// Keys named by the run's configuration: the drive's power states, the
// workload's latency bounds.
struct PhaseFamily {
  const char* description;
  std::vector<MetricDef<PhaseRow>> metrics;  // each name holds "*" where the row's key goes
  bool (*applies)(const PhaseView& v);
  std::size_t (*rows)(const PhaseView& v);
  std::string (*key)(const PhaseView& v, std::size_t row);
};

// In report order: after the phase metrics, before the phase's blocks.
const std::vector<PhaseFamily>& phase_families();

// Adds each family that applies to the phase's JSON object `j`.
void add_phase_families(const PhaseView& v, nlohmann::ordered_json& j);

// `ssdtwin metrics`: the phase header, the phase families, a section per run
// block and the sweep plan's tables (app/sweep_keys.h), one line per key.
void print_run_metrics(std::FILE* out);

}  // namespace ssdtwin
