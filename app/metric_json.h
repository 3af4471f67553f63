// Metric values into summary.json, each at its dotted path: a table's
// declarations alone give a block its keys, their order and their nesting.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/metric.h"

namespace ssdtwin {

// The value as summary.json writes it (null for kNull and kAbsent).
nlohmann::ordered_json metric_json(const MetricValue& m);

// Sets `v` at `dotted` ("events.media_reallocated") in `j`, making the
// objects on the way.
void put_at(nlohmann::ordered_json& j, const std::string& dotted, nlohmann::ordered_json v);

// The value at `dotted` in `j`, or nullptr when a key on the way is missing.
const nlohmann::ordered_json* find_at(const nlohmann::ordered_json& j, const std::string& dotted);

// Each metric of `table` that applies to `src`, in table order.
template <class Source>
void add_metrics(const std::vector<MetricDef<Source>>& table, const Source& src,
                 nlohmann::ordered_json& j) {
  for (const MetricDef<Source>& m : table) {
    const MetricValue val = m.value(src, m.arg);
    if (val.kind != MetricValue::Kind::kAbsent) put_at(j, m.name, metric_json(val));
  }
}

// A family's rows as an array: row k an object of `table`'s metrics that
// apply to `row_of(k)`.
template <class Source, class RowOf>
nlohmann::ordered_json metric_rows(const std::vector<MetricDef<Source>>& table, std::size_t n,
                                   RowOf row_of) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < n; ++k) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    add_metrics(table, row_of(k), row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ssdtwin
