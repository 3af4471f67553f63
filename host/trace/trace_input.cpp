#include "host/trace/trace_input.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ssdtwin {

namespace {

// Big reads keep the per-line cost to the parse itself: 1 MiB of text holds
// ~20k trace lines, and 256 KiB of compressed input is a few dozen syscalls
// per GB.
constexpr std::size_t kInputBlock = std::size_t{256} << 10;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw TraceError(path + ": " + what);
}

// The raw bytes of the file, in blocks, with the count consumed for progress.
class FileSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, std::string("cannot open the trace: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0) size_ = static_cast<std::uint64_t>(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~FileSource() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  // Reads up to `cap` bytes; 0 at the end of the file.
  std::size_t read(char* dst, std::size_t cap) {
    for (;;) {
      const ssize_t n = ::read(fd_, dst, cap);
      if (n >= 0) {
        consumed_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno != EINTR) fail(path_, std::string("read error: ") + std::strerror(errno));
    }
  }
  // The next block of input for a decoder; empty at the end of the file.
  std::string_view next_block() {
    if (block_.empty()) block_.resize(kInputBlock);  // plain text never needs it
    return {block_.data(), read(block_.data(), block_.size())};
  }
  double progress() const {
    return size_ ? static_cast<double>(consumed_) / static_cast<double>(size_) : 0.0;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t consumed_ = 0;
  std::vector<char> block_;
};

Compression sniff(std::string_view head) {
  auto starts = [&](const char* magic, std::size_t n) {
    return head.size() >= n && std::memcmp(head.data(), magic, n) == 0;
  };
  if (starts("\x1f\x8b", 2)) return Compression::kGzip;
  if (starts("\x28\xb5\x2f\xfd", 4)) return Compression::kZstd;
  if (starts("\xfd\x37\x7a\x58\x5a\x00", 6)) return Compression::kXz;
  return Compression::kNone;
}

}  // namespace

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kXz:
      return "xz";
  }
  return "?";
}

// Fills the caller's buffer with decoded text; 0 at the end of the data.
class TraceInput::Decoder {
 public:
  explicit Decoder(const std::string& path) : src_(path) {}
  virtual ~Decoder() = default;
  virtual std::size_t read(char* dst, std::size_t cap) = 0;
  double progress() const { return src_.progress(); }
  FileSource& source() { return src_; }

 protected:
  FileSource src_;
  std::string_view in_;  // compressed input not yet consumed
  bool in_eof_ = false;
  // Makes sure some input is pending unless the file has ended.
  void refill() {
    if (in_.empty() && !in_eof_) {
      in_ = src_.next_block();
      if (in_.empty()) in_eof_ = true;
    }
  }
};

namespace {

class PlainDecoder final : public TraceInput::Decoder {
 public:
  using Decoder::Decoder;
  // Straight into the line buffer: no copy.
  std::size_t read(char* dst, std::size_t cap) override { return src_.read(dst, cap); }
};

// gzip (and zlib) streams; concatenated members, as `cat a.gz b.gz` or
// pigz make, are read one after the other as gzip(1) does.
class GzipDecoder final : public TraceInput::Decoder {
 public:
  explicit GzipDecoder(const std::string& path) : Decoder(path) {
    // 15 + 32: the largest window, and a gzip or zlib header recognised.
    if (inflateInit2(&z_, 15 + 32) != Z_OK) fail(path, "cannot initialise zlib");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }
  std::size_t read(char* dst, std::size_t cap) override {
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(cap);
    while (z_.avail_out > 0) {
      refill();
      if (in_.empty() && !mid_member_) break;  // the end, between members
      // Called even with no input left: zlib may still hold output.
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data()));
      z_.avail_in = static_cast<uInt>(in_.size());
      const uInt room = z_.avail_out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      const std::size_t used = in_.size() - z_.avail_in;
      in_.remove_prefix(used);
      if (rc == Z_STREAM_END) {
        inflateReset(&z_);
        mid_member_ = false;
      } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
        if (used > 0) mid_member_ = true;
        if (used == 0 && z_.avail_out == room && in_eof_)
          fail(src_.path(), "truncated gzip data (the file ends inside a member)");
      } else {
        fail(src_.path(),
             std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate failed"));
      }
    }
    return cap - z_.avail_out;
  }

 private:
  z_stream z_{};
  bool mid_member_ = false;
};

// zstd frames; several frames in a row are read as one stream.
class ZstdDecoder final : public TraceInput::Decoder {
 public:
  explicit ZstdDecoder(const std::string& path) : Decoder(path), ctx_(ZSTD_createDStream()) {
    if (!ctx_) fail(path, "cannot initialise zstd");
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(ctx_); }
  std::size_t read(char* dst, std::size_t cap) override {
    ZSTD_outBuffer out{dst, cap, 0};
    while (out.pos < out.size) {
      refill();
      // Called even with no input left: the decoder may still hold output.
      ZSTD_inBuffer in{in_.data(), in_.size(), 0};
      const std::size_t before = out.pos;
      const std::size_t rc = ZSTD_decompressStream(ctx_, &out, &in);
      if (ZSTD_isError(rc))
        fail(src_.path(), std::string("corrupt zstd data: ") + ZSTD_getErrorName(rc));
      in_.remove_prefix(in.pos);
      if (in.pos == 0 && out.pos == before) {  // no progress: only at the end of the input
        if (!in_eof_) fail(src_.path(), "corrupt zstd data (the decoder made no progress)");
        if (frame_open_) fail(src_.path(), "truncated zstd data (the file ends inside a frame)");
        break;
      }
      frame_open_ = rc != 0;  // 0: a frame ended and everything is flushed
    }
    return out.pos;
  }

 private:
  ZSTD_DStream* ctx_;
  bool frame_open_ = false;
};

// xz streams (LZMA_CONCATENATED: several streams in a row, as xz(1) reads).
class XzDecoder final : public TraceInput::Decoder {
 public:
  explicit XzDecoder(const std::string& path) : Decoder(path) {
    if (lzma_stream_decoder(&s_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
      fail(path, "cannot initialise liblzma");
  }
  ~XzDecoder() override { lzma_end(&s_); }
  std::size_t read(char* dst, std::size_t cap) override {
    s_.next_out = reinterpret_cast<std::uint8_t*>(dst);
    s_.avail_out = cap;
    while (s_.avail_out > 0 && !done_) {
      refill();
      s_.next_in = reinterpret_cast<const std::uint8_t*>(in_.data());
      s_.avail_in = in_.size();
      const lzma_ret rc = lzma_code(&s_, in_eof_ ? LZMA_FINISH : LZMA_RUN);
      in_.remove_prefix(in_.size() - s_.avail_in);
      if (rc == LZMA_STREAM_END) {
        done_ = true;
      } else if (rc == LZMA_BUF_ERROR && in_eof_) {
        fail(src_.path(), "truncated xz data (the file ends inside a stream)");
      } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
        fail(src_.path(), "corrupt xz data (liblzma error " + std::to_string(rc) + ")");
      }
    }
    return cap - s_.avail_out;
  }

 private:
  lzma_stream s_ = LZMA_STREAM_INIT;
  bool done_ = false;
};

std::unique_ptr<TraceInput::Decoder> make_decoder(const std::string& path, Compression& kind) {
  {
    // The magic bytes through a probe of their own: one extra open(2), and
    // each decoder then reads its file from the start.
    FileSource probe(path);
    char head[8];
    kind = sniff(std::string_view(head, probe.read(head, sizeof head)));
  }
  switch (kind) {
    case Compression::kGzip:
      return std::make_unique<GzipDecoder>(path);
    case Compression::kZstd:
      return std::make_unique<ZstdDecoder>(path);
    case Compression::kXz:
      return std::make_unique<XzDecoder>(path);
    case Compression::kNone:
      break;
  }
  return std::make_unique<PlainDecoder>(path);
}

}  // namespace

TraceInput::TraceInput(const std::string& path)
    : path_(path), decoder_(make_decoder(path, compression_)), buf_(new char[kMaxLine]) {}

TraceInput::~TraceInput() = default;

double TraceInput::progress() const { return decoder_->progress(); }

void TraceInput::fill() {
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == kMaxLine)
    throw TraceError(path_ + ":" + std::to_string(line_ + 1) + ": line longer than " +
                     std::to_string(kMaxLine >> 10) + " KiB (not a text trace?)");
  const std::size_t n = decoder_->read(buf_.get() + end_, kMaxLine - end_);
  if (n == 0) eof_ = true;
  end_ += n;
}

bool TraceInput::next_line(std::string_view& line) {
  for (;;) {
    const char* b = buf_.get() + begin_;
    const std::size_t avail = end_ - begin_;
    const auto* nl = static_cast<const char*>(std::memchr(b, '\n', avail));
    std::size_t len;
    if (nl) {
      len = static_cast<std::size_t>(nl - b);
      begin_ += len + 1;
    } else if (eof_) {
      if (avail == 0) return false;
      len = avail;  // last line without a newline
      begin_ = end_;
    } else {
      fill();
      continue;
    }
    if (len > 0 && b[len - 1] == '\r') --len;
    line = std::string_view(b, len);
    // A UTF-8 byte-order mark (Windows editors write one) is not text.
    if (line_ == 0 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    ++line_;
    return true;
  }
}

namespace {

std::string gzip_bytes(std::string_view data, const std::string& path) {
  z_stream z{};
  // 15 + 16: a gzip header (not zlib) as gzip(1) writes.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    fail(path, "cannot initialise zlib");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) fail(path, "gzip compression failed");
  return out;
}

std::string zstd_bytes(std::string_view data, const std::string& path) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  if (ZSTD_isError(n)) fail(path, std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::string xz_bytes(std::string_view data, const std::string& path) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  std::size_t pos = 0;
  // Preset 2: these files are test and benchmark inputs, and xz decodes
  // at much the same speed whatever preset wrote it.
  const lzma_ret rc = lzma_easy_buffer_encode(
      2, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(data.data()), data.size(),
      reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size());
  if (rc != LZMA_OK) fail(path, "xz compression failed");
  out.resize(pos);
  return out;
}

}  // namespace

void write_trace_file(const std::string& path, std::string_view data, Compression c) {
  std::string packed;
  switch (c) {
    case Compression::kNone:
      break;
    case Compression::kGzip:
      packed = gzip_bytes(data, path);
      break;
    case Compression::kZstd:
      packed = zstd_bytes(data, path);
      break;
    case Compression::kXz:
      packed = xz_bytes(data, path);
      break;
  }
  const std::string_view bytes = c == Compression::kNone ? data : std::string_view(packed);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, std::string("cannot create: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail(path, std::string("write error: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(path, std::string("write error: ") + std::strerror(errno));
}

}  // namespace ssdtwin
