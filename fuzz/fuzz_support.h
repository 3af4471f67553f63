// What the libFuzzer targets share: the --set overrides a config input may
// carry, and the rule for what counts as a finding.
//
// A target calls the project's loaders the way the CLI does. The errors the
// loaders document for bad input (ConfigError and its TraceError, a trace
// parser's LineError) are expected outcomes and are caught. Anything else is
// a finding: a crash, an AddressSanitizer or UBSan report, std::bad_alloc or
// any other exception (libFuzzer reports an uncaught exception as a crash),
// a time-out (-timeout) or memory beyond -rss_limit_mb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace ssdtwin::fuzz {

// The input's text, NUL bytes and all (the loaders take std::string).
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A config input may hold lines "#--set KEY.PATH=VALUE": YAML comments,
// so the document parses the same, and each is applied as `--set` would be.
// This lets the fuzzer reach the override grammar (paths, list indices,
// values parsed as YAML) from the same corpus.
inline std::vector<std::string> overrides_in(std::string_view text) {
  constexpr std::string_view kMark = "#--set ";
  std::vector<std::string> sets;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    if (line.substr(0, kMark.size()) == kMark) sets.emplace_back(line.substr(kMark.size()));
    pos = end + 1;
  }
  return sets;
}

// An expected error, printed when SSDTWIN_FUZZ_VERBOSE is set: to see why
// a seed stops early (running a target on a file runs it once).
inline void expected(const std::exception& e) {
  static const bool verbose = std::getenv("SSDTWIN_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "expected error: %s\n", e.what());
}

// A property the target checks beyond "no crash" failed: abort, so libFuzzer
// saves the input and reports it like a crash.
[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

}  // namespace ssdtwin::fuzz
