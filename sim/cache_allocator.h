// An allocator for tables the simulator reads at random and fills whole
// (the map cache's hash; its slots and eviction links, written from the
// front as they are handed out, are ZeroArray::Fill::kFromFront): blocks
// start on a cache-line boundary, so a 64-byte group of entries is one line,
// not two (malloc aligns to 16 bytes); blocks of 2 MiB and more start on a
// 2 MiB boundary and ask for transparent huge pages (MADV_HUGEPAGE). Random
// reads over a 16 MiB hash on base pages miss the TLB at nearly every
// access, and on a virtual machine each miss is a two-level page walk; a
// prefetch that misses the TLB waits for that walk. The tables are written
// whole when allocated, so huge pages cost no memory that base pages would
// not (unlike the lazily touched mapping tables, see sim/zero_array.h).
// Where the kernel gives no huge pages, the advice is ignored.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace ssdtwin {

template <class T>
struct CacheAllocator {
  using value_type = T;
  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  CacheAllocator() = default;
  template <class U>
  CacheAllocator(const CacheAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return static_cast<T*>(::operator new (bytes, std::align_val_t{kLine}));
    void* p = ::operator new (bytes, std::align_val_t{kHuge});
    ::madvise(p, bytes & ~(kHuge - 1), MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    ::operator delete (p, std::align_val_t{n * sizeof(T) < kHuge ? kLine : kHuge});
  }
  template <class U>
  bool operator==(const CacheAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheAllocator<U>&) const {
    return false;
  }
};

}  // namespace ssdtwin
