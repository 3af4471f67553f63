#include "app/compare.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "sim/output_file.h"

namespace ssdtwin {
namespace {

constexpr int kExitRegression = 1;
constexpr int kExitBadInput = 2;

[[noreturn]] void fail_at(const std::string& path, int line, std::size_t col,
                          const std::string& what) {
  throw CompareInputError(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                          what);
}

// One CSV cell: its text (unquoted, trimmed) and where it sits in the line.
struct Cell {
  std::string text;
  std::size_t begin = 0, end = 0;  // bytes of the cell in its line, padding excluded
  std::size_t col() const { return begin + 1; }
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// RFC 4180 cells plus padding: spaces around a cell are not part of it, so a
// hand-written baseline may align its columns.
std::vector<Cell> split_csv(std::string_view line, const std::string& path, int line_no) {
  std::vector<Cell> cells;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_blank(line[i])) ++i;
    Cell c;
    c.begin = i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) fail_at(path, line_no, c.begin + 1, "unterminated quoted cell");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            c.text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        c.text += line[i++];
      }
      c.end = i;
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i < line.size() && line[i] != ',')
        fail_at(path, line_no, i + 1, "expected ',' after a quoted cell");
    } else {
      while (i < line.size() && line[i] != ',') ++i;
      c.end = i;
      while (c.end > c.begin && is_blank(line[c.end - 1])) --c.end;
      c.text = std::string(line.substr(c.begin, c.end - c.begin));
    }
    cells.push_back(std::move(c));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return cells;
}

std::optional<double> parse_number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The file's lines without their '\n' (a '\r' before it is kept: --update
// writes a CRLF file back as CRLF).
std::vector<std::string> split_lines(std::string_view text, bool* final_newline) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (final_newline) *final_newline = text.empty() || text.back() == '\n';
  return lines;
}

std::string_view content(const std::string& line) {
  std::string_view v(line);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

bool is_comment_or_blank(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#';
}

// A row must have exactly the header's cells: a missing or extra cell most
// likely shifts every value after it into the wrong column.
void check_cell_count(const std::vector<Cell>& cells, std::size_t expected, std::string_view line,
                      const std::string& path, int line_no) {
  if (cells.size() == expected) return;
  const std::size_t col = cells.size() > expected ? cells[expected].col() : line.size() + 1;
  fail_at(path, line_no, col,
          "expected " + std::to_string(expected) + " cells as in the header, found " +
              std::to_string(cells.size()));
}

std::string read_whole_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw CompareInputError(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

std::string format_change(double expected, double measured) {
  if (expected == 0) return measured == 0 ? "0%" : "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * (measured - expected) / std::fabs(expected));
  return buf;
}

// The tolerance with the sign of the moves it guards against: -2% for a
// `lower` row (a drop beyond 2% fails), +2% for `higher`, +-2% for `both`.
std::string format_tolerance(const BaselineRow& r) {
  const char* sign = r.direction == RegressionDirection::kLower    ? "-"
                     : r.direction == RegressionDirection::kHigher ? "+"
                                                                   : "+-";
  return sign + r.tolerance_text;
}

std::string status_text(const Check& c) {
  switch (c.status) {
    case Status::kOk:
      return "ok";
    case Status::kImproved:
      return "improved";
    case Status::kRegressed:
      return *c.measured > *c.row->expected ? "FAIL: rose" : "FAIL: dropped";
    case Status::kMissingRun:
      return "FAIL: run not given";
    case Status::kMissingPhase:
      return "FAIL: no such phase in metrics.csv";
    case Status::kMissingMetric:
      return "FAIL: no such metric in metrics.csv";
    case Status::kNoValue:
      return c.measured_text.empty() ? "FAIL: no value" : "FAIL: not a number";
    case Status::kUnset:
      return "FAIL: no expected value (--update)";
  }
  return "?";
}

// Columns padded to their widest cell; `right` marks numeric columns, which
// read better aligned on the right.
std::string render_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right) {
  std::vector<std::size_t> width(right.size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      if (i > 0) line += "  ";
      line += right[i] ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : "");
    }
    out += line + "\n";
  }
  return out;
}

// RUN_DIR's name in the baseline: its last component ("out/gc_fifo/" and
// "out/gc_fifo" are both gc_fifo; "." is the current folder's name).
std::string run_name(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.filename() == "." || p.filename() == ".." || p.empty()) {
    std::error_code ec;
    const fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
    if (!ec) p = abs;
  }
  return p.filename().string();
}

}  // namespace

double BaselineRow::allowed() const {
  return tolerance_percent ? std::fabs(*expected) * tolerance / 100.0 : tolerance;
}

bool is_failure(Status s) { return s != Status::kOk && s != Status::kImproved; }

RunMetrics parse_metrics_csv(std::string_view text, const std::string& path) {
  RunMetrics m;
  m.path = path;
  const std::vector<std::string> lines = split_lines(text, nullptr);
  std::size_t columns = 0;
  std::set<std::string> phases;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = content(lines[n]);
    const int line_no = static_cast<int>(n + 1);
    if (is_comment_or_blank(line)) continue;  // the `# unit,...` line among them
    const std::vector<Cell> cells = split_csv(line, path, line_no);
    if (columns == 0) {
      if (cells[0].text != "phase")
        fail_at(path, line_no, cells[0].col(), "expected the header 'phase,<metric>,...'");
      std::set<std::string> seen;
      for (std::size_t i = 1; i < cells.size(); ++i) {
        if (cells[i].text.empty()) fail_at(path, line_no, cells[i].col(), "empty metric name");
        if (!seen.insert(cells[i].text).second)
          fail_at(path, line_no, cells[i].col(),
                  "metric '" + cells[i].text + "' twice in the header");
        m.metrics.push_back(cells[i].text);
      }
      columns = cells.size();
      continue;
    }
    check_cell_count(cells, columns, line, path, line_no);
    const std::string& phase = cells[0].text;
    if (phase.empty()) fail_at(path, line_no, 1, "empty phase name");
    if (!phases.insert(phase).second) fail_at(path, line_no, 1, "phase '" + phase + "' twice");
    m.phases.push_back(phase);
    for (std::size_t i = 1; i < cells.size(); ++i)
      if (!cells[i].text.empty()) m.cells[{phase, m.metrics[i - 1]}] = cells[i].text;
  }
  if (columns == 0) throw CompareInputError(path + ": no header line 'phase,<metric>,...'");
  return m;
}

RunMetrics load_run_metrics(const std::string& run_dir) {
  const std::string path = (std::filesystem::path(run_dir) / "metrics.csv").string();
  if (!std::filesystem::is_regular_file(path))
    throw CompareInputError(path +
                            ": not found (RUN_DIR must be the --out folder of a finished "
                            "ssdtwin run)");
  return parse_metrics_csv(read_whole_file(path, "the run's metrics"), path);
}

Baseline parse_baseline(std::string_view text, const std::string& path) {
  static const std::vector<std::string> kColumns = {"run",      "phase",     "metric",
                                                    "expected", "tolerance", "direction"};
  Baseline b;
  b.path = path;
  b.lines = split_lines(text, &b.final_newline);
  std::map<std::string, std::size_t> col_of;  // column name -> index in a row
  std::size_t columns = 0;
  std::map<std::tuple<std::string, std::string, std::string>, int> first_line;
  for (std::size_t n = 0; n < b.lines.size(); ++n) {
    const std::string_view line = content(b.lines[n]);
    const int line_no = static_cast<int>(n + 1);
    if (is_comment_or_blank(line)) continue;
    const std::vector<Cell> cells = split_csv(line, path, line_no);
    if (columns == 0) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string& name = cells[i].text;
        if (std::find(kColumns.begin(), kColumns.end(), name) == kColumns.end())
          fail_at(path, line_no, cells[i].col(),
                  "unknown column '" + name +
                      "' (the header is run,phase,metric,expected,tolerance,direction)");
        if (!col_of.emplace(name, i).second)
          fail_at(path, line_no, cells[i].col(), "column '" + name + "' twice");
      }
      for (const std::string& name : kColumns)
        if (!col_of.count(name))
          fail_at(path, line_no, 1,
                  "header lacks column '" + name +
                      "' (the header is run,phase,metric,expected,tolerance,direction)");
      columns = cells.size();
      continue;
    }
    check_cell_count(cells, columns, line, path, line_no);
    const auto cell = [&](const char* name) -> const Cell& { return cells[col_of.at(name)]; };
    BaselineRow r;
    r.line = line_no;
    for (const char* name : {"run", "phase", "metric"})
      if (cell(name).text.empty())
        fail_at(path, line_no, cell(name).col(), std::string("empty ") + name);
    r.run = cell("run").text;
    r.phase = cell("phase").text;
    r.metric = cell("metric").text;

    const Cell& expected = cell("expected");
    r.expected_begin = expected.begin;
    r.expected_end = expected.end;
    if (!expected.text.empty()) {
      r.expected = parse_number(expected.text);
      if (!r.expected)
        fail_at(path, line_no, expected.col(),
                "expected: '" + expected.text +
                    "' is not a number (leave it empty for --update to fill)");
    }

    const Cell& tol = cell("tolerance");
    std::string_view t = tol.text;
    r.tolerance_percent = !t.empty() && t.back() == '%';
    if (r.tolerance_percent) t.remove_suffix(1);
    const std::optional<double> tv = parse_number(t);
    if (!tv || *tv < 0)
      fail_at(path, line_no, tol.col(),
              "tolerance: '" + tol.text +
                  "' is neither a percentage (2%) nor an absolute amount (0.05)");
    r.tolerance = *tv;
    r.tolerance_text = tol.text;

    const std::string& dir = cell("direction").text;
    if (dir == "both") {
      r.direction = RegressionDirection::kBoth;
    } else if (dir == "lower") {
      r.direction = RegressionDirection::kLower;
    } else if (dir == "higher") {
      r.direction = RegressionDirection::kHigher;
    } else {
      fail_at(path, line_no, cell("direction").col(),
              "direction: '" + dir +
                  "' is not both, lower (a drop is a regression) or higher (a "
                  "rise is)");
    }

    const auto [it, fresh] = first_line.emplace(std::tuple(r.run, r.phase, r.metric), line_no);
    if (!fresh)
      fail_at(path, line_no, cell("metric").col(),
              "run '" + r.run + "' phase '" + r.phase + "' metric '" + r.metric +
                  "' already on line " + std::to_string(it->second));
    b.rows.push_back(std::move(r));
  }
  if (columns == 0)
    throw CompareInputError(path +
                            ": no header line 'run,phase,metric,expected,tolerance,direction'");
  return b;
}

std::vector<Check> check_baseline(const Baseline& baseline,
                                  const std::map<std::string, RunMetrics>& runs, bool partial) {
  std::vector<Check> checks;
  for (const BaselineRow& r : baseline.rows) {
    Check c;
    c.row = &r;
    const auto run = runs.find(r.run);
    if (run == runs.end()) {
      if (partial) continue;
      c.status = Status::kMissingRun;
    } else if (const RunMetrics& m = run->second;
               std::find(m.phases.begin(), m.phases.end(), r.phase) == m.phases.end()) {
      c.status = Status::kMissingPhase;
    } else if (std::find(m.metrics.begin(), m.metrics.end(), r.metric) == m.metrics.end()) {
      c.status = Status::kMissingMetric;
    } else if (const auto cell = m.cells.find({r.phase, r.metric}); cell == m.cells.end()) {
      c.status = Status::kNoValue;
    } else {
      c.measured_text = cell->second;
      c.measured = parse_number(c.measured_text);
      if (!c.measured) {
        c.status = Status::kNoValue;
      } else if (!r.expected) {
        c.status = Status::kUnset;
      } else {
        // The slack keeps a value that sits exactly on the tolerance (as
        // printed, then parsed back) from failing on the last bit.
        const double slack = 1e-9 * std::max(std::fabs(*r.expected), std::fabs(*c.measured));
        const double move = *c.measured - *r.expected;
        const double allowed = r.allowed() + slack;
        const bool up = move > allowed, down = move < -allowed;
        const bool bad = r.direction == RegressionDirection::kBoth    ? (up || down)
                         : r.direction == RegressionDirection::kLower ? down
                                                                      : up;
        c.status = bad ? Status::kRegressed : (up || down) ? Status::kImproved : Status::kOk;
      }
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

std::string format_table(const std::vector<Check>& checks, bool all) {
  std::vector<std::vector<std::string>> rows = {
      {"run", "phase", "metric", "expected", "measured", "change", "tolerance", "status"}};
  for (const Check& c : checks) {
    if (!all && c.status == Status::kOk) continue;
    const BaselineRow& r = *c.row;
    const bool both = r.expected && c.measured;
    rows.push_back({r.run, r.phase, r.metric, r.expected ? format_number(*r.expected) : "-",
                    c.measured ? format_number(*c.measured)
                               : (c.measured_text.empty() ? "-" : c.measured_text),
                    both ? format_change(*r.expected, *c.measured) : "", format_tolerance(r),
                    status_text(c)});
  }
  if (rows.size() == 1) return "";
  return render_table(rows, {false, false, false, true, true, true, true, false});
}

std::string updated_baseline_text(const Baseline& baseline, const std::vector<Check>& checks) {
  std::vector<std::string> lines = baseline.lines;
  for (const Check& c : checks) {
    if (!c.measured || (c.row->expected && *c.row->expected == *c.measured)) continue;
    std::string& line = lines[static_cast<std::size_t>(c.row->line - 1)];
    line.replace(c.row->expected_begin, c.row->expected_end - c.row->expected_begin,
                 c.measured_text);
  }
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    text += lines[i];
    if (i + 1 < lines.size() || baseline.final_newline) text += '\n';
  }
  return text;
}

namespace {

// --update: the diff of expected values, the rows that could not be
// updated, and the file rewritten if anything changed.
int update_baseline(const Baseline& baseline, const std::vector<Check>& checks, std::ostream& out) {
  std::vector<std::vector<std::string>> diff = {{"run", "phase", "metric", "old", "new", "change"}};
  std::vector<Check> failed;
  for (const Check& c : checks) {
    if (!c.measured) {
      failed.push_back(c);
      continue;
    }
    const BaselineRow& r = *c.row;
    if (r.expected && *r.expected == *c.measured) continue;
    diff.push_back({r.run, r.phase, r.metric, r.expected ? format_number(*r.expected) : "-",
                    c.measured_text, r.expected ? format_change(*r.expected, *c.measured) : "new"});
  }
  if (diff.size() > 1) {
    write_output_file(baseline.path, updated_baseline_text(baseline, checks));
    out << render_table(diff, {false, false, false, true, true, true});
    out << baseline.path << ": " << diff.size() - 1 << " expected value"
        << (diff.size() == 2 ? "" : "s") << " updated\n";
  } else {
    out << baseline.path << ": unchanged (every expected value is the measured one)\n";
  }
  if (failed.empty()) return 0;
  out << "\nnot updated (no measured value):\n" << format_table(failed, true);
  return kExitRegression;
}

}  // namespace

int run_compare(const CompareOptions& o, std::ostream& out, std::ostream& err) {
  try {
    const Baseline baseline =
        parse_baseline(read_whole_file(o.baseline, "the baseline"), o.baseline);
    std::map<std::string, RunMetrics> runs;
    std::map<std::string, std::string> dir_of;
    for (const std::string& dir : o.run_dirs) {
      const std::string name = run_name(dir);
      if (const auto [it, fresh] = dir_of.emplace(name, dir); !fresh)
        throw CompareInputError("RUN_DIR " + dir + " and " + it->second + " have the same name '" +
                                name + "' (the baseline's run column tells runs apart by it)");
      const bool known = std::any_of(baseline.rows.begin(), baseline.rows.end(),
                                     [&](const BaselineRow& r) { return r.run == name; });
      // Most likely a misspelled folder, which would otherwise pass unchecked.
      if (!known)
        throw CompareInputError(o.baseline + ": no rows for run '" + name + "' (RUN_DIR " + dir +
                                "); add some with an empty expected value and run --update");
      runs.emplace(name, load_run_metrics(dir));
    }
    const std::vector<Check> checks = check_baseline(baseline, runs, o.partial || o.update);
    if (o.update) return update_baseline(baseline, checks, out);

    const std::size_t failures = std::count_if(checks.begin(), checks.end(),
                                               [](const Check& c) { return is_failure(c.status); });
    const std::size_t improved = std::count_if(
        checks.begin(), checks.end(), [](const Check& c) { return c.status == Status::kImproved; });
    out << format_table(checks, o.all);
    if (failures == 0 && improved == 0) {
      out << o.baseline << ": all " << checks.size() << " metrics of " << runs.size()
          << " runs hold\n";
    } else {
      out << o.baseline << ": " << failures << " of " << checks.size() << " metrics failed";
      if (improved > 0)
        out << ", " << improved
            << " improved beyond the tolerance (--update takes them as the "
               "new baseline)";
      out << "\n";
    }
    return failures > 0 ? kExitRegression : 0;
  } catch (const CompareInputError& e) {
    err << e.what() << "\n";
    return kExitBadInput;
  } catch (const OutputError& e) {
    err << "ssdtwin compare: " << e.what() << "\n";
    return 1;
  }
}

int compare_main(int argc, char** argv) {
  namespace po = boost::program_options;
  CompareOptions o;
  po::options_description opts("compare options");
  opts.add_options()("help,h", "show this help")(
      "baseline,b", po::value(&o.baseline),
      "baseline CSV: run,phase,metric,expected,tolerance,direction")(
      "update", po::bool_switch(&o.update),
      "set each expected value to the measured one (rewrites the baseline, prints the diff)")(
      "all", po::bool_switch(&o.all), "list every metric, not only those that moved")(
      "partial", po::bool_switch(&o.partial),
      "skip baseline rows of runs not given (by default they fail)");
  po::options_description hidden;
  hidden.add_options()("run-dir", po::value(&o.run_dirs)->composing());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("run-dir", -1);
  const auto usage = [&](std::ostream& s) {
    s << "usage: ssdtwin compare --baseline FILE [--update] [--all] [--partial] RUN_DIR...\n"
         "Checks each RUN_DIR/metrics.csv against the baseline; exit 0 all hold, 1 a metric "
         "moved the wrong way or is missing, 2 bad input.\n\n"
      << opts << "\n";
  };
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      usage(std::cout);
      return 0;
    }
    if (o.baseline.empty()) throw po::error("--baseline is required");
    if (o.run_dirs.empty()) throw po::error("give at least one RUN_DIR");
  } catch (const po::error& e) {
    std::cerr << "ssdtwin compare: " << e.what() << "\n";
    usage(std::cerr);
    return kExitBadInput;
  }
  return run_compare(o, std::cout, std::cerr);
}

}  // namespace ssdtwin
