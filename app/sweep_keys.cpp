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

V value_of(const std::string& s) { return text(s); }
V value_of(const Strings& s) { return texts(s); }

// A key that is one member of the plan (or of its Slurm options), written
// from it and read back into it.
template <auto Member>
Field plan_key(const char* name, const char* unit, const char* description,
               const char* absent = nullptr) {
  return {
      {name, unit, description, [](const SweepView& v, int) { return value_of(v.plan.*Member); }},
      [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { j.get_to(p.*Member); },
      absent};
}
template <auto Member>
Field slurm_key(const char* name, const char* unit, const char* description) {
  return {{name, unit, description,
           [](const SweepView& v, int) { return value_of(v.plan.slurm.*Member); }},
          [](SweepPlan& p, std::size_t, std::size_t, const Json& j) { j.get_to(p.slurm.*Member); }};
}
// A key that is one member of a family's row: row `v.row` of the plan's `Rows`.
template <auto Rows, auto Member>
Field row_key(const char* name, const char* unit, const char* description,
              const char* absent = nullptr) {
  return {{name, unit, description,
           [](const SweepView& v, int) { return value_of((v.plan.*Rows)[v.row].*Member); }},
          [](SweepPlan& p, std::size_t r, std::size_t, const Json& j) {
            j.get_to((p.*Rows)[r].*Member);
          },
          absent};
}

std::vector<Field> plan_table() {
  return {
      plan_key<&SweepPlan::name>("name", "name",
                                 "the sweep's name (`name:`; by default the file's stem)"),
      plan_key<&SweepPlan::file>("file", "path", "the sweep file, absolute"),
      {{"axes", "rows", "the axes, in the file's order (axes[])",
        [](const SweepView& v, int) { return rows(kAxis, v.plan.axes.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kAxis, p, p.axes, j);
       }},
      plan_key<&SweepPlan::metrics>("metrics", "names", "results.csv's metric columns"),
      plan_key<&SweepPlan::phases>("phases", "names",
                                   "the phases results.csv keeps (empty: every phase)"),
      {{"charts", "rows", "the sweep's charts (charts[])",
        [](const SweepView& v, int) { return rows(kChart, v.plan.charts.size(), member, v); }},
       [](SweepPlan& p, std::size_t, std::size_t, const Json& j) {
         read_rows(kChart, p, p.charts, j);
       }},
      // Before points could leave their charts out, they drew them all.
      plan_key<&SweepPlan::point_charts>("point_charts", "name",
                                         "what each point's run draws (its --charts)", "\"png\""),
      slurm_key<&SlurmOptions::partition>("slurm.partition", "name",
                                          "the Slurm partition (empty: the cluster's default)"),
      slurm_key<&SlurmOptions::time>("slurm.time", "time",
                                     "the job array's time limit (empty: the partition's)"),
      slurm_key<&SlurmOptions::account>("slurm.account", "name",
                                        "the account charged (empty: the user's default)"),
      slurm_key<&SlurmOptions::extra>("slurm.extra", "lines", "further #SBATCH lines"),
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
      row_key<&SweepPlan::axes, &SweepAxis::key>(
          "key", "key", "what the axis sets: drive, workload (files) or a key path"),
      row_key<&SweepPlan::axes, &SweepAxis::values>("values", "values", "its values, as written"),
      {{"with", "rows", "keys set together with it (with[])",
        [](const SweepView& v, int) { return rows(kWith, axis(v).with.size(), with_key, v); }},
       [](SweepPlan& p, std::size_t a, std::size_t, const Json& j) {
         for (const Json& w : j) {
           p.axes[a].with.emplace_back();
           read_object(kWith, p, a, p.axes[a].with.size() - 1, w);
         }
       }},
      row_key<&SweepPlan::axes, &SweepAxis::name>("name", "name",
                                                  "its label on charts (empty: the key)"),
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
      row_key<&SweepPlan::charts, &SweepChart::metrics>("metrics", "names",
                                                        "the metrics drawn (one unit)", "[]"),
      // Never written: a plan from before charts drew several metrics named one.
      {{"metric", "name", "read only: the one metric of a chart in an older plan",
        [](const SweepView&, int) { return V::absent(); }},
       [](SweepPlan& p, std::size_t c, std::size_t, const Json& j) {
         if (!j.is_null()) p.charts[c].metrics.push_back(j);
       },
       "null"},
      row_key<&SweepPlan::charts, &SweepChart::x>("x", "key", "the axis along x"),
      row_key<&SweepPlan::charts, &SweepChart::lines>(
          "lines", "key", "the axis drawn as one line per value (empty: none)"),
      row_key<&SweepPlan::charts, &SweepChart::phase>("phase", "name",
                                                      "the phase drawn (empty: the only one)"),
      row_key<&SweepPlan::charts, &SweepChart::title>(
          "title", "text", "the chart's title (empty: made from the metrics)"),
      row_key<&SweepPlan::charts, &SweepChart::file>("file", "name",
                                                     "the PNG's name (empty: chart_<k>.png)"),
  };
}

std::vector<Field> group_table() {
  return {
      row_key<&SweepPlan::groups, &SweepGroup::drive>("drive", "path", "the group's drive file"),
      row_key<&SweepPlan::groups, &SweepGroup::workload>(
          "workload", "path", "the workload file whose preconditioning it shares"),
      row_key<&SweepPlan::groups, &SweepGroup::sets>(
          "sets", "settings", "the overrides that shape the preconditioning"),
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
      row_key<&SweepPlan::points, &SweepPoint::drive>("drive", "path",
                                                      "the drive file it runs, absolute"),
      row_key<&SweepPlan::points, &SweepPoint::workload>("workload", "path",
                                                         "the workload file it runs, absolute"),
      row_key<&SweepPlan::points, &SweepPoint::sets>("sets", "settings", "its --set overrides"),
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
