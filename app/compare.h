// `ssdtwin compare`: the regression gate. Checks the metrics of finished runs
// (RUN_DIR/metrics.csv) against a baseline file of expected values with
// tolerances, and with --update rewrites those expected values.
//
// Baseline file (CSV; '#' lines and blank lines are comments, kept by --update):
//
//   run,phase,metric,expected,tolerance,direction
//   gc_greedy,randwrite,write_amplification,2.9112,2%,higher
//
//   run        the RUN_DIR's folder name, so one baseline covers many runs
//   phase      a row of the run's metrics.csv
//   metric     a column of the run's metrics.csv (`ssdtwin metrics` lists them)
//   expected   a number; empty = not measured yet (fails; --update fills it)
//   tolerance  `2%` of the expected value, or an absolute amount (`0.05`)
//   direction  both: a move either way beyond the tolerance is a regression;
//              lower: only a drop is (IOPS, MB/s, hit rates);
//              higher: only a rise is (write amplification, latency)
//
// Header columns may come in any order; cells may be padded with spaces.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ssdtwin {

// A baseline or metrics file that is not in its format, or cannot be read:
// the message starts with `FILE:LINE:COL:` where a place is known. Exit 2.
class CompareInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One run's metrics.csv: a header `phase,<metric>...` (after an optional
// `# unit,...` line) and a row per phase. Cells are kept as text so that
// --update copies a value exactly as the run wrote it.
struct RunMetrics {
  std::string path;
  std::vector<std::string> metrics;  // header order, without `phase`
  std::vector<std::string> phases;   // row order
  // (phase, metric) -> cell text; empty cells (no value) are absent.
  std::map<std::pair<std::string, std::string>, std::string> cells;
};

RunMetrics parse_metrics_csv(std::string_view text, const std::string& path);
// Reads RUN_DIR/metrics.csv; throws CompareInputError if it cannot.
RunMetrics load_run_metrics(const std::string& run_dir);

enum class RegressionDirection { kBoth, kLower, kHigher };

struct BaselineRow {
  int line = 0;  // 1-based line in the baseline file
  std::string run, phase, metric;
  std::optional<double> expected;  // empty cell: not measured yet
  double tolerance = 0;
  bool tolerance_percent = false;
  std::string tolerance_text;
  RegressionDirection direction = RegressionDirection::kBoth;
  // Where the expected cell sits in its line (bytes), for --update.
  std::size_t expected_begin = 0, expected_end = 0;

  // The largest move from `expected` that still holds.
  double allowed() const;
};

struct Baseline {
  std::string path;
  std::vector<std::string> lines;  // the file as it was, line by line (no '\n')
  bool final_newline = true;
  std::vector<BaselineRow> rows;
};

Baseline parse_baseline(std::string_view text, const std::string& path);

enum class Status {
  kOk,
  kImproved,  // moved beyond the tolerance in the direction that is no regression
  kRegressed,
  kMissingRun,  // the baseline names a run that was not given
  kMissingPhase,
  kMissingMetric,
  kNoValue,  // the cell is empty or not a number
  kUnset,    // the baseline has no expected value yet
};

bool is_failure(Status s);

struct Check {
  const BaselineRow* row = nullptr;
  Status status = Status::kOk;
  std::string measured_text;  // the run's cell, when there is one
  std::optional<double> measured;
};

// Runs keyed by name (RUN_DIR's folder name). `partial`: rows of runs that
// are not in `runs` are left out instead of failing.
std::vector<Check> check_baseline(const Baseline& baseline,
                                  const std::map<std::string, RunMetrics>& runs, bool partial);

// The fixed-width table of `checks` (only those that moved or failed unless
// `all`), with a header line; empty if there is nothing to show.
std::string format_table(const std::vector<Check>& checks, bool all);

// The baseline file's text with each measured value as the new expected
// value, everything else (comments, order, tolerances, padding) as it was.
std::string updated_baseline_text(const Baseline& baseline, const std::vector<Check>& checks);

struct CompareOptions {
  std::string baseline;
  std::vector<std::string> run_dirs;
  bool update = false;
  bool all = false;      // show every row, not only what moved
  bool partial = false;  // rows of runs not given are skipped, not failures
};

// Exit status: 0 every metric holds (or --update wrote the baseline), 1 a
// regression or a missing metric, 2 bad input (baseline, metrics.csv,
// command line).
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err);

// `ssdtwin compare ...` with argv[0] == "compare".
int compare_main(int argc, char** argv);

}  // namespace ssdtwin
