#include "sim/chart.h"

#include <cstdlib>
#include <fstream>

#include <spdlog/spdlog.h>

namespace ssdtwin {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

}  // namespace

bool draw_chart(const Chart& chart, const std::string& png_path) {
  std::string gp_path = png_path;
  if (gp_path.size() > 4 && gp_path.substr(gp_path.size() - 4) == ".png")
    gp_path.resize(gp_path.size() - 4);
  gp_path += ".gp";
  {
    std::ofstream gp(gp_path);
    gp << "set terminal pngcairo size 1000,560 noenhanced font 'sans,10'\n"
       << "set output " << quote(png_path) << "\n"
       << "set datafile separator ','\n"
       << "set key autotitle columnhead outside bottom center horizontal\n"
       << "set title " << quote(chart.title) << "\n"
       << "set xlabel " << quote(chart.x_label) << "\n"
       << "set ylabel " << quote(chart.y_label) << "\n"
       << "set grid\nset yrange [0:*]\n"
       << (chart.log_x ? "set logscale x 2\n" : "")
       << "plot ";
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
      const ChartSeries& s = chart.series[i];
      if (i) gp << ", \\\n     ";
      const std::string y = s.filter.empty()
                                ? std::to_string(s.y_column)
                                : "(" + s.filter + " ? $" + std::to_string(s.y_column) + " : 1/0)";
      gp << quote(s.csv) << " using " << s.x_column << ":" << y << " with "
         << (chart.points ? "points pt 7 ps 0.4" : "lines lw 1.5") << " title " << quote(s.title);
    }
    gp << "\n";
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    spdlog::warn("gnuplot not found: chart {} not drawn (script {} written)", png_path, gp_path);
    return false;
  }
  const std::string cmd = "gnuplot " + quote(gp_path) + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    spdlog::warn("gnuplot failed on {}", gp_path);
    return false;
  }
  return true;
}

}  // namespace ssdtwin
