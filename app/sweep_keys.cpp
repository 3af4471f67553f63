#include "app/sweep_keys.h"

#include <string>
#include <utility>
#include <vector>

#include "app/metric_json.h"

namespace ssdtwin {

namespace {

using Json = nlohmann::ordered_json;
using V = MetricValue;

enum Table { kPlan, kAxis, kWith, kChart, kGroup, kPoint };

const std::vector<SweepKey>& keys(Table t) { return sweep_tables()[t].keys; }

V text(const std::string& s) { return V::of_text(s); }
V texts(const std::vector<std::string>& s) { return V::of_json(Json(s).dump()); }

// A family nested as one key's value: `n` rows of table `t`, an object each.
V rows(Table t, std::size_t n, SweepView (*row)(const SweepView& v, std::size_t k),
       const SweepView& v) {
  return V::of_json(metric_rows(keys(t), n, [&](std::size_t k) { return row(v, k); }).dump());
}
SweepView member(const SweepView& v, std::size_t k) { return {v.plan, k}; }
SweepView with_key(const SweepView& v, std::size_t k) { return {v.plan, v.row, k}; }

const SweepAxis& axis(const SweepView& v) { return v.plan.axes[v.row]; }
const SweepChart& chart(const SweepView& v) { return v.plan.charts[v.row]; }
const SweepGroup& group(const SweepView& v) { return v.plan.groups[v.row]; }
const SweepPoint& point(const SweepView& v) { return v.plan.points[v.row]; }

std::vector<SweepKey> plan_table() {
  return {
      {"name", "name", "the sweep's name (`name:`; by default the file's stem)",
       [](const SweepView& v, int) { return text(v.plan.name); }},
      {"file", "path", "the sweep file, absolute",
       [](const SweepView& v, int) { return text(v.plan.file); }},
      {"axes", "rows", "the axes, in the file's order (axes[])",
       [](const SweepView& v, int) { return rows(kAxis, v.plan.axes.size(), member, v); }},
      {"metrics", "names", "results.csv's metric columns",
       [](const SweepView& v, int) { return texts(v.plan.metrics); }},
      {"phases", "names", "the phases results.csv keeps (empty: every phase)",
       [](const SweepView& v, int) { return texts(v.plan.phases); }},
      {"charts", "rows", "the sweep's charts (charts[])",
       [](const SweepView& v, int) { return rows(kChart, v.plan.charts.size(), member, v); }},
      {"point_charts", "name", "what each point's run draws (its --charts)",
       [](const SweepView& v, int) { return text(v.plan.point_charts); }},
      {"slurm.partition", "name", "the Slurm partition (empty: the cluster's default)",
       [](const SweepView& v, int) { return text(v.plan.slurm.partition); }},
      {"slurm.time", "time", "the job array's time limit (empty: the partition's)",
       [](const SweepView& v, int) { return text(v.plan.slurm.time); }},
      {"slurm.account", "name", "the account charged (empty: the user's default)",
       [](const SweepView& v, int) { return text(v.plan.slurm.account); }},
      {"slurm.extra", "lines", "further #SBATCH lines",
       [](const SweepView& v, int) { return texts(v.plan.slurm.extra); }},
      {"groups", "rows", "points sharing one preconditioning (groups[])",
       [](const SweepView& v, int) { return rows(kGroup, v.plan.groups.size(), member, v); }},
      {"points", "rows", "every point of the sweep (points[])",
       [](const SweepView& v, int) { return rows(kPoint, v.plan.points.size(), member, v); }},
  };
}

std::vector<SweepKey> axis_table() {
  return {
      {"key", "key", "what the axis sets: drive, workload (files) or a key path",
       [](const SweepView& v, int) { return text(axis(v).key); }},
      {"values", "values", "its values, as written",
       [](const SweepView& v, int) { return texts(axis(v).values); }},
      {"with", "rows", "keys set together with it (with[])",
       [](const SweepView& v, int) { return rows(kWith, axis(v).with.size(), with_key, v); }},
      {"name", "name", "its label on charts (empty: the key)",
       [](const SweepView& v, int) { return text(axis(v).name); }},
  };
}

std::vector<SweepKey> with_table() {
  return {
      {"key", "key", "a key set with the axis",
       [](const SweepView& v, int) { return text(axis(v).with[v.sub].first); }},
      {"values", "values", "its value for each of the axis's",
       [](const SweepView& v, int) { return texts(axis(v).with[v.sub].second); }},
  };
}

std::vector<SweepKey> chart_table() {
  return {
      {"metrics", "names", "the metrics drawn (one unit)",
       [](const SweepView& v, int) { return texts(chart(v).metrics); }},
      {"x", "key", "the axis along x", [](const SweepView& v, int) { return text(chart(v).x); }},
      {"lines", "key", "the axis drawn as one line per value (empty: none)",
       [](const SweepView& v, int) { return text(chart(v).lines); }},
      {"phase", "name", "the phase drawn (empty: the only one)",
       [](const SweepView& v, int) { return text(chart(v).phase); }},
      {"title", "text", "the chart's title (empty: made from the metrics)",
       [](const SweepView& v, int) { return text(chart(v).title); }},
      {"file", "name", "the PNG's name (empty: chart_<k>.png)",
       [](const SweepView& v, int) { return text(chart(v).file); }},
  };
}

std::vector<SweepKey> group_table() {
  return {
      {"drive", "path", "the group's drive file",
       [](const SweepView& v, int) { return text(group(v).drive); }},
      {"workload", "path", "the workload file whose preconditioning it shares",
       [](const SweepView& v, int) { return text(group(v).workload); }},
      {"sets", "settings", "the overrides that shape the preconditioning",
       [](const SweepView& v, int) { return texts(group(v).sets); }},
  };
}

// The point's value on each axis, keyed by the axis's key.
V point_axes(const SweepView& v, int) {
  Json o = Json::object();
  for (std::size_t a = 0; a < v.plan.axes.size(); ++a) o[v.plan.axes[a].key] = point(v).values[a];
  return V::of_json(o.dump());
}

std::vector<SweepKey> point_table() {
  return {
      {"index", "index", "the point's number (its folder points/NNNN)",
       [](const SweepView& v, int) { return V::integer(v.row); }},
      {"axes", "values", "its value on each axis, keyed by the axis's key", point_axes},
      {"drive", "path", "the drive file it runs, absolute",
       [](const SweepView& v, int) { return text(point(v).drive); }},
      {"workload", "path", "the workload file it runs, absolute",
       [](const SweepView& v, int) { return text(point(v).workload); }},
      {"sets", "settings", "its --set overrides",
       [](const SweepView& v, int) { return texts(point(v).sets); }},
      // JSON text: -1 (no group) as the signed number it is.
      {"group", "index", "the group whose preconditioning it starts from (-1: none)",
       [](const SweepView& v, int) { return V::of_json(std::to_string(point(v).group)); }},
  };
}

std::vector<SweepTable> build_tables() {
  return {
      {"sweep.json", "a sweep's plan, in its output folder", plan_table()},
      {"axes[]", "an axis of the sweep", axis_table()},
      {"axes[].with[]", "a key an axis sets with its own", with_table()},
      {"charts[]", "a chart of the sweep", chart_table()},
      {"groups[]", "points whose preconditioning is the same", group_table()},
      {"points[]", "a point, as sweep.json lists it and its point.json holds it", point_table()},
  };
}

}  // namespace

const std::vector<SweepTable>& sweep_tables() {
  static const std::vector<SweepTable> tables = build_tables();
  return tables;
}

Json sweep_plan_json(const SweepPlan& plan) {
  Json j = Json::object();
  add_metrics(keys(kPlan), SweepView{plan}, j);
  return j;
}

Json sweep_point_json(const SweepPlan& plan, std::size_t i) {
  Json j = Json::object();
  add_metrics(keys(kPoint), SweepView{plan, i}, j);
  return j;
}

void print_sweep_keys(std::FILE* out) {
  std::fprintf(
      out, "\nSweep plans: sweep.json and each point's point.json (\"[]\": one row per member)\n");
  for (const SweepTable& t : sweep_tables()) {
    std::fprintf(out, "\n%s: %s\n", t.path, t.description);
    for (const SweepKey& k : t.keys)
      std::fprintf(out, "  %-42s %-11s %s\n", k.name.c_str(), k.unit, k.description);
  }
}

}  // namespace ssdtwin
