// A statistic as its consumers see it: declared once, with its name, unit
// and description, in a table the results writer, `ssdtwin metrics`,
// metrics.csv and sweeps all read (after gem5's and SST's self-describing
// statistics). The counters themselves stay plain integers on the hot path;
// a metric is a function that reads them when results are written.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssdtwin {

// `v` rounded to `decimals` places (up to 22), as the double nearest that
// decimal, so it prints as one: scaled by a power of ten (exact), rounded
// and divided back. Multiplying by a step such as 0.01, which no double
// holds, would give 1700817 * 0.01 = 17008.170000000002.
inline double round_decimals(double v, int decimals) {
  double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  return std::round(v * scale) / scale;
}

// One metric's value for one phase. kAbsent: the metric does not apply
// (a fill-curve figure of a phase that is not a fill); kNull: it applies but
// has no value (write amplification of a phase that wrote nothing).
struct MetricValue {
  enum class Kind : std::uint8_t {
    kAbsent,
    kNull,
    kInt,
    kReal,
    kBool,
    kList,
    kText,
    kCounts,
    kReals,
    kJson
  };
  using Counts = std::vector<std::pair<std::string, std::uint64_t>>;
  Kind kind = Kind::kAbsent;
  std::uint64_t i = 0;
  double d = 0;
  std::vector<std::uint64_t> list;  // kList: a small histogram (summary.json only)
  std::string text;                 // kText: a name from the configuration (a file, a mode)
  Counts counts;                    // kCounts: counts keyed by what the run met (a trace's devices)
  std::vector<double> reals;        // kReals: a figure per interval or round (summary.json only)
  // kJson (in `text`): a document the run was given (its resolved configuration, its --set
  // list), kept as JSON text: sim/ does not depend on the JSON library.

  static MetricValue absent() { return {}; }
  static MetricValue null() { return with(Kind::kNull); }
  static MetricValue integer(std::uint64_t v) {
    MetricValue m = with(Kind::kInt);
    m.i = v;
    return m;
  }
  static MetricValue real(double v) {
    MetricValue m = with(Kind::kReal);
    m.d = v;
    return m;
  }
  static MetricValue boolean(bool v) {
    MetricValue m = with(Kind::kBool);
    m.i = v;
    return m;
  }
  static MetricValue of_list(std::vector<std::uint64_t> v) {
    MetricValue m = with(Kind::kList);
    m.list = std::move(v);
    return m;
  }
  static MetricValue of_reals(std::vector<double> v) {
    MetricValue m = with(Kind::kReals);
    m.reals = std::move(v);
    return m;
  }
  static MetricValue of_text(std::string v) {
    MetricValue m = with(Kind::kText);
    m.text = std::move(v);
    return m;
  }
  static MetricValue of_json(std::string v) {
    MetricValue m = with(Kind::kJson);
    m.text = std::move(v);
    return m;
  }
  static MetricValue of_counts(Counts v) {
    MetricValue m = with(Kind::kCounts);
    m.counts = std::move(v);
    return m;
  }
  // A metrics.csv cell: empty when absent, null, a list, text, counts or JSON; booleans as 0/1;
  // reals in the shortest form that reads back exactly.
  std::string csv() const;

 private:
  static MetricValue with(Kind k) {
    MetricValue m;
    m.kind = k;
    return m;
  }
};

// `Source` is what the value is read from (a phase's report). `arg` lets one
// function serve a family (the same figure per IO direction).
template <class Source>
struct MetricDef {
  std::string name;  // dotted path: the key in summary.json, the column in metrics.csv
  const char* unit;
  const char* description;
  MetricValue (*value)(const Source& src, int arg);
  int arg = 0;
  // Measures the simulator (wall time), not the drive: differs run to run,
  // so sweeps and regression baselines leave it out by default.
  bool wall = false;
};

}  // namespace ssdtwin
