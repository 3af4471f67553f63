// Drive-state snapshots (issue 14): the binary stream a drive's state is
// written to and read back from. Each component's archive() sits in its
// own source file, beside the state it names.
//
// One function per component, `archive(StateArchive&)`, names what of it a
// snapshot holds and serves both directions: the writer and the reader make
// the same calls in the same order, so the two can never disagree about the
// layout. Arrays go out and come back in bulk (a 4 TB drive's tables are
// gigabytes; per-entry formatting would take minutes), and every byte passes
// one checksum, so a file that was cut short or damaged is refused before
// the run goes on from it. The file's header (what drive and preconditioning
// the state stands for) is app/snapshot.h's business.
//
// Snapshots are taken at a quiescent point (Ftl::quiescent: nothing
// buffered, no flash operation or relocation in flight), so in-flight
// objects (transactions, deferred reads, rebuilds) are never part of one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/config.h"
#include "sim/zero_array.h"

namespace ssdtwin {

class OutputFile;

// A snapshot that cannot be used: damaged, cut short, or made for another
// drive or preconditioning. Bad input (exit status 2 in the CLI); the
// message names the file and what differs.
class SnapshotError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

class StateArchive {
 public:
  // Writes to `out` (the caller commits it).
  explicit StateArchive(OutputFile& out);
  // Reads `path` (an open file of `bytes` bytes; the caller closes it).
  StateArchive(std::FILE* in, std::uint64_t bytes, std::string path);

  bool loading() const { return in_ != nullptr; }
  const std::string& path() const { return path_; }

  // A trivially copyable value, as its bytes (the file is read back by the
  // same build on the same kind of machine: the header's version and
  // fingerprint make sure of the first; byte order is the host's).
  template <class T>
  void pod(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    raw(&v, sizeof v);
  }
  // A flag, as one byte: any other value than 0 or 1 is damage (a bool
  // read back from a stray byte would be undefined).
  void pod(bool& v);
  template <class... T>
  void pods(T&... v) {
    (pod(v), ...);
  }
  // A vector of trivially copyable values: its length, then its elements
  // in one piece. `fixed`: its length comes from the drive's shape, and a
  // stored length that differs is refused (no resize).
  template <class T>
  void vec(std::vector<T>& v, bool fixed = false) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint64_t n = v.size();
    pod(n);
    if (loading()) {
      if (fixed && n != v.size())
        fail("a table of " + std::to_string(n) + " entries where this drive has " +
             std::to_string(v.size()));
      if (n > remaining() / (sizeof(T) ? sizeof(T) : 1)) fail_truncated(n * sizeof(T));
      v.resize(static_cast<std::size_t>(n));
    }
    raw(v.data(), v.size() * sizeof(T));
  }
  // A whole-capacity table (sim/zero_array.h): its length must match.
  // Queues of 32-bit values (per die or group), each as a vector.
  void deques(std::vector<std::deque<std::uint32_t>>& qs) {
    for (auto& q : qs) {
      std::vector<std::uint32_t> v(q.begin(), q.end());
      vec(v);
      if (loading()) q.assign(v.begin(), v.end());
    }
  }
  template <class T>
  void array(ZeroArray<T>& a) {
    std::uint64_t n = a.size();
    pod(n);
    if (loading() && n != a.size())
      fail("a table of " + std::to_string(n) + " entries where this drive has " +
           std::to_string(a.size()));
    raw(a.data(), a.size() * sizeof(T));
  }
  // A length for a list the caller archives element by element.
  std::size_t length(std::size_t n, bool fixed);

  void raw(void* data, std::size_t bytes);
  // The checksum of everything so far: written, or read and compared.
  void seal();
  // The end of the snapshot: reading, bytes after it are refused (the
  // checksum covers only what the reader asked for).
  void end();
  std::uint64_t bytes_done() const { return done_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::uint64_t remaining() const { return total_ - done_; }
  [[noreturn]] void fail_truncated(std::uint64_t wanted) const;
  void hash(const void* data, std::size_t bytes);

  OutputFile* out_ = nullptr;
  std::FILE* in_ = nullptr;
  std::string path_;
  std::uint64_t total_ = 0, done_ = 0;
  std::uint64_t sum_ = 0x5EED5A75ull;
};

}  // namespace ssdtwin
