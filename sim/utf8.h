// UTF-8 validation for text inputs. YAML streams are Unicode by definition,
// and every name or value the loaders keep may end up in a JSON output
// (summary.json, sweep.json, fio.json), whose writer refuses invalid UTF-8;
// checked at the input, a stray byte is a clear error naming its place
// instead of a failure in some later output.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace ssdtwin {

// The offset of the first byte that is not part of well-formed UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or
// npos if the whole text is.
inline std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF)
      len = 2;
    else if (b == 0xE0)
      len = 3, lo = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC)
      len = 3;
    else if (b == 0xED)
      len = 3, hi = 0x9F;
    else if (b >= 0xEE && b <= 0xEF)
      len = 3;
    else if (b == 0xF0)
      len = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3)
      len = 4;
    else if (b == 0xF4)
      len = 4, hi = 0x8F;
    else
      return i;
    if (i + len > s.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

// "0xNN", for messages naming a bad byte.
inline std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", b);
  return buf;
}

}  // namespace ssdtwin
