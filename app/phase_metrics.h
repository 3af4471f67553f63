// The per-phase metrics of a run: every figure summary.json reports for a
// phase, declared once (name, unit, description, how it is read from the
// phase's counters). summary.json, metrics.csv, `ssdtwin metrics` and
// sweeps read this table; no consumer names or differences a counter itself.
#pragma once

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "app/drive.h"
#include "app/runner.h"
#include "host/workload/workload.h"
#include "sim/metric.h"

namespace ssdtwin {

// What a phase metric is read from.
struct PhaseView {
  const Drive& drive;
  const WorkloadSpec& workload;
  const PhaseReport& phase;
  double seconds;  // simulated length of the phase
};

// Phase `p` of a run, as its metrics read it.
inline PhaseView phase_view(const Drive& drive, const WorkloadSpec& w, const PhaseReport& p) {
  return PhaseView{drive, w, p, to_seconds(p.result.end - p.result.start)};
}

using PhaseMetric = MetricDef<PhaseView>;

// The IO directions as results name them (keys, columns), by IoOp.
inline constexpr const char* kOpNames[PhaseResult::kOps] = {"read", "write", "trim"};

// What a running counter added over the phase (after minus before): the
// one place a difference is taken. M: a member of FtlStats or NandStats, a
// count or an array of counts (then `i` picks one: a handle, a namespace).
template <auto M>
std::uint64_t ftl_delta(const PhaseReport& p) {
  return p.ftl_after.*M - p.ftl_before.*M;
}
template <auto M>
std::uint64_t ftl_delta(const PhaseReport& p, std::size_t i) {
  return (p.ftl_after.*M)[i] - (p.ftl_before.*M)[i];
}
// A NAND counter kept per cell mode is summed over the modes.
template <auto M>
std::uint64_t nand_delta(const PhaseReport& p) {
  if constexpr (std::is_array_v<std::remove_reference_t<decltype(p.nand_after.*M)>>) {
    std::uint64_t s = 0;
    for (std::size_t k = 0; k < std::size(p.nand_after.*M); ++k)
      s += (p.nand_after.*M)[k] - (p.nand_before.*M)[k];
    return s;
  } else {
    return p.nand_after.*M - p.nand_before.*M;
  }
}

// In report order: the order of summary.json's keys and metrics.csv's columns.
const std::vector<PhaseMetric>& phase_metrics();

// The metric of that name, or nullptr.
const PhaseMetric* find_phase_metric(const std::string& name);

// One metric of a phase by name, as a number (NaN when it does not apply or
// has no value); throws std::logic_error for a name not in the table.
double phase_metric(const PhaseView& v, const std::string& name);

// Adds each metric that applies to `phase` at its dotted path in `j`.
void add_phase_metrics(const PhaseView& v, nlohmann::ordered_json& j);

// metrics.csv: a unit row ('# unit', then one unit per column), the header
// ('phase', then the metric names) and one row per phase. List metrics stay
// in summary.json.
std::string metrics_csv(const Drive& drive, const WorkloadSpec& workload, const RunReport& report);

// Whether the metric is a column of metrics.csv (a scalar).
bool in_metrics_csv(const PhaseMetric& m);

// `ssdtwin metrics`: one line per metric (name, unit, description).
void print_metrics(std::FILE* out);

}  // namespace ssdtwin
