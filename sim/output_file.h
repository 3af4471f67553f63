// Result files written whole or not at all.
//
// A run's results are only worth something complete: a full disk used to
// leave truncated CSVs, an empty .gp and no PNG behind an exit status of 0.
// An OutputFile writes `PATH.tmp`, checks every write, and renames it to
// PATH on commit(), so a file under its final name is always whole; any
// failure (open, write, close, rename) throws OutputError naming PATH and
// the system's reason, and the temporary is removed. The results writer
// (app/report.cpp) writes summary.json last, as the marker that the folder
// is complete.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ssdtwin {

// A result file could not be written (exit status 1 in the CLI).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputFile {
 public:
  // Creates `path`.tmp (truncating a stale one).
  explicit OutputFile(std::string path);
  // Not committed: the temporary is removed and `path` left as it was.
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  OutputFile& operator<<(std::string_view text);
  // Writes what is buffered, closes the file and renames it into place.
  void commit();
  const std::string& path() const { return path_; }

 private:
  void flush();
  [[noreturn]] void fail(const char* what, int err);

  std::string path_, tmp_;
  int fd_ = -1;
  std::string buf_;
};

// `text` as the whole content of `path`, through an OutputFile.
void write_output_file(const std::string& path, std::string_view text);

// `path` + ".tmp": where a file is written before it is renamed into place
// (charts are drawn there by gnuplot, then checked and renamed).
std::string temporary_path(const std::string& path);

// Removes `path` if it exists (a result of an earlier run that this one
// would otherwise leave beside its own); throws OutputError if it cannot.
void remove_output_file(const std::string& path);

}  // namespace ssdtwin
