#include "sim/chart.h"

#include <cstdlib>
#include <fstream>

#include <spdlog/spdlog.h>

namespace ssdtwin {

std::string gnuplot_string(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

namespace {

void write_panel(std::ostream& gp, const Chart& chart) {
  gp << "set title " << gnuplot_string(chart.title) << "\n"
     << "set xlabel " << gnuplot_string(chart.x_label) << "\n"
     << "set ylabel " << gnuplot_string(chart.y_label) << "\n"
     // A log axis cannot start at 0.
     << (chart.log_y ? "set logscale y 10\nset yrange [*:*]\n"
                     : "unset logscale y\nset yrange [0:*]\n")
     << (chart.log_x ? "set logscale x 2\n" : "unset logscale x\n")
     << "plot ";
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    if (i) gp << ", \\\n     ";
    const std::string y = s.filter.empty()
                              ? std::to_string(s.y_column)
                              : "(" + s.filter + " ? $" + std::to_string(s.y_column) + " : 1/0)";
    gp << gnuplot_string(s.csv) << " using " << s.x_column << ":" << y << " with "
       << (chart.points || s.points ? "points pt 7 ps 0.4" : "lines lw 1.5") << " title "
       << gnuplot_string(s.title);
  }
  gp << "\n";
}

}  // namespace

bool draw_chart(const Chart& chart, const std::string& png_path) {
  return draw_stacked_charts({chart}, png_path);
}

bool draw_stacked_charts(const std::vector<Chart>& panels, const std::string& png_path) {
  std::string gp_path = png_path;
  if (gp_path.size() > 4 && gp_path.substr(gp_path.size() - 4) == ".png")
    gp_path.resize(gp_path.size() - 4);
  gp_path += ".gp";
  {
    std::ofstream gp(gp_path);
    const std::size_t height = panels.size() <= 1 ? 560 : 420 * panels.size();
    gp << "set terminal pngcairo size 1000," << height << " noenhanced font 'sans,10'\n"
       << "set output " << gnuplot_string(png_path) << "\n"
       << "set datafile separator ','\n"
       << "set key autotitle columnhead outside bottom center horizontal\n"
       << "set grid\n";
    if (panels.size() > 1) gp << "set multiplot layout " << panels.size() << ",1\n";
    for (const Chart& c : panels) write_panel(gp, c);
    if (panels.size() > 1) gp << "unset multiplot\n";
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    spdlog::warn("gnuplot not found: chart {} not drawn (script {} written)", png_path, gp_path);
    return false;
  }
  const std::string cmd = "gnuplot " + gnuplot_string(gp_path) + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", gp_path);
    return false;
  }
  return true;
}

}  // namespace ssdtwin
