// The sub-blocks of a phase in summary.json beside its flat metrics: the
// flushes and FUA writes a phase asked for, what a trace replay read and issued, each job's and
// each namespace's host figures, NVMe FDP's statistics log and its rows per reclaim unit handle.
// Every key is declared once (name, unit, description, how it is read); a
// family (one row per job, namespace or handle) declares each key once and
// the writer supplies the row. summary.json and `ssdtwin metrics` read
// these tables.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/phase_metrics.h"
#include "sim/histogram.h"

namespace ssdtwin {

// A row's host figures: per op (IoOp), the IOs and bytes it completed and
// their latency, over `seconds`.
struct HostFigures {
  LatencyHistogram latency[PhaseResult::kOps];
  std::uint64_t ios[PhaseResult::kOps] = {};
  std::uint64_t bytes[PhaseResult::kOps] = {};
  double seconds = 0;
};

// What a block's metric is read from: the phase and, in a family, the row.
struct RowView {
  const PhaseView& phase;
  std::size_t row;          // the job, namespace or handle; 0 in a block of one
  const HostFigures* host;  // jobs and namespaces: the row's host figures
};

using RowMetric = MetricDef<RowView>;

// One sub-block of a phase.
struct MetricBlock {
  std::string path;  // dotted; a trailing "[]" makes it an array of rows
  const char* description;
  std::vector<RowMetric> metrics;  // in the order of the block's keys
  bool (*applies)(const PhaseView& v);
  std::size_t (*rows)(const PhaseView& v) = nullptr;  // a family's rows; nullptr: one object
  HostFigures (*host)(const PhaseView& v, std::size_t row) = nullptr;
};

// In report order: the order of the phase's keys in summary.json.
const std::vector<MetricBlock>& metric_blocks();

// Adds each block that applies to the phase to its JSON object `j`.
void add_block_metrics(const PhaseView& v, nlohmann::ordered_json& j);

// `ssdtwin metrics`: a section per block, one line per metric.
void print_block_metrics(std::FILE* out);

}  // namespace ssdtwin
