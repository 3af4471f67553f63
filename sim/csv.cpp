#include "sim/csv.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace ssdtwin {

std::string csv_number(double v) {
  char buf[32];  // the longest shortest form of a double is 24 characters
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string_view printf_number(double v, bool fixed, int precision, char* buf, std::size_t size) {
  const std::to_chars_result r = std::to_chars(
      buf, buf + size, v, fixed ? std::chars_format::fixed : std::chars_format::general, precision);
  if (r.ec == std::errc{}) return std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
  // Too long for `buf`: printf's own text, cut to it as snprintf cuts.
  const int n = std::snprintf(buf, size, fixed ? "%.*f" : "%.*g", precision, v);
  return std::string_view(buf, n < 0 ? 0 : std::min(static_cast<std::size_t>(n), size - 1));
}

PrintfLine& PrintfLine::text(std::string_view s) {
  const std::size_t room = size_ - 1 - n_;  // n_ never passes size_ - 1
  const std::size_t k = std::min(s.size(), room);
  if (k > 0) std::memcpy(buf_ + n_, s.data(), k);  // a default string_view has no data
  n_ += k;
  return *this;
}

PrintfLine& PrintfLine::real(double v, bool fixed, int precision) {
  // to_chars may fill what is left to the last byte, where snprintf keeps
  // one for its terminator: the prefix that fits before it is the cut text.
  n_ += std::min(printf_number(v, fixed, precision, buf_ + n_, size_ - n_).size(), size_ - 1 - n_);
  return *this;
}

PrintfLine& PrintfLine::whole(unsigned long long v) {
  char digits[24];  // 2^64 has 20 digits
  const auto r = std::to_chars(digits, digits + sizeof digits, v);
  return text(std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)));
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        out.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return out;
}

}  // namespace ssdtwin
