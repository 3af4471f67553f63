// The keys of a sweep's plan (sweep.json) and of each point's point.json:
// declared once (name, unit, description, how it is read from the plan), as
// app/run_metrics.h does for summary.json. A family (one row per axis,
// chart, group or point) declares each key once and the writer supplies the
// rows. The plan's writer and `ssdtwin metrics` read these tables.
#pragma once

#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/sweep.h"
#include "sim/metric.h"

namespace ssdtwin {

// What a plan key is read from: the plan and, in a family, the row.
struct SweepView {
  const SweepPlan& plan;
  std::size_t row = 0;  // the axis, chart, group or point
  std::size_t sub = 0;  // in an axis's `with`: the key set with it
};

using SweepKey = MetricDef<SweepView>;

// How a key reads back from sweep.json: `value` into the plan and, in a
// family, into row `row` (in an axis's `with`, its key `sub`).
using SweepRead = void (*)(SweepPlan& plan, std::size_t row, std::size_t sub,
                           const nlohmann::ordered_json& value);

// One table: the plan's top level, or one row of a family. Each key is
// declared once, with how it is written and read; the three vectors are
// that declaration's parts, in the order of the object's keys.
struct SweepTable {
  const char* path;  // as `ssdtwin metrics` names it; "[]": one row per member
  const char* description;
  std::vector<SweepKey> keys;
  std::vector<SweepRead> reads;  // nullptr: not read (derived, as a point's index)
  // What a plan written before the key existed meant (JSON); nullptr: required.
  std::vector<const char*> absent;
};

// sweep.json, then its families in the order they nest.
const std::vector<SweepTable>& sweep_tables();

// sweep.json's content.
nlohmann::ordered_json sweep_plan_json(const SweepPlan& plan);

// sweep.json's content read back (throws nlohmann::json's errors, or
// std::invalid_argument naming a missing key).
SweepPlan sweep_plan_from_json(const nlohmann::ordered_json& j);

// Point `i` as sweep.json's points[] and its point.json hold it.
nlohmann::ordered_json sweep_point_json(const SweepPlan& plan, std::size_t i);

// `ssdtwin metrics`: a section per table, one line per key.
void print_sweep_keys(std::FILE* out);

}  // namespace ssdtwin
