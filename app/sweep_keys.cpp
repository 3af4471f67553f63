#include "app/sweep_keys.h"

#include <stdexcept>
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

// Reading back: each key's value into the plan, in table order.
void read_object(Table t, SweepPlan& plan, std::size_t row, std::size_t sub, const Json& object);
// Each element of a family's array as a new row of table `t`, appended to `into`.
template <class Row>
void read_rows(Table t, SweepPlan& plan, std::vector<Row>& into, const Json& array) {
  for (const Json& element : array) {
    into.emplace_back();
    read_object(t, plan, into.size() - 1, 0, element);
  }
}
using Strings = std::vector<std::string>;

// One declared key: how it is written (`key.value`) and read back.
struct Field {
  SweepKey key;
  SweepRead read;  // nullptr: derived on reading (a point's index)
  // A plan written before the key existed: the JSON it meant. nullptr: required.
  const char* absent = nullptr;
};

std::vector<Field> plan_table() {
  return {
      {{"name", "name", "the sweep's name (`name:`; by default the file's stem)",
        [](const SweepView& v, int) { return text(v.plan.name); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.name = j; }},
      {{"file", "path", "the sweep file, absolute",
        [](const SweepView& v, int) { return text(v.plan.file); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.file = j; }},
      {{"axes", "rows", "the axes, in the file's order (axes[])",
        [](const SweepView& v, int) { return rows(kAxis, v.plan.axes.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kAxis, p, p.axes, j);
       }},
      {{"metrics", "names", "results.csv's metric columns",
        [](const SweepView& v, int) { return texts(v.plan.metrics); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.metrics = j.get<Strings>(); }},
      {{"phases", "names", "the phases results.csv keeps (empty: every phase)",
        [](const SweepView& v, int) { return texts(v.plan.phases); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.phases = j.get<Strings>(); }},
      {{"charts", "rows", "the sweep's charts (charts[])",
        [](const SweepView& v, int) { return rows(kChart, v.plan.charts.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kChart, p, p.charts, j);
       }},
      // Before points could leave their charts out, they drew them all.
      {{"point_charts", "name", "what each point's run draws (its --charts)",
        [](const SweepView& v, int) { return text(v.plan.point_charts); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.point_charts = j; },
       "\"png\""},
      {{"slurm.partition", "name", "the Slurm partition (empty: the cluster's default)",
        [](const SweepView& v, int) { return text(v.plan.slurm.partition); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.slurm.partition = j; }},
      {{"slurm.time", "time", "the job array's time limit (empty: the partition's)",
        [](const SweepView& v, int) { return text(v.plan.slurm.time); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.slurm.time = j; }},
      {{"slurm.account", "name", "the account charged (empty: the user's default)",
        [](const SweepView& v, int) { return text(v.plan.slurm.account); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { p.slurm.account = j; }},
      {{"slurm.extra", "lines", "further #SBATCH lines",
        [](const SweepView& v, int) { return texts(v.plan.slurm.extra); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         p.slurm.extra = j.get<Strings>();
       }},
      {{"groups", "rows", "points sharing one preconditioning (groups[])",
        [](const SweepView& v, int) { return rows(kGroup, v.plan.groups.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kGroup, p, p.groups, j);
       }},
      // After axes: a point's values are keyed by its axes' keys.
      {{"points", "rows", "every point of the sweep (points[])",
        [](const SweepView& v, int) { return rows(kPoint, v.plan.points.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kPoint, p, p.points, j);
       }},
  };
}

std::vector<Field> axis_table() {
  return {
      {{"key", "key", "what the axis sets: drive, workload (files) or a key path",
        [](const SweepView& v, int) { return text(axis(v).key); }},
       [](SweepPlan& p, std::size_t a, std::size_t, const Json& j) { p.axes[a].key = j; }},
      {{"values", "values", "its values, as written",
        [](const SweepView& v, int) { return texts(axis(v).values); }},
       [](SweepPlan& p, std::size_t a, std::size_t, const Json& j) {
         p.axes[a].values = j.get<Strings>();
       }},
      {{"with", "rows", "keys set together with it (with[])",
        [](const SweepView& v, int) { return rows(kWith, axis(v).with.size(), with_key, v); }},
       [](SweepPlan& p, std::size_t a, std::size_t, const Json& j) {
         for (const Json& w : j) {
           p.axes[a].with.emplace_back();
           read_object(kWith, p, a, p.axes[a].with.size() - 1, w);
         }
       }},
      {{"name", "name", "its label on charts (empty: the key)",
        [](const SweepView& v, int) { return text(axis(v).name); }},
       [](SweepPlan& p, std::size_t a, std::size_t, const Json& j) { p.axes[a].name = j; }},
  };
}

std::vector<Field> with_table() {
  return {
      {{"key", "key", "a key set with the axis",
        [](const SweepView& v, int) { return text(axis(v).with[v.sub].first); }},
       [](SweepPlan& p, std::size_t a, std::size_t w, const Json& j) {
         p.axes[a].with[w].first = j;
       }},
      {{"values", "values", "its value for each of the axis's",
        [](const SweepView& v, int) { return texts(axis(v).with[v.sub].second); }},
       [](SweepPlan& p, std::size_t a, std::size_t w, const Json& j) {
         p.axes[a].with[w].second = j.get<Strings>();
       }},
  };
}

std::vector<Field> chart_table() {
  return {
      {{"metrics", "names", "the metrics drawn (one unit)",
        [](const SweepView& v, int) { return texts(chart(v).metrics); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) {
         p.charts[c].metrics = j.get<Strings>();
       },
       "[]"},
      // Never written: a plan from before charts drew several metrics named one.
      {{"metric", "name", "read only: the one metric of a chart in an older plan",
        [](const SweepView&, int) { return V::absent(); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) {
         if (!j.is_null()) p.charts[c].metrics.push_back(j);
       },
       "null"},
      {{"x", "key", "the axis along x", [](const SweepView& v, int) { return text(chart(v).x); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) { p.charts[c].x = j; }},
      {{"lines", "key", "the axis drawn as one line per value (empty: none)",
        [](const SweepView& v, int) { return text(chart(v).lines); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) { p.charts[c].lines = j; }},
      {{"phase", "name", "the phase drawn (empty: the only one)",
        [](const SweepView& v, int) { return text(chart(v).phase); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) { p.charts[c].phase = j; }},
      {{"title", "text", "the chart's title (empty: made from the metrics)",
        [](const SweepView& v, int) { return text(chart(v).title); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) { p.charts[c].title = j; }},
      {{"file", "name", "the PNG's name (empty: chart_<k>.png)",
        [](const SweepView& v, int) { return text(chart(v).file); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) { p.charts[c].file = j; }},
  };
}

std::vector<Field> group_table() {
  return {
      {{"drive", "path", "the group's drive file",
        [](const SweepView& v, int) { return text(group(v).drive); }},
       [](SweepPlan& p, std::size_t g, std::size_t, const Json& j) { p.groups[g].drive = j; }},
      {{"workload", "path", "the workload file whose preconditioning it shares",
        [](const SweepView& v, int) { return text(group(v).workload); }},
       [](SweepPlan& p, std::size_t g, std::size_t, const Json& j) { p.groups[g].workload = j; }},
      {{"sets", "settings", "the overrides that shape the preconditioning",
        [](const SweepView& v, int) { return texts(group(v).sets); }},
       [](SweepPlan& p, std::size_t g, std::size_t, const Json& j) {
         p.groups[g].sets = j.get<Strings>();
       }},
  };
}

// The point's value on each axis, keyed by the axis's key.
V point_axes(const SweepView& v, int) {
  Json o = Json::object();
  for (std::size_t a = 0; a < v.plan.axes.size(); ++a) o[v.plan.axes[a].key] = point(v).values[a];
  return V::of_json(o.dump());
}

std::vector<Field> point_table() {
  return {
      {{"index", "index", "the point's number (its folder points/NNNN)",
        [](const SweepView& v, int) { return V::integer(v.row); }},
       nullptr},
      {{"axes", "values", "its value on each axis, keyed by the axis's key", point_axes},
       [](SweepPlan& p, std::size_t i, std::size_t, const Json& j) {
         for (const SweepAxis& a : p.axes) p.points[i].values.push_back(j.at(a.key));
       }},
      {{"drive", "path", "the drive file it runs, absolute",
        [](const SweepView& v, int) { return text(point(v).drive); }},
       [](SweepPlan& p, std::size_t i, std::size_t, const Json& j) { p.points[i].drive = j; }},
      {{"workload", "path", "the workload file it runs, absolute",
        [](const SweepView& v, int) { return text(point(v).workload); }},
       [](SweepPlan& p, std::size_t i, std::size_t, const Json& j) { p.points[i].workload = j; }},
      {{"sets", "settings", "its --set overrides",
        [](const SweepView& v, int) { return texts(point(v).sets); }},
       [](SweepPlan& p, std::size_t i, std::size_t, const Json& j) {
         p.points[i].sets = j.get<Strings>();
       }},
      // JSON text: -1 (no group) as the signed number it is.
      {{"group", "index", "the group whose preconditioning it starts from (-1: none)",
        [](const SweepView& v, int) { return V::of_json(std::to_string(point(v).group)); }},
       [](SweepPlan& p, std::size_t i, std::size_t, const Json& j) { p.points[i].group = j; }},
  };
}

SweepTable table(const char* path, const char* description, const std::vector<Field>& fields) {
  SweepTable t{path, description, {}, {}, {}};
  for (const Field& f : fields) {
    t.keys.push_back(f.key);
    t.reads.push_back(f.read);
    t.absent.push_back(f.absent);
  }
  return t;
}

std::vector<SweepTable> build_tables() {
  return {
      table("sweep.json", "a sweep's plan, in its output folder", plan_table()),
      table("axes[]", "an axis of the sweep", axis_table()),
      table("axes[].with[]", "a key an axis sets with its own", with_table()),
      table("charts[]", "a chart of the sweep", chart_table()),
      table("groups[]", "points whose preconditioning is the same", group_table()),
      table("points[]", "a point, as sweep.json lists it and its point.json holds it",
            point_table()),
  };
}

void read_object(Table t, SweepPlan& plan, std::size_t row, std::size_t sub, const Json& object) {
  const SweepTable& table = sweep_tables()[t];
  for (std::size_t k = 0; k < table.keys.size(); ++k) {
    if (!table.reads[k]) continue;
    const std::string& name = table.keys[k].name;
    const Json* value = find_at(object, name);
    if (value) {
      table.reads[k](plan, row, sub, *value);
    } else if (table.absent[k]) {
      table.reads[k](plan, row, sub, Json::parse(table.absent[k]));
    } else {
      throw std::invalid_argument(std::string("no key ") + table.path + " " + name);
    }
  }
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

SweepPlan sweep_plan_from_json(const Json& j) {
  SweepPlan plan;
  read_object(kPlan, plan, 0, 0, j);
  return plan;
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
