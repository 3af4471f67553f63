// PNG charts of CSV results, drawn by gnuplot (Debian's gnuplot-nox).
//
// The gnuplot script is written next to the PNG so a user can restyle and
// redraw it. When gnuplot is not installed, the script is still written and
// the chart is skipped with a warning: the CSV is the result, the chart a view.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ssdtwin {

struct ChartSeries {
  std::string csv;   // path of the CSV (header row, comma separated)
  int x_column = 1;  // 1-based
  int y_column = 2;
  std::string title;
  std::string filter;   // optional gnuplot condition on columns, e.g. "strcol(1) eq 'fill'"
  bool points = false;  // this series as points (Chart::points: every series)
  bool marked = false;  // a line with a marker at each point (a few points, e.g. a sweep)
  // Optional bounds (0-based data rows, the header not counted, inclusive)
  // of the rows `filter` can accept, when they are contiguous: gnuplot then
  // stops reading at `last_row` instead of testing every row of the file
  // once per series (a 50-phase latency_hist.csv of 7,800 rows took 0.23 s
  // to draw with 12 filtered series, 0.06 s with their bounds).
  static constexpr long kAllRows = -1;
  long first_row = kAllRows;
  long last_row = kAllRows;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool points = false;  // points instead of lines
  bool log_x = false;
  bool log_y = false;
  // Spacing of the x axis's tics; 0: gnuplot's choice. Scenario numbers
  // want 1, not tics at 1.5.
  double x_tic = 0;
};

// What a report's charts come to. A gnuplot process costs tens of ms, most
// of a small run's wall time: a run that nobody looks at the charts of (a
// sweep point, a benchmark) writes the scripts, each drawn later by
// `gnuplot FILE.gp`, or nothing.
enum class ChartOutput {
  kPng,     // the script and its PNG
  kScript,  // the script alone
  kNone,    // neither
};
// "png", "script" or "none"; nullopt for any other name.
std::optional<ChartOutput> chart_output_named(const std::string& name);
const char* chart_output_name(ChartOutput output);

// The charts of one report, drawn concurrently. Each gnuplot starts as soon
// as its script is written and the report goes on writing its other files:
// drawn one after another, the charts were a visible share of a short run's
// wall time (tens of ms each).
//
// Each chart writes `png_path` (and `png_path` with .gp), each whole or not
// at all (sim/output_file.h): the PNG is drawn into a temporary and renamed
// once complete. A chart gnuplot rejects (e.g. no data points), or one drawn
// where gnuplot is not installed, gets a warning and no PNG; a file that
// cannot be written throws OutputError. Checks, warnings and results come in
// the order the charts were requested, so that the log reads the same
// whatever order the processes end in.
//
// gnuplot opens its CSVs and script only as it gets to them: a file a pending
// chart reads must not be rewritten before wait_for_file(). The processes are
// the batch's own children: nothing else may reap them (waitpid(-1)) while it
// lives. No global state: the report writer owns its batch.
class ChartBatch {
 public:
  using Ticket = std::size_t;

  // At most `max_running` gnuplot processes at once, so that a sweep of many
  // charts does not start them all together. The default, 4, is more than
  // the cores of a small machine on purpose: much of a gnuplot run is
  // starting up rather than computing (whole_drive_fill's five charts on
  // 2 cores: write time 0.25 s with 2 at once, 0.21 s with 4).
  static constexpr unsigned kDefaultMaxRunning = 4;
  explicit ChartBatch(unsigned max_running = kDefaultMaxRunning,
                      ChartOutput output = ChartOutput::kPng);
  explicit ChartBatch(ChartOutput output) : ChartBatch(kDefaultMaxRunning, output) {}
  // Finishes what is still pending as finish() would, so that a report
  // unwinding from an error leaves no zombie and no temporary. It may run
  // while an exception unwinds, so it cannot throw: a chart that cannot be
  // written is dropped, its temporary removed, and the error logged only
  // when none is on its way already (finish() was forgotten).
  ~ChartBatch();
  ChartBatch(const ChartBatch&) = delete;
  ChartBatch& operator=(const ChartBatch&) = delete;

  // Writes the script and starts gnuplot (after waiting for a free slot);
  // throws OutputError when the script cannot be written.
  Ticket draw(const Chart& chart, const std::string& png_path);
  // Several charts stacked top to bottom in one PNG (e.g. IOPS above latency
  // on a log scale, over the same time axis).
  Ticket draw_stacked(const std::vector<Chart>& panels, const std::string& png_path);
  // Finishes chart `t` (and, first, those requested before it): true when
  // its PNG was drawn, false with a warning when gnuplot is missing or
  // rejected it (and, quietly, when the batch draws no PNGs); throws
  // OutputError when it cannot be written.
  bool wait(Ticket t);
  // Finishes every pending chart that reads, draws into or is drawn from
  // `path`: before a caller rewrites that file (e.g. a CSV written per phase).
  void wait_for_file(const std::string& path);
  // Finishes every chart requested so far; throws OutputError for the first
  // that cannot be written (the rest stay pending for the destructor).
  void finish();

 private:
  struct Job;
  void start(Job& job);
  void reap(Job& job);
  void finish_through(std::size_t end);

  unsigned max_running_;
  ChartOutput output_;
  std::vector<Job> jobs_;
  std::size_t finished_ = 0;  // jobs_[0, finished_) are done with
};

// `s` as a gnuplot string literal (single quotes doubled), e.g. for filters.
std::string gnuplot_string(const std::string& s);

}  // namespace ssdtwin
