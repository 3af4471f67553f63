// A hash map from 32-bit keys to small trivially copyable values, in one
// flat array: open addressing with linear probing, and backward-shift
// deletion, so an erase leaves no tombstone and lookups never slow down as
// entries come and go. It exists so that state kept for a few entries of a
// huge key space (the map cache's resident segments, the map loads in
// flight) costs memory by the entries, not by the key space: a per-entry
// map cache over a 4 TB drive would otherwise need a slot per logical page.
//
// The table keeps about half its buckets full at most (short probe runs); past
// that it doubles. Sized at construction for the most entries it will hold,
// it never allocates again; built empty, it grows with its entries, each
// doubling a stream (a key's home block in the doubled table is twice its
// old one, or one more: Fibonacci homes keep their order). Iteration order
// is the bucket order, which depends on the history of inserts and erases:
// callers that need a canonical order (snapshots) must not rely on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "sim/cache_allocator.h"
#include "sim/prefetch.h"

namespace ssdtwin {

template <class V>
class FlatMap {
  static_assert(std::is_trivially_copyable_v<V>);

 public:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // the one key that cannot be stored

  // Room for `entries` without growing.
  explicit FlatMap(std::size_t entries = 0) { allocate(buckets_for(entries)); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t buckets() const { return buckets_.size(); }
  // The bucket a key probes first (exposed for tests of probe-run cases).
  // The kGroup keys that differ only in their low bits are a group, homed
  // side by side in a block of kGroup buckets (a 64-byte cache line of
  // 8-byte buckets) chosen by Fibonacci hashing: a run over consecutive
  // keys (a sequential write's segments) then touches one line per group,
  // nearly as a per-segment array did, and a window of consecutive groups
  // spreads evenly over the table; uniformly random keys still get
  // uniformly random homes. (One bucket per key made a whole-drive fill
  // with a per-entry map cache miss the CPU caches on nearly every key;
  // blocks of 2 x kGroup buckets lengthened the probes.)
  std::size_t home(std::uint32_t key) const {
    const std::uint64_t block =
        (std::uint64_t{key >> kGroupBits} * 0x9E3779B97F4A7C15ull) >> shift_;
    return static_cast<std::size_t>(block << kGroupBits) | (key & (kGroup - 1));
  }

  // Loads the line a find of `key` starts on.
  void prefetch(std::uint32_t key) const { prefetch_line(&buckets_[home(key)]); }
  // Loads the lines an erase of `key` walks: its home line and the next,
  // where the backward shift looks for the end of the run (a full group,
  // as a sequential run leaves it, always reads past its line).
  void prefetch_erase(std::uint32_t key) const {
    const std::size_t h = home(key);
    prefetch_line(&buckets_[h]);
    prefetch_line(&buckets_[((h | (kGroup - 1)) + 1) & mask_]);
  }
  // Loads the lines finds of the keys [first, last] start on: one per group.
  void prefetch(std::uint32_t first, std::uint32_t last) const {
    for (std::uint64_t k = first & ~std::uint32_t{kGroup - 1}; k <= last; k += kGroup)
      prefetch(static_cast<std::uint32_t>(k));
  }

  // A miss remembers where its probe ended: another find of that key
  // answers at once, and an insert of it (a cache fills what it just
  // missed) starts there instead of probing the run again. Any erase or
  // insert forgets it.
  V* find(std::uint32_t key) {
    if (key == miss_key_) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Bucket& b = buckets_[i];
      if (b.key == key) return &b.value;
      if (b.key == kEmpty) {
        miss_key_ = key, miss_at_ = i;
        return nullptr;
      }
    }
  }
  const V* find(std::uint32_t key) const { return const_cast<FlatMap*>(this)->find(key); }

  // Adds `key`, which must be absent; returns its stored value.
  V& insert(std::uint32_t key, const V& value) {
    if (key == kEmpty) throw std::logic_error("FlatMap: the empty-bucket key cannot be stored");
    if (over_full(size_ + 1, buckets_.size())) grow();
    std::size_t i = miss_at_;
    if (key != miss_key_) {
      i = home(key);
      while (buckets_[i].key != kEmpty) i = (i + 1) & mask_;
    }
    miss_key_ = kEmpty;
    buckets_[i] = Bucket{key, value};
    ++size_;
    return buckets_[i].value;
  }

  // Removes `key`; false when it was absent.
  bool erase(std::uint32_t key) {
    miss_key_ = kEmpty;  // the hole may end the remembered probe sooner
    std::size_t hole = home(key);
    while (buckets_[hole].key != key) {
      if (buckets_[hole].key == kEmpty) return false;
      hole = (hole + 1) & mask_;
    }
    // Backward shift: each later entry of the run whose home is not in
    // (hole, j] would become unreachable past the hole, so it moves into it.
    for (std::size_t j = (hole + 1) & mask_; buckets_[j].key != kEmpty; j = (j + 1) & mask_) {
      const std::size_t dist_home = (j - home(buckets_[j].key)) & mask_;
      const std::size_t dist_hole = (j - hole) & mask_;
      if (dist_home >= dist_hole) {
        buckets_[hole] = buckets_[j];
        hole = j;
      }
    }
    buckets_[hole].key = kEmpty;
    --size_;
    return true;
  }

  void clear() {
    for (Bucket& b : buckets_) b.key = kEmpty;
    size_ = 0;
    miss_key_ = kEmpty;
  }

  // Every entry, in bucket order: f(key, value).
  template <class F>
  void for_each(F f) const {
    for (const Bucket& b : buckets_)
      if (b.key != kEmpty) f(b.key, b.value);
  }

 private:
  static constexpr unsigned kGroupBits = 3;
  static constexpr std::size_t kGroup = std::size_t{1} << kGroupBits;
  struct Bucket {
    std::uint32_t key;
    V value;
  };

  // At most half the buckets full, and a 64th more: a table sized for a
  // power of two of entries plus a few (the map cache's slots and its
  // pending erasures) then stays at twice that power instead of doubling
  // again, for a load of 0.5 instead of 0.25.
  static bool over_full(std::size_t entries, std::size_t buckets) {
    return entries > buckets / 2 + buckets / 64;
  }
  static std::size_t buckets_for(std::size_t entries) {
    std::size_t n = 2 * kGroup;  // at least two blocks: shift_ stays below 64
    while (over_full(entries, n)) n *= 2;
    return n;
  }
  void allocate(std::size_t n) {
    buckets_.assign(n, Bucket{kEmpty, V{}});
    mask_ = n - 1;
    shift_ = 64 + kGroupBits;  // 64 minus log2 of the number of blocks
    for (std::size_t m = n; m > 1; m >>= 1) --shift_;
    size_ = 0;
    miss_key_ = kEmpty;
  }
  void grow() {
    Buckets old;
    old.swap(buckets_);
    allocate(old.size() * 2);
    for (const Bucket& b : old)
      if (b.key != kEmpty) insert(b.key, b.value);
  }

  using Buckets = std::vector<Bucket, CacheAllocator<Bucket>>;
  Buckets buckets_;
  std::size_t mask_ = 0;
  unsigned shift_ = 63;
  std::size_t size_ = 0;
  // The last find that missed, and the empty bucket its probe ended on
  // (a const find remembers it too).
  mutable std::uint32_t miss_key_ = kEmpty;
  mutable std::size_t miss_at_ = 0;
};

}  // namespace ssdtwin
