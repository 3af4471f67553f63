// Metric values into summary.json, each at its dotted path: a table's
// declarations alone give a block its keys, their order and their nesting.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/metric.h"

namespace ssdtwin {

// The value as summary.json writes it (null for kNull and kAbsent).
nlohmann::ordered_json metric_json(const MetricValue& m);

// Sets `v` at `dotted` ("events.media_reallocated") in `j`, making the
// objects on the way.
void put_at(nlohmann::ordered_json& j, const std::string& dotted, nlohmann::ordered_json v);

// Each metric of `table` that applies to `src`, in table order.
template <class Source>
void add_metrics(const std::vector<MetricDef<Source>>& table, const Source& src,
                 nlohmann::ordered_json& j) {
  for (const MetricDef<Source>& m : table) {
    const MetricValue val = m.value(src, m.arg);
    if (val.kind != MetricValue::Kind::kAbsent) put_at(j, m.name, metric_json(val));
  }
}

}  // namespace ssdtwin
