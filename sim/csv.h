// The CSV the results are written in (RFC 4180: a field holding a comma, a
// quote or a line break is quoted, quotes doubled) and read back by sweeps.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ssdtwin {

// `s` as one CSV field, quoted only when it has to be.
std::string csv_field(std::string_view s);

// A real as a CSV cell: the shortest text that reads back as the same
// double (17008.17, 0.1, 1e-07): metrics.csv, results.csv and a sweep's
// chart data all write numbers so.
std::string csv_number(double v);

// `v` as printf's "%.<precision>f" (fixed) or "%.<precision>g" would write
// it, in `buf` (size bytes), returning the text. std::to_chars is specified
// to print the same, at a fraction of printf's cost: printf's %f of a byte
// total (1e10 and up) took some 6,000 instructions a value.
std::string_view printf_number(double v, bool fixed, int precision, char* buf, std::size_t size);

// A line built in `buf` (size bytes) from text and numbers as one snprintf
// into it would write them ("%s", "%.<p>f", "%.<p>g", "%llu"), cut where
// that snprintf would cut (size - 1 characters): the same bytes without
// printf's cost, for files of thousands of rows. Unlike snprintf's, the text
// is not NUL-terminated: view() has its length.
class PrintfLine {
 public:
  // size: at least 1 (snprintf's room for its terminator)
  PrintfLine(char* buf, std::size_t size) : buf_(buf), size_(size) {
    if (size == 0) throw std::invalid_argument("PrintfLine: a buffer of at least one byte");
  }
  PrintfLine& text(std::string_view s);
  PrintfLine& fixed(double v, int precision) { return real(v, true, precision); }
  PrintfLine& general(double v, int precision) { return real(v, false, precision); }
  PrintfLine& whole(unsigned long long v);
  std::string_view view() const { return {buf_, n_}; }

 private:
  PrintfLine& real(double v, bool fixed, int precision);
  char* buf_;
  std::size_t size_;
  std::size_t n_ = 0;
};

// One line's fields, unquoted; nullopt when a quoted field is not closed.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

}  // namespace ssdtwin
