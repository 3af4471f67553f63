// The address stream of a workload phase: the op, offset and size of each
// IO, drawn as fio draws them (sequential jobs walk their range, end it
// with a shorter IO when the range is not a multiple of the block size, and
// wrap; random jobs pick whole blocks uniformly in the range; randrw picks
// the op by the read share). The timed generator and fast preconditioning
// both draw from it, so a fast phase writes what its timed run would.
//
// The fio options beyond that (PhaseSpec's fio block) follow fio 3.33:
// bsrange sizes, blockalign, the random map, skewed random distributions,
// rw=...:N offset modifiers, strided zones and trimwrite's trim-then-write.
// Everything a pattern needs is sized when it is built; next() allocates
// nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/host_command.h"
#include "host/workload/workload.h"
#include "sim/rng.h"

namespace ssdtwin {

// fio's random map: which blocks of a range this pass has touched, so that
// random IOs cover each block once before any repeats. A summary word per
// 64 words skips full stretches, so finding the next free block stays
// cheap as the pass fills up.
class BlockMap {
 public:
  explicit BlockMap(std::uint64_t blocks = 0);
  std::uint64_t blocks() const { return blocks_; }
  bool full() const { return used_ == blocks_; }
  bool used(std::uint64_t b) const { return (words_[b >> 6] >> (b & 63)) & 1; }
  void set(std::uint64_t b);
  // The first free block at or after `b`, wrapping; blocks() when full.
  std::uint64_t next_free(std::uint64_t b) const;
  void clear();

 private:
  std::uint64_t blocks_ = 0, used_ = 0;
  std::vector<std::uint64_t> words_;  // bit per block
  std::vector<std::uint64_t> full_;   // bit per word: all 64 blocks used
};

// Ranks [0, n) drawn by a skewed distribution (fio's zipf, pareto, normal)
// and spread over the range by a fixed permutation.
class SkewedDraw {
 public:
  SkewedDraw() = default;
  SkewedDraw(const RandomDistribution& d, std::uint64_t n, std::uint64_t seed);
  std::uint64_t next(Rng& rng) const;  // a position in [0, n)
  std::uint64_t rank_to_position(std::uint64_t rank) const;

 private:
  RandomDist kind_ = RandomDist::kUniform;
  std::uint64_t n_ = 0;
  double theta_ = 0, zetan_ = 0, zeta2_ = 0, alpha_ = 0, eta_ = 0;  // zipf
  double pareto_pow_ = 0;
  double stddev_ = 0;                           // normal, in positions
  std::uint64_t mask_ = 0, mul_ = 0, add_ = 0;  // the permutation
};

class IoPattern {
 public:
  struct Io {
    IoOp op;
    std::uint64_t offset;
    std::uint32_t bytes;
  };

  IoPattern(const PhaseSpec& spec, Rng& rng);

  Io next() {
    // The common case, uniform random IOs of one size over the whole range
    // (no zones, runs, map or mix of sizes), without the general path's
    // branches: the same draw (a fast phase spends much of its time here).
    if (plain_fits_ != 0)
      return Io{plain_op_, spec_.offset + rng_.below(plain_fits_) * plain_align_, spec_.bs};
    return next_general();
  }

 private:
  Io next_general();
  std::uint64_t random_offset(std::uint32_t& bytes);
  std::uint64_t sequential_offset(IoOp op, std::uint32_t& bytes);
  std::uint64_t range_base() const { return spec_.offset + zone_start_; }
  std::uint64_t range_len() const;
  void zone_advance(std::uint32_t bytes);

  const PhaseSpec& spec_;
  Rng& rng_;
  std::uint64_t next_seq_[3] = {};  // per op, relative to the range (fio's last_pos)
  // next()'s common case: positions and grid (plain_fits_ 0: not that case).
  std::uint64_t plain_fits_ = 0, plain_align_ = 0;
  IoOp plain_op_ = IoOp::kRead;
  // trimwrite: the trim just issued, whose block the next IO writes.
  bool write_pending_ = false;
  Io last_trim_{IoOp::kTrim, 0, 0};
  // rw=randread:N: IOs left in the current run and where the next goes.
  std::uint32_t run_left_ = 0;
  std::uint64_t run_offset_ = 0, run_next_ = 0;
  // zonemode=strided
  std::uint64_t zone_start_ = 0, zone_bytes_ = 0;
  // Skewed distributions and zones over positions of `align_` bytes.
  std::uint64_t align_ = 0;
  SkewedDraw skew_;
  std::vector<double> zone_cumulative_;
  std::vector<std::uint64_t> zone_first_, zone_positions_;
  BlockMap map_;
};

}  // namespace ssdtwin
