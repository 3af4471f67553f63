#include "sim/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace ssdtwin {

namespace {

// Large enough that a CSV of millions of rows costs few write(2) calls,
// small enough that no result is held in memory whole.
constexpr std::size_t kBufferBytes = std::size_t{1} << 16;

}  // namespace

std::string temporary_path(const std::string& path) { return path + ".tmp"; }

OutputFile::OutputFile(std::string path) : path_(std::move(path)), tmp_(temporary_path(path_)) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", errno);
  buf_.reserve(kBufferBytes);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      tmp_(std::move(other.tmp_)),
      fd_(std::exchange(other.fd_, -1)),
      buf_(std::move(other.buf_)) {}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

OutputFile& OutputFile::operator<<(std::string_view text) {
  if (buf_.size() + text.size() > kBufferBytes) flush();
  if (text.size() >= kBufferBytes) {
    buf_ = text;  // one large piece (summary.json): written straight away
    flush();
  } else {
    buf_.append(text);
  }
  return *this;
}

void OutputFile::flush() {
  std::size_t done = 0;
  while (done < buf_.size()) {
    const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    // write(2) returning 0 for a non-empty buffer is a failure too (ENOSPC
    // is usually reported as -1, but not on every file system).
    if (n <= 0) fail("cannot write", n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  buf_.clear();
}

void OutputFile::commit() {
  flush();
  // close(2) reports deferred write errors (NFS, some FUSE file systems).
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail("cannot write", err);
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    fail("cannot rename the finished file into place", err);
  }
}

void OutputFile::fail(const char* what, int err) {
  // The destructor removes the temporary.
  throw OutputError(path_ + ": " + what + ": " + std::strerror(err));
}

void write_output_file(const std::string& path, std::string_view text) {
  OutputFile f(path);
  f << text;
  f.commit();
}

void remove_output_file(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return;
  throw OutputError(path + ": cannot remove the result of an earlier run: " + std::strerror(errno));
}

}  // namespace ssdtwin
