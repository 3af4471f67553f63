#include "ftl/precondition/steady_layout.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ssdtwin {
namespace {

// The fewest bits covering [0, n), at most 63.
unsigned bits_covering(std::uint64_t n) {
  unsigned bits = 0;
  while (bits < 63 && (std::uint64_t{1} << bits) < n) ++bits;
  return bits;
}

// A pseudo-random permutation of [0, n) in O(1) memory (a table of n
// logical pages would add 4 bytes per page to the peak): a 4-round Feistel
// network over the fewest bits covering n, its halves a and b bits wide
// (each round maps a high part of a bits and a low part of b bits to a
// high part of b bits and a low part of a bits, a bijection), outputs
// outside [0, n) walked on through their cycle (under 2 steps on average).
class Permutation {
 public:
  Permutation(std::uint64_t n, Rng& rng) : n_(n) {
    const unsigned bits = std::max(2u, bits_covering(n));
    hi_ = bits / 2;
    lo_ = bits - hi_;
    for (auto& k : keys_) k = rng.next();
  }
  std::uint64_t operator()(std::uint64_t x) const {
    do x = network(x);
    while (x >= n_);
    return x;
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t network(std::uint64_t x) const {
    unsigned a = hi_, b = lo_;
    for (const std::uint64_t k : keys_) {
      const std::uint64_t high = x >> b, low = x & ((std::uint64_t{1} << b) - 1);
      x = (low << a) | ((high ^ mix(low ^ k)) & ((std::uint64_t{1} << a) - 1));
      std::swap(a, b);
    }
    return x;
  }
  std::uint64_t n_;
  unsigned hi_, lo_;
  std::uint64_t keys_[4];
};

// Places (logical page, slot) pairs in batches, each sorted by region of
// the forward table before it is stored. Dealt in slot order, the pages
// are random over a table far larger than the TLB reach, and on a
// virtual machine each store, prefetched or not, waited for a nested page
// walk: three quarters of the layout's time. In region order the walks
// share their page-table lines. Each page and slot is placed once, so the
// order of the stores does not change the result.
class PlaceBatch {
 public:
  PlaceBatch(MappingTable& map, std::uint64_t logical_pages) : map_(map) {
    const unsigned bits = bits_covering(logical_pages);
    shift_ = bits > kRegionBits ? bits - kRegionBits : 0;
    pairs_.reserve(kBatch);
    sorted_.resize(kBatch);
    counts_.resize((std::size_t{1} << kRegionBits) + 1);
  }
  void add(Lpn lpn, Ppa ppa) {
    pairs_.push_back(Pair{lpn, ppa});
    if (pairs_.size() == kBatch) flush();
  }
  // A counting sort on the region, then the stores in that order.
  void flush() {
    std::fill(counts_.begin(), counts_.end(), 0);
    for (const Pair& p : pairs_) ++counts_[(p.lpn >> shift_) + 1];
    for (std::size_t r = 1; r < counts_.size(); ++r) counts_[r] += counts_[r - 1];
    for (const Pair& p : pairs_) sorted_[counts_[p.lpn >> shift_]++] = p;
    for (std::size_t i = 0; i < pairs_.size(); ++i) map_.place(sorted_[i].lpn, sorted_[i].ppa);
    pairs_.clear();
  }

 private:
  struct Pair {
    Lpn lpn;
    Ppa ppa;
  };
  // 2^15 regions (16 KiB of table each on a 512 GiB drive); 128 Ki pairs a
  // batch, 2 MiB with the sorted copy.
  static constexpr unsigned kRegionBits = 15;
  static constexpr std::size_t kBatch = std::size_t{1} << 17;
  MappingTable& map_;
  unsigned shift_;
  std::vector<Pair> pairs_, sorted_;
  std::vector<std::uint32_t> counts_;
};

}  // namespace

std::string steady_blocker(const FtlCore& core) {
  if (core.cfg.rain_span_dies)
    return "ftl.rain.span: dies collects super-blocks, which counted writes do not model: use "
           "fast: exact";
  if (core.verifier.enabled())
    return "write verification follows each page's contents, which counted writes do not keep";
  if (core.mapped_pages != core.map.logical_pages())
    return "every logical page must hold data first (" + std::to_string(core.mapped_pages) +
           " of " + std::to_string(core.map.logical_pages()) + " do): a sequential fill before it";
  if (core.slc_valid_slots != 0)
    return "data waits in SLC-mode blocks (a timed phase left it): fold it first, or precondition "
           "with fast phases only";
  for (std::uint32_t tp = 0; tp < core.map.tpages(); ++tp)
    if (core.map.location(kMapOwner | tp) != kUnmapped)
      return "translation pages are on flash (a timed phase wrote them back): precondition with "
             "fast phases only";
  return {};
}

void lay_out_owners(FtlCore& core, Rng& rng) {
  const std::uint64_t n = core.map.logical_pages();
  const Permutation deal(n, rng);
  PlaceBatch batch(core.map, n);
  const std::uint32_t spp = core.layout.slots_per_page();
  const std::uint32_t per_unit = core.pages_per_program;
  std::uint64_t dealt = 0;
  for (std::uint32_t die = 0; die < core.geo.dies(); ++die) {
    for (std::uint32_t block = 0; block < core.blocks.blocks_per_die(); ++block) {
      const BlockInfo& b = core.blocks.info(die, block);
      if (b.valid == 0) continue;
      if (b.mode != core.native)
        throw std::logic_error("steady layout: valid data in an SLC-mode block");
      // Data pages: those allocated, less each RAIN stripe's parity unit
      // (a unit is parity when the data unit before it closes a stripe).
      const std::uint32_t units = core.geo.pages_in_mode(b.mode) / per_unit;
      auto parity = [&](std::uint32_t page) {
        const std::uint32_t unit = page / per_unit;
        return unit > 0 && core.stripes.parity_next(unit - 1, units);
      };
      std::uint64_t candidates = 0;
      for (std::uint32_t page = 0; page < b.next_page; ++page)
        if (!parity(page)) candidates += spp;
      if (b.valid > candidates)
        throw std::logic_error("steady layout: more valid pages than data slots");
      // Selection sampling (Knuth's algorithm S): each data slot is taken
      // with probability (still to take) / (still to see), in slot order.
      std::uint64_t left = b.valid, seen = 0;
      const std::uint32_t db = core.layout.die_block(die, block);
      for (std::uint32_t page = 0; page < b.next_page && left > 0; ++page) {
        if (parity(page)) continue;
        const Ppa first = core.layout.first_slot(db, page);
        for (std::uint32_t k = 0; k < spp && left > 0; ++k, ++seen) {
          if (rng.below(candidates - seen) >= left) continue;
          batch.add(static_cast<Lpn>(deal(dealt++)), first + k);
          --left;
        }
      }
    }
  }
  batch.flush();
  if (dealt != n)
    throw std::logic_error("steady layout: valid pages do not match the mapped pages");
}

}  // namespace ssdtwin
