// A fixed-size array of trivially copyable values that starts as all-zero
// memory the OS maps only when a page is first written (anonymous mmap):
// building a drive allocates its whole-capacity tables at no cost, and
// memory grows with what the workload touches, not with the drive. Pages
// are the base size (MADV_NOHUGEPAGE, also where the system backs every
// mapping with huge pages): a transparent huge page would zero 2 MiB on the
// first touch of a 4 B entry, and a few thousand random writes to a 4 TB
// drive then cost 2 GB of zeroing (measured: 7.6 s against 0.16 s). Even a
// table written all over gains nothing from huge pages on a virtual
// machine that hands freed memory back to its host: each new huge page
// then costs the host's faults too (docs/RESULTS.md, "Tried and not
// kept"). Tables that need a non-zero "empty" value store it biased (see
// ftl/mapping/mapping_table.h).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace ssdtwin {

template <class T>
class ZeroArray {
  static_assert(std::is_trivially_copyable_v<T>, "the empty state is all-zero bytes");

 public:
  // How the array is first written. kRandom: anywhere (base pages, as
  // above). kFromFront: index by index from 0 (a pool whose slots are handed
  // out in order): 2 MiB pages then zero little that is not used soon, and
  // random reads of the written part miss the TLB far less, so it asks for
  // them (MADV_HUGEPAGE; ignored where the kernel gives none). An array of
  // 2 MiB or more starts on a 2 MiB boundary, so that huge pages can back
  // a kFromFront one whole.
  // kInRuns: in runs of consecutive indices, several at a time (a pool
  // handed out from the front, a block's slots), in base pages: a first
  // write announced with will_write(i) maps the 64 KiB stretch around i in
  // one call (MADV_POPULATE_WRITE) instead of a fault per 4 KiB page. On
  // the 2-core AMD VM of issue 34, a fault cost 10-14 us (512 MiB touched:
  // 1.39-1.86 s) and a populated page 5.5 us (0.70-0.75 s): most of a
  // fault there is its trap, not its zeroing (build/bench/bench_first_touch).
  enum class Fill { kRandom, kFromFront, kInRuns };

  ZeroArray() = default;
  // `skew` (bytes, below a page, a multiple of T's size) starts the
  // elements that far into the mapping: two arrays indexed in lockstep
  // whose elements would otherwise share their address's low 12 bits (both
  // page-aligned, the same element size) stop aliasing each other in the
  // store-to-load checks and the L1's sets.
  explicit ZeroArray(std::size_t n, Fill fill = Fill::kRandom, std::size_t skew = 0) : size_(n) {
    if (n == 0) return;
    if (skew >= 4096 || skew % sizeof(T) != 0) throw std::invalid_argument("ZeroArray: skew");
    skew_ = skew;
    bytes_ = n * sizeof(T) + skew;
    const bool huge = bytes_ >= kHuge;
    const std::size_t mapped = huge ? bytes_ + kHuge : bytes_;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (huge) {
      // Trim the mapping to [a 2 MiB boundary, the array's last page).
      const auto raw = reinterpret_cast<std::uintptr_t>(p);
      const std::uintptr_t start = (raw + kHuge - 1) & ~(kHuge - 1);
      const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
      const std::uintptr_t end = (start + bytes_ + page - 1) & ~(page - 1);
      if (start > raw) ::munmap(p, start - raw);
      if (raw + mapped > end) ::munmap(reinterpret_cast<void*>(end), raw + mapped - end);
      p = reinterpret_cast<void*>(start);
      ::madvise(p, bytes_ & ~(kHuge - 1),
                fill == Fill::kFromFront ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    }
    data_ = reinterpret_cast<T*>(static_cast<char*>(p) + skew_);
    if (fill == Fill::kInRuns) mapped_.assign((bytes_ / kStretch + 64) / 64, 0);
  }
  ~ZeroArray() { release(); }
  ZeroArray(ZeroArray&& o) noexcept { swap(o); }
  ZeroArray& operator=(ZeroArray&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  ZeroArray(const ZeroArray&) = delete;
  ZeroArray& operator=(const ZeroArray&) = delete;

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Element `i` is about to be written (a kInRuns array): the first time
  // its stretch is, the whole stretch is mapped now. A hint: where the
  // kernel has no MADV_POPULATE_WRITE (before Linux 5.14), pages fault in
  // as they are written.
  void will_write(std::size_t i) { map_stretch((skew_ + i * sizeof(T)) / kStretch); }
  // will_write() of elements [i, i + n), with one test per stretch rather
  // than per element (a program unit's reverse entries).
  void will_write(std::size_t i, std::size_t n) {
    if (n == 0) return;
    const std::size_t last = (skew_ + (i + n - 1) * sizeof(T)) / kStretch;
    for (std::size_t s = (skew_ + i * sizeof(T)) / kStretch; s <= last; ++s) map_stretch(s);
  }
  // Back to all zeros, giving the touched pages back to the OS.
  void clear() {
    if (data_ && ::madvise(base(), bytes_, MADV_DONTNEED) != 0)
      std::memset(data_, 0, size_ * sizeof(T));
    std::fill(mapped_.begin(), mapped_.end(), 0);
  }

 private:
  void map_stretch(std::size_t s) {
    std::uint64_t& word = mapped_[s / 64];
    const std::uint64_t bit = std::uint64_t{1} << (s % 64);
    if (word & bit) [[likely]]
      return;
    word |= bit;
    const std::size_t from = s * kStretch;
    ::madvise(base() + from, std::min(kStretch, bytes_ - from), kPopulateWrite);
  }
  void release() {
    if (data_) ::munmap(base(), bytes_);
    data_ = nullptr;
    size_ = bytes_ = skew_ = 0;
  }
  void swap(ZeroArray& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(bytes_, o.bytes_);
    std::swap(skew_, o.skew_);
    mapped_.swap(o.mapped_);
  }
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  // will_write's unit: 16 base pages (a 256 KiB stretch measured the same).
  static constexpr std::size_t kStretch = std::size_t{64} << 10;
#ifdef MADV_POPULATE_WRITE
  static constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
  static constexpr int kPopulateWrite = 23;  // Linux's value; older kernels refuse it (EINVAL)
#endif
  // The mapping's start (2 MiB aligned from 2 MiB up), `skew_` before the elements.
  char* base() const { return reinterpret_cast<char*>(data_) - skew_; }
  T* data_ = nullptr;
  std::size_t size_ = 0, bytes_ = 0, skew_ = 0;
  std::vector<std::uint64_t> mapped_;  // kInRuns: a bit per stretch will_write mapped
};

}  // namespace ssdtwin
