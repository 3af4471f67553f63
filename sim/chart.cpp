#include "sim/chart.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <spdlog/spdlog.h>

#include "sim/output_file.h"

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
       << (chart.points || s.points ? "points pt 7 ps 0.4"
                                   : s.marked ? "linespoints lw 1.5 pt 7 ps 1" : "lines lw 1.5") << " title "
       << gnuplot_string(s.title);
  }
  gp << "\n";
}

constexpr int kNoGnuplot = -2;

// Runs gnuplot with `args` (argv, no shell: paths need no shell quoting);
// returns its exit status, -1 if it died, or kNoGnuplot when it is not
// installed. `message` receives the first line of what it printed on stderr.
int run_gnuplot(const std::vector<std::string>& args, std::string& message) {
  int pipe_fd[2];
  if (::pipe2(pipe_fd, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fd[1]);
  if (rc != 0) {
    ::close(pipe_fd[0]);
    return rc == ENOENT ? kNoGnuplot : -1;
  }
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (err.size() < 4096) err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipe_fd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // gnuplot's error is its last non-blank line ("...line 9: x range is invalid").
  std::istringstream lines(err);
  for (std::string l; std::getline(lines, l);)
    if (l.find_first_not_of(" ^") != std::string::npos) message = l;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether `path` is a whole PNG: it ends with the IEND chunk (empty data and
// its fixed CRC), which a writer cut short never reaches.
bool whole_png(const std::string& path) {
  static const unsigned char kIend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char tail[12];
  const bool ok = std::fseek(f, -12, SEEK_END) == 0 && std::fread(tail, 1, 12, f) == 12 &&
                  std::memcmp(tail, kIend, 12) == 0;
  std::fclose(f);
  return ok;
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
    OutputFile gp(gp_path);
    const std::size_t height = panels.size() <= 1 ? 560 : 420 * panels.size();
    // The output is a variable so that the simulator can have gnuplot draw
    // into a temporary (`gnuplot -e "png='...'"`) while the script, run by
    // hand, still writes the PNG beside it.
    gp << "set terminal pngcairo size 1000," << std::to_string(height)
       << " noenhanced font 'sans,10'\n"
       << "if (!exists('png')) png = " << gnuplot_string(png_path) << "\n"
       << "set output png\n"
       << "set datafile separator ','\n"
       << "set key autotitle columnhead outside bottom center horizontal\n"
       << "set grid\n";
    std::ostringstream body;
    if (panels.size() > 1) body << "set multiplot layout " << panels.size() << ",1\n";
    for (const Chart& c : panels) write_panel(body, c);
    if (panels.size() > 1) body << "unset multiplot\n";
    gp << body.str();
    gp.commit();
  }
  // A chart an earlier run left under this name would pass for this run's.
  remove_output_file(png_path);
  const std::string tmp = temporary_path(png_path);
  std::string message;
  const int status = run_gnuplot({"gnuplot", "-e", "png=" + gnuplot_string(tmp), gp_path}, message);
  if (status == kNoGnuplot) {
    spdlog::warn("gnuplot not found: chart {} not drawn (script {} written)", png_path, gp_path);
    return false;
  }
  if (status != 0) {
    // The script's own fault (typically a series with no data points, as in
    // a phase too short for one whole interval): the CSV holds the result.
    ::unlink(tmp.c_str());
    spdlog::warn("chart {} not drawn: gnuplot failed on {}{}{}", png_path, gp_path,
                 message.empty() ? "" : ": ", message);
    return false;
  }
  // gnuplot exits 0 even when it could not write the PNG (disk full): only
  // a file ending in PNG's IEND chunk is whole.
  if (!whole_png(tmp)) {
    ::unlink(tmp.c_str());
    throw OutputError(png_path + ": cannot write: the PNG gnuplot wrote is incomplete " +
                      "(file system full or file size limit?)");
  }
  if (std::rename(tmp.c_str(), png_path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw OutputError(png_path + ": cannot rename the finished file into place: " +
                      std::strerror(err));
  }
  return true;
}

}  // namespace ssdtwin
