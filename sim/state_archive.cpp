#include "sim/state_archive.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "sim/output_file.h"

namespace ssdtwin {

StateArchive::StateArchive(OutputFile& out) : out_(&out), path_(out.path()) {}

StateArchive::StateArchive(std::FILE* in, std::uint64_t bytes, std::string path)
    : in_(in), path_(std::move(path)), total_(bytes) {}

void StateArchive::hash(const void* data, std::size_t bytes) {
  // Word at a time (a byte-wise hash would cost more than the disk read on
  // tables of hundreds of MB); a multiply-xorshift mix per word.
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = sum_;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  sum_ = h;
}

void StateArchive::raw(void* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (loading()) {
    if (bytes > remaining() || std::fread(data, 1, bytes, in_) != bytes) fail_truncated(bytes);
  } else {
    *out_ << std::string_view(static_cast<const char*>(data), bytes);
  }
  done_ += bytes;
  hash(data, bytes);
}

void StateArchive::pod(bool& v) {
  std::uint8_t b = v ? 1 : 0;
  raw(&b, 1);
  if (b > 1) fail("a flag of value " + std::to_string(b) + " (expected 0 or 1)");
  v = b == 1;
}

std::size_t StateArchive::length(std::size_t n, bool fixed) {
  std::uint64_t stored = n;
  pod(stored);
  if (!loading()) return n;
  if (fixed && stored != n)
    fail("a list of " + std::to_string(stored) + " entries where this drive has " +
         std::to_string(n));
  // Every element takes at least a byte: a larger count is damage.
  if (stored > remaining()) fail_truncated(stored);
  return static_cast<std::size_t>(stored);
}

void StateArchive::seal() {
  const std::uint64_t expected = sum_;
  std::uint64_t stored = expected;
  if (loading()) {
    if (sizeof stored > remaining() || std::fread(&stored, 1, sizeof stored, in_) != sizeof stored)
      fail_truncated(sizeof stored);
    if (stored != expected) fail("checksum mismatch: the file is damaged");
  } else {
    *out_ << std::string_view(reinterpret_cast<const char*>(&stored), sizeof stored);
  }
  done_ += sizeof stored;
}

void StateArchive::end() {
  if (loading() && remaining() > 0)
    fail(std::to_string(remaining()) + " bytes after the end of the state (the file has " +
         std::to_string(total_) + ")");
}

void StateArchive::fail(const std::string& what) const {
  throw SnapshotError(path_ + ": snapshot unusable: " + what + " (at byte " +
                      std::to_string(done_) + "); make it again with --save-state");
}

void StateArchive::fail_truncated(std::uint64_t wanted) const {
  fail("truncated: " + std::to_string(wanted) + " more bytes expected, " +
       std::to_string(remaining()) + " left in the file");
}

}  // namespace ssdtwin
