// PNG charts of CSV results, drawn by gnuplot (Debian's gnuplot-nox).
//
// The gnuplot script is written next to the PNG so a user can restyle and
// redraw it. When gnuplot is not installed, the script is still written and
// the chart is skipped with a warning: the CSV is the result, the chart a view.
#pragma once

#include <string>
#include <vector>

namespace ssdtwin {

struct ChartSeries {
  std::string csv;    // path of the CSV (header row, comma separated)
  int x_column = 1;   // 1-based
  int y_column = 2;
  std::string title;
  std::string filter; // optional gnuplot condition on columns, e.g. "strcol(1) eq 'fill'"
  bool points = false;  // this series as points (Chart::points: every series)
  bool marked = false;  // a line with a marker at each point (a few points, e.g. a sweep)
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool points = false;  // points instead of lines
  bool log_x = false;
  bool log_y = false;
};

// Writes `png_path` (and `png_path` with .gp), each whole or not at all
// (sim/output_file.h): the PNG is drawn into a temporary and renamed once
// it is complete. Returns false, with a warning and no PNG, when gnuplot is
// not installed or rejects the chart (e.g. no data points); throws
// OutputError when a file cannot be written.
bool draw_chart(const Chart& chart, const std::string& png_path);
// Several charts stacked top to bottom in one PNG (e.g. IOPS above latency
// on a log scale, over the same time axis). Same contract as draw_chart.
bool draw_stacked_charts(const std::vector<Chart>& panels, const std::string& png_path);

// `s` as a gnuplot string literal (single quotes doubled), e.g. for filters.
std::string gnuplot_string(const std::string& s);

}  // namespace ssdtwin
