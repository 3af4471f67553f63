#include "sim/chart.h"

#include <fcntl.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>

#include "sim/output_file.h"

namespace ssdtwin {

std::string gnuplot_string(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else
      out += c;
  }
  return out + "'";
}

namespace {

void write_panel(std::ostream& gp, const Chart& chart) {
  gp << "set title " << gnuplot_string(chart.title) << "\n"
     << "set xlabel " << gnuplot_string(chart.x_label) << "\n"
     << "set ylabel " << gnuplot_string(chart.y_label)
     << "\n"
     // A log axis cannot start at 0.
     << (chart.log_y ? "set logscale y 10\nset yrange [*:*]\n"
                     : "unset logscale y\nset yrange [0:*]\n")
     << (chart.log_x ? "set logscale x 2\n" : "unset logscale x\n");
  if (chart.x_tic > 0)
    gp << "set xtics " << chart.x_tic << "\n";
  else
    gp << "set xtics autofreq\n";
  gp << "plot ";
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    if (i) gp << ", \\\n     ";
    const std::string y = s.filter.empty()
                              ? std::to_string(s.y_column)
                              : "(" + s.filter + " ? $" + std::to_string(s.y_column) + " : 1/0)";
    gp << gnuplot_string(s.csv);
    if (s.first_row != ChartSeries::kAllRows)
      gp << " every ::" << s.first_row << "::" << s.last_row;
    gp << " using " << s.x_column << ":" << y << " with "
       << (chart.points || s.points ? "points pt 7 ps 0.4"
           : s.marked               ? "linespoints lw 1.5 pt 7 ps 1"
                                    : "lines lw 1.5")
       << " title " << gnuplot_string(s.title);
  }
  gp << "\n";
}

constexpr int kNoGnuplot = -2;

// Starts gnuplot with `args` (argv, no shell: paths need no shell quoting),
// its stdout discarded and its stderr into an anonymous file read once it
// has exited: a pipe per child would fill, and stop it, while the parent
// waits on another. Returns 0 with `pid` and `err_fd` set, -1 if it could
// not start, or kNoGnuplot when it is not installed.
int spawn_gnuplot(const std::vector<std::string>& args, pid_t& pid, int& err_fd) {
  err_fd = ::memfd_create("gnuplot-stderr", MFD_CLOEXEC);
  if (err_fd < 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) return 0;
  ::close(err_fd);
  err_fd = -1;
  return rc == ENOENT ? kNoGnuplot : -1;
}

// Waits for gnuplot `pid`; returns its exit status, or -1 if it died.
// `message` receives its error: the last non-blank line of what it printed
// on stderr ("...line 9: x range is invalid"), of the first 4 KiB.
int wait_gnuplot(pid_t pid, int err_fd, std::string& message) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string err(4096, '\0');
  std::size_t got = 0;
  while (got < err.size()) {
    const ssize_t n = ::pread(err_fd, &err[got], err.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(err_fd);
  err.resize(got);
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

struct ChartBatch::Job {
  std::string png, gp, tmp;
  std::vector<std::string> csvs;  // what gnuplot reads besides the script
  pid_t pid = -1;                 // while it runs
  int err_fd = -1;                // its stderr
  int status = -1;                // once it has ended, or kNoGnuplot
  std::string message;
  bool ok = false;
};

std::optional<ChartOutput> chart_output_named(const std::string& name) {
  for (ChartOutput o : {ChartOutput::kPng, ChartOutput::kScript, ChartOutput::kNone})
    if (name == chart_output_name(o)) return o;
  return std::nullopt;
}

const char* chart_output_name(ChartOutput output) {
  switch (output) {
    case ChartOutput::kPng:
      return "png";
    case ChartOutput::kScript:
      return "script";
    case ChartOutput::kNone:
      return "none";
  }
  return "?";
}

ChartBatch::ChartBatch(unsigned max_running, ChartOutput output)
    : max_running_(std::max(1u, max_running)), output_(output) {}

ChartBatch::~ChartBatch() {
  const bool unwinding = std::uncaught_exceptions() > 0;
  while (finished_ < jobs_.size()) {
    try {
      finish_through(jobs_.size());
    } catch (const std::exception& e) {
      // finish_through() marks the chart it failed on as done, its
      // temporary removed: the rest still get waited for.
      if (!unwinding) spdlog::error("{}", e.what());
    }
  }
}

ChartBatch::Ticket ChartBatch::draw(const Chart& chart, const std::string& png_path) {
  return draw_stacked({chart}, png_path);
}

ChartBatch::Ticket ChartBatch::draw_stacked(const std::vector<Chart>& panels,
                                            const std::string& png_path) {
  std::string gp_path = png_path;
  if (gp_path.size() > 4 && gp_path.substr(gp_path.size() - 4) == ".png")
    gp_path.resize(gp_path.size() - 4);
  gp_path += ".gp";
  // A chart still drawing under this name (e.g. one per phase) goes first.
  wait_for_file(png_path);
  wait_for_file(gp_path);
  // Neither file from an earlier run would pass for this run's.
  remove_output_file(png_path);
  if (output_ == ChartOutput::kNone) remove_output_file(gp_path);
  Job job;
  job.png = png_path;
  job.gp = gp_path;
  if (output_ != ChartOutput::kPng) {
    job.status = 0;  // nothing to wait for, nothing drawn (ok stays false)
    jobs_.push_back(std::move(job));
    ++finished_;
    if (output_ == ChartOutput::kNone) return jobs_.size() - 1;
  }
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
  if (output_ == ChartOutput::kScript) return jobs_.size() - 1;
  job.tmp = temporary_path(png_path);
  for (const Chart& c : panels)
    for (const ChartSeries& s : c.series) job.csvs.push_back(s.csv);
  // In the list before it starts: whatever happens next, the destructor
  // waits for it.
  jobs_.push_back(std::move(job));
  start(jobs_.back());
  return jobs_.size() - 1;
}

void ChartBatch::start(Job& job) {
  std::size_t running = 0;
  for (std::size_t i = finished_; i < jobs_.size(); ++i) running += jobs_[i].pid > 0;
  if (running >= max_running_) {
    // The oldest first: charts are finished in request order anyway.
    for (std::size_t i = finished_; i < jobs_.size(); ++i)
      if (jobs_[i].pid > 0) {
        reap(jobs_[i]);
        break;
      }
  }
  job.status = spawn_gnuplot({"gnuplot", "-e", "png=" + gnuplot_string(job.tmp), job.gp}, job.pid,
                             job.err_fd);
  if (job.status != 0) job.pid = -1;
}

void ChartBatch::reap(Job& job) {
  if (job.pid <= 0) return;
  job.status = wait_gnuplot(job.pid, job.err_fd, job.message);
  job.pid = -1;
  job.err_fd = -1;
}

bool ChartBatch::wait(Ticket t) {
  finish_through(t + 1);
  return jobs_[t].ok;
}

void ChartBatch::wait_for_file(const std::string& path) {
  for (std::size_t i = jobs_.size(); i > finished_; --i) {
    const Job& j = jobs_[i - 1];
    if (j.png == path || j.gp == path || j.tmp == path ||
        std::find(j.csvs.begin(), j.csvs.end(), path) != j.csvs.end()) {
      finish_through(i);
      return;
    }
  }
}

void ChartBatch::finish() { finish_through(jobs_.size()); }

void ChartBatch::finish_through(std::size_t end) {
  while (finished_ < end) {
    Job& job = jobs_[finished_++];
    reap(job);
    if (job.status == kNoGnuplot) {
      spdlog::warn("gnuplot not found: chart {} not drawn (script {} written)", job.png, job.gp);
      continue;
    }
    if (job.status != 0) {
      // The script's own fault (typically a series with no data points, as in
      // a phase too short for one whole interval): the CSV holds the result.
      ::unlink(job.tmp.c_str());
      spdlog::warn("chart {} not drawn: gnuplot failed on {}{}{}", job.png, job.gp,
                   job.message.empty() ? "" : ": ", job.message);
      continue;
    }
    // gnuplot exits 0 even when it could not write the PNG (disk full): only
    // a file ending in PNG's IEND chunk is whole.
    if (!whole_png(job.tmp)) {
      ::unlink(job.tmp.c_str());
      throw OutputError(job.png + ": cannot write: the PNG gnuplot wrote is incomplete " +
                        "(file system full or file size limit?)");
    }
    if (std::rename(job.tmp.c_str(), job.png.c_str()) != 0) {
      const int err = errno;
      ::unlink(job.tmp.c_str());
      throw OutputError(job.png +
                        ": cannot rename the finished file into place: " + std::strerror(err));
    }
    job.ok = true;
  }
}

}  // namespace ssdtwin
