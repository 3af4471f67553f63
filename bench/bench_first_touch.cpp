// What a table's first touch costs on this machine (issue 34): MiB of
// fresh anonymous memory in base pages, either written one 4 KiB page at a
// time (a fault per page, as a kRandom ZeroArray takes them) or mapped
// first with MADV_POPULATE_WRITE in stretches of STRETCH_KIB, as
// ZeroArray::will_write does for kInRuns arrays, then written. On a
// virtual machine most of a fault can be its trap, which the stretches
// take once per call (docs/RESULTS.md, "Against MQSim").
//
//   build/bench/bench_first_touch [MIB] [STRETCH_KIB]    default: 512 MiB, 64 KiB
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "sim/zero_array.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512;
  const std::size_t stretch_kib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
  if (mib == 0 || stretch_kib == 0 || stretch_kib % 4 != 0) {
    std::fprintf(stderr, "usage: bench_first_touch [MIB > 0] [STRETCH_KIB, a multiple of 4]\n");
    return 2;
  }
  const std::size_t bytes = mib << 20, page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t n = bytes / sizeof(std::uint32_t), per_page = page / sizeof(std::uint32_t);
  {
    ssdtwin::ZeroArray<std::uint32_t> a(n);  // base pages, a fault per page
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; i += per_page) a[i] = 1;
    std::printf("page by page:            %zu MiB in %.3f s (%.2f us per page)\n", mib,
                seconds_since(t0), seconds_since(t0) * 1e6 / static_cast<double>(bytes / page));
  }
  {
    const std::size_t stretch = stretch_kib << 10;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 1;
    ::madvise(p, bytes, MADV_NOHUGEPAGE);
    auto* a = static_cast<std::uint32_t*>(p);
    const auto t0 = std::chrono::steady_clock::now();
    bool populated = true;
    for (std::size_t off = 0; off < bytes; off += stretch) {
      const std::size_t end = std::min(bytes, off + stretch);
      // MADV_POPULATE_WRITE is 23 where the C library's header predates it.
      if (::madvise(static_cast<char*>(p) + off, end - off, 23) != 0) populated = false;
      for (std::size_t i = off / sizeof(std::uint32_t); i < end / sizeof(std::uint32_t);
           i += per_page)
        a[i] = 1;
    }
    std::printf("in %4zu KiB stretches:   %zu MiB in %.3f s (%.2f us per page)%s\n", stretch_kib,
                mib, seconds_since(t0), seconds_since(t0) * 1e6 / static_cast<double>(bytes / page),
                populated ? "" : " (this kernel refused MADV_POPULATE_WRITE: faults)");
    ::munmap(p, bytes);
  }
  return 0;
}
