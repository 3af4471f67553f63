// The drive-state snapshot loader (`run --load-state`), fed damaged copies
// of a real snapshot. At start-up the target writes one: a tiny drive (the
// 1 GB test drive cut down to one die of 32 blocks) filled and overwritten by
// fast preconditioning, so its tables, free lists and GC state are not
// empty. Each input is a recipe for damaging that file:
//
//   byte 0       flags: bit 0 cut the file short, bit 1 append bytes
//   bytes 1-4    how many bytes to cut (little-endian, modulo the length)
//   then         5-byte edits: a 4-byte offset (modulo the length) and a
//                byte to XOR there; with bit 1, the input's last byte is
//                the number of bytes appended instead
//
// so every input is a truncated, mutated or extended snapshot rather than
// noise the magic check refuses. The loader's contract: the file as written
// loads; any other content is refused with a SnapshotError (a checksum or
// a bound catches it), never a crash, a huge allocation or a hang.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/drive.h"
#include "fuzz/fuzz_support.h"
#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/rng.h"
#include "sim/state_archive.h"

using namespace ssdtwin;

namespace {

const std::vector<std::string> kTiny = {
    "drive.nand.channels=1",          "drive.nand.dies_per_channel=1", "drive.nand.planes=1",
    "drive.nand.blocks_per_plane=32", "drive.nand.pages_per_block=12", "drive.user_capacity=4MB"};

struct Base {
  std::unique_ptr<ConfigDoc> doc;
  SnapshotKey key;
  std::vector<char> bytes;
  std::string path;  // where each input's file is written (a memfd's /proc path)
  int fd = -1;
};

std::unique_ptr<Drive> fresh_drive(const Base& b) {
  return std::make_unique<Drive>(b.doc->root(), false);
}

Base make_base() {
  Base b;
  b.doc = ConfigDoc::load(std::string(SSDTWIN_SOURCE_DIR) + "/configs/drives/test_tlc_1gb.yaml",
                          "drive", kTiny);
  b.key = {"{\"fuzz\":\"tiny test drive\"}", "{\"phases\":[\"fill\",\"overwrite\"]}", false};
  auto drive = fresh_drive(b);
  Rng rng(1);
  const std::uint64_t pages = drive->ftl->map().logical_pages();
  for (Lpn l = 0; l < pages; ++l) drive->ftl->fast_write(l);
  for (std::uint64_t i = 0; i < 2 * pages; ++i)
    drive->ftl->fast_write(static_cast<Lpn>(rng.next() % pages));
  drive->ftl->end_fast(rng);
  char tmpl[] = "/tmp/ssdtwin-fuzz-snapshot-XXXXXX";
  const int tmp = ::mkstemp(tmpl);
  if (tmp < 0) fuzz::finding("cannot create the base snapshot's file");
  ::close(tmp);
  {
    OutputFile out(tmpl);
    drive->save_state(out, b.key, rng);
  }
  std::FILE* f = std::fopen(tmpl, "rb");
  if (!f) fuzz::finding("cannot read the base snapshot back");
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
    b.bytes.insert(b.bytes.end(), buf, buf + n);
  std::fclose(f);
  ::unlink(tmpl);
  b.fd = ::memfd_create("snapshot", 0);
  if (b.fd < 0) fuzz::finding("memfd_create failed");
  b.path = "/proc/self/fd/" + std::to_string(b.fd);
  return b;
}

std::uint32_t u32_at(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// The damaged copy an input describes (see the top of the file).
std::vector<char> damaged(const std::vector<char>& base, const std::uint8_t* data,
                          std::size_t size) {
  std::vector<char> file = base;
  if (size == 0) return file;
  const bool cut = data[0] & 1, extend = data[0] & 2;
  std::size_t end = size;
  std::size_t append = 0;
  if (extend) append = data[--end];
  if (cut && end >= 5) file.resize(file.size() - u32_at(data + 1) % (file.size() + 1));
  for (std::size_t pos = 5; pos + 5 <= end && !file.empty(); pos += 5)
    file[u32_at(data + pos) % file.size()] ^= static_cast<char>(data[pos + 4]);
  for (std::size_t i = 0; i < append; ++i) file.push_back(static_cast<char>(0xA5 ^ i));
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Base base = make_base();
  const std::vector<char> file = damaged(base.bytes, data, size);
  if (::ftruncate(base.fd, 0) != 0 ||
      ::pwrite(base.fd, file.data(), file.size(), 0) != static_cast<ssize_t>(file.size()))
    fuzz::finding("cannot write the damaged snapshot");
  const bool intact = file == base.bytes;
  auto drive = fresh_drive(base);
  Rng rng(1);
  try {
    drive->load_state(base.path, base.key, rng);
  } catch (const SnapshotError& e) {
    if (intact) {
      std::fprintf(stderr, "%s\n", e.what());
      fuzz::finding("the snapshot as written was refused");
    }
    fuzz::expected(e);
    return 0;
  }
  if (!intact) fuzz::finding("a damaged snapshot loaded");
  return 0;
}
