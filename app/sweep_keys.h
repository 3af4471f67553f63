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

// One table: the plan's top level, or one row of a family.
struct SweepTable {
  const char* path;  // as `ssdtwin metrics` names it; "[]": one row per member
  const char* description;
  std::vector<SweepKey> keys;  // in the order of the object's keys
};

// sweep.json, then its families in the order they nest.
const std::vector<SweepTable>& sweep_tables();

// sweep.json's content.
nlohmann::ordered_json sweep_plan_json(const SweepPlan& plan);

// Point `i` as sweep.json's points[] and its point.json hold it.
nlohmann::ordered_json sweep_point_json(const SweepPlan& plan, std::size_t i);

// `ssdtwin metrics`: a section per table, one line per key.
void print_sweep_keys(std::FILE* out);

}  // namespace ssdtwin
