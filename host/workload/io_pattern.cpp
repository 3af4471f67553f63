#include "host/workload/io_pattern.h"

#include <algorithm>
#include <cmath>

namespace ssdtwin {

BlockMap::BlockMap(std::uint64_t blocks)
    : blocks_(blocks), words_((blocks + 63) / 64, 0), full_((words_.size() + 63) / 64, 0) {}

void BlockMap::set(std::uint64_t b) {
  std::uint64_t& w = words_[b >> 6];
  const std::uint64_t bit = std::uint64_t{1} << (b & 63);
  if (w & bit) return;
  w |= bit;
  ++used_;
  // The last word may be short: it is full when its existing blocks are.
  const std::uint64_t wi = b >> 6;
  const std::uint64_t in_word = std::min<std::uint64_t>(64, blocks_ - wi * 64);
  const std::uint64_t all = in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
  if (w == all) full_[wi >> 6] |= std::uint64_t{1} << (wi & 63);
}

std::uint64_t BlockMap::next_free(std::uint64_t b) const {
  if (full()) return blocks_;
  const std::uint64_t words = words_.size();
  std::uint64_t wi = b >> 6;
  std::uint64_t free_bits = ~words_[wi] & (~std::uint64_t{0} << (b & 63));  // b's word from b on
  for (std::uint64_t visited = 0; visited <= words + 1;) {
    if (free_bits) {
      const std::uint64_t found = wi * 64 + static_cast<std::uint64_t>(__builtin_ctzll(free_bits));
      if (found < blocks_) return found;  // bits past the last block read as free
    }
    wi = wi + 1 == words ? 0 : wi + 1;
    ++visited;
    // Full words are skipped by the summary, a whole summary word at a time
    // where all 64 of its words are full.
    while (visited <= words && ((full_[wi >> 6] >> (wi & 63)) & 1)) {
      const bool block_of_64 = (wi & 63) == 0 && full_[wi >> 6] == ~std::uint64_t{0};
      const std::uint64_t step = block_of_64 ? 64 : 1;
      wi = wi + step >= words ? 0 : wi + step;
      visited += step;
    }
    free_bits = ~words_[wi];
  }
  return blocks_;
}

void BlockMap::clear() {
  std::fill(words_.begin(), words_.end(), 0);
  std::fill(full_.begin(), full_.end(), 0);
  used_ = 0;
}

SkewedDraw::SkewedDraw(const RandomDistribution& d, std::uint64_t n, std::uint64_t seed)
    : kind_(d.kind), n_(n) {
  switch (kind_) {
    case RandomDist::kZipf: {
      // Gray et al., "Quickly generating billion-record synthetic
      // databases" (SIGMOD 1994), as fio's lib/zipf.c; zeta(n) summed over
      // at most 10 M terms, fio's own cap (ZIPF_MAX_GEN).
      theta_ = d.param;
      const std::uint64_t terms = std::min<std::uint64_t>(n, 10'000'000);
      for (std::uint64_t i = 0; i < terms; ++i)
        zetan_ += std::pow(1.0 / static_cast<double>(i + 1), theta_);
      zeta2_ = 1.0 + std::pow(0.5, theta_);
      alpha_ = 1.0 / (1.0 - theta_);
      eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta_)) / (1.0 - zeta2_ / zetan_);
      break;
    }
    case RandomDist::kPareto:
      // fio's pareto:h: rank (n-1) u^(log h / log(1-h)), so that a share
      // 1-h of the IOs goes to the lowest share h of the ranks.
      pareto_pow_ = std::log(d.param) / std::log(1.0 - d.param);
      break;
    case RandomDist::kNormal:
      stddev_ = d.param / 100.0 * static_cast<double>(n);
      break;
    default:
      break;
  }
  // An affine map on the next power of two, walked until it lands below n:
  // a permutation of [0, n) in about two steps.
  std::uint64_t m = 1;
  while (m < n) m <<= 1;
  mask_ = m - 1;
  Rng r(seed ^ 0x5EED5EED5EED5EEDull);
  mul_ = (r.next() | 1) & mask_;
  if (mul_ == 0) mul_ = 1;
  add_ = r.next() & mask_;
}

std::uint64_t SkewedDraw::rank_to_position(std::uint64_t rank) const {
  std::uint64_t x = rank;
  do x = (x * mul_ + add_) & mask_;
  while (x >= n_);
  return x;
}

std::uint64_t SkewedDraw::next(Rng& rng) const {
  const double n = static_cast<double>(n_);
  std::uint64_t rank = 0;
  switch (kind_) {
    case RandomDist::kZipf: {
      if (n_ < 3) {  // the method needs ranks past the first two
        rank = rng.below(n_);
        break;
      }
      const double u = rng.uniform();
      const double uz = u * zetan_;
      if (uz < 1.0)
        rank = 0;
      else if (uz < 1.0 + std::pow(0.5, theta_))
        rank = 1;
      else
        rank = static_cast<std::uint64_t>(n * std::pow(eta_ * u - eta_ + 1.0, alpha_));
      break;
    }
    case RandomDist::kPareto:
      rank = static_cast<std::uint64_t>((n - 1) * std::pow(rng.uniform(), pareto_pow_));
      break;
    case RandomDist::kNormal: {
      // Centred on the middle rank; a draw off the range is drawn again
      // (bounded: after 16 tries the middle), so the tails are cut, not piled up.
      double v = n / 2;
      for (int tries = 0; tries < 16; ++tries) {
        double z = -6.0;  // Irwin-Hall: the sum of 12 uniforms less 6 (fio sums 12 too)
        for (int i = 0; i < 12; ++i) z += rng.uniform();
        const double x = n / 2 + stddev_ * z;
        if (x >= 0 && x < n) {
          v = x;
          break;
        }
      }
      rank = static_cast<std::uint64_t>(v);
      break;
    }
    default:
      rank = rng.below(n_);
      break;
  }
  return rank_to_position(std::min(rank, n_ - 1));
}

namespace {

std::uint32_t smallest_size(const PhaseSpec& s) {
  std::uint32_t m = s.bs_min ? s.bs_min : s.bs;
  for (const auto& b : s.bssplit) m = std::min(m, b.bs);
  return m;
}

}  // namespace

IoPattern::IoPattern(const PhaseSpec& spec, Rng& rng) : spec_(spec), rng_(rng) {
  align_ = spec.block_align ? spec.block_align : smallest_size(spec);
  // At least one position: a grid coarser than the range still has its start.
  const std::uint64_t positions = std::max<std::uint64_t>(1, spec.span / align_);
  if (spec.distribution.kind == RandomDist::kZoned) {
    double cum = 0;
    std::uint64_t first = 0;
    for (const AccessZone& z : spec.distribution.zones) {
      std::uint64_t bytes =
          z.range_share > 0
              ? static_cast<std::uint64_t>(z.range_share * static_cast<double>(spec.span))
              : z.bytes;
      std::uint64_t n = std::max<std::uint64_t>(1, bytes / align_);
      if (first >= positions) first = positions - 1;
      n = std::min(n, positions - first);
      cum += z.share;
      zone_cumulative_.push_back(cum);
      zone_first_.push_back(first);
      zone_positions_.push_back(n);
      first += n;
    }
    if (!zone_cumulative_.empty()) zone_cumulative_.back() = 1.0;
  } else if (spec.distribution.kind != RandomDist::kUniform) {
    skew_ = SkewedDraw(spec.distribution, positions, spec.seed ^ spec.offset);
  }
  if (spec.random_map && spec.zone_size == 0) map_ = BlockMap(positions);
  // As random_offset's uniform draw for an IO of spec.bs at zone start 0.
  if ((spec.rw == RwKind::kRandRead || spec.rw == RwKind::kRandWrite) && spec.bssplit.empty() &&
      spec.bs_min == 0 && spec.zone_size == 0 && spec.rand_run <= 1 && !spec.random_map &&
      spec.distribution.kind == RandomDist::kUniform) {
    plain_op_ = spec.rw == RwKind::kRandRead ? IoOp::kRead : IoOp::kWrite;
    plain_align_ = spec.block_align ? spec.block_align : spec.bs;
    plain_fits_ = spec.span < spec.bs ? 1 : (spec.span - spec.bs) / plain_align_ + 1;
  }
}

std::uint64_t IoPattern::range_len() const {
  if (spec_.zone_size == 0) return spec_.span;
  return std::min(spec_.zone_range, spec_.span - zone_start_);
}

void IoPattern::zone_advance(std::uint32_t bytes) {
  if (spec_.zone_size == 0) return;
  // fio switches zones once zonesize bytes have moved in this one, to
  // zonerange + zoneskip further on, wrapping at the end of the range.
  zone_bytes_ += bytes;
  if (zone_bytes_ < spec_.zone_size) return;
  zone_bytes_ = 0;
  zone_start_ += spec_.zone_range + spec_.zone_skip;
  if (zone_start_ >= spec_.span) zone_start_ = 0;
  for (auto& p : next_seq_) p = 0;
}

std::uint64_t IoPattern::sequential_offset(IoOp op, std::uint32_t& bytes) {
  std::uint64_t& pos = next_seq_[static_cast<int>(op)];
  const std::uint64_t len = range_len();
  if (pos >= len) pos = 0;
  const std::uint64_t offset = range_base() + pos;
  bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes, len - pos));
  pos += bytes + spec_.seq_skip;
  return offset;
}

std::uint64_t IoPattern::random_offset(std::uint32_t& bytes) {
  if (run_left_ > 0) {
    // rw=randread:N: the rest of the run goes on from (or repeats) its offset.
    --run_left_;
    if (spec_.run_identical) return run_offset_;
    std::uint64_t off = run_next_;
    const std::uint64_t end = range_base() + range_len();
    if (off + bytes > end) off = range_base();
    run_next_ = off + bytes;
    return off;
  }
  const std::uint64_t base = range_base();
  const std::uint64_t len = range_len();
  std::uint64_t offset = 0;
  if (spec_.zone_size != 0 ||
      (spec_.distribution.kind == RandomDist::kUniform && !spec_.random_map)) {
    // Uniform over the positions where the IO fits: aligned to blockalign,
    // or to the IO's own size (a range of whole blocks of it).
    const std::uint64_t align = spec_.block_align ? spec_.block_align : bytes;
    const std::uint64_t fits = len < bytes ? 1 : (len - bytes) / align + 1;
    offset = base + rng_.below(fits) * align;
  } else {
    const std::uint64_t positions = std::max<std::uint64_t>(1, len / align_);
    std::uint64_t pos = 0;
    if (spec_.distribution.kind == RandomDist::kZoned) {
      const double u = rng_.uniform();
      std::size_t z = 0;
      while (z + 1 < zone_cumulative_.size() && u >= zone_cumulative_[z]) ++z;
      pos = zone_first_[z] + rng_.below(zone_positions_[z]);
    } else if (spec_.distribution.kind != RandomDist::kUniform) {
      pos = skew_.next(rng_);
    } else {
      pos = rng_.below(positions);
    }
    if (spec_.random_map && map_.blocks() != 0) {
      // fio: a block this pass already did gives way to the next free one;
      // a full map starts the next pass. The IO stops at the first block
      // already done (fio shortens it so).
      if (map_.full()) map_.clear();
      pos = map_.next_free(pos);
      const std::uint64_t want = std::max<std::uint64_t>(1, bytes / align_);
      std::uint64_t got = 0;
      while (got < want && pos + got < positions && !map_.used(pos + got)) map_.set(pos + got++);
      if (got * align_ < bytes) bytes = static_cast<std::uint32_t>(got * align_);
    }
    offset = base + pos * align_;
    if (offset + bytes > base + len) bytes = static_cast<std::uint32_t>(base + len - offset);
  }
  if (spec_.rand_run > 1) {
    run_left_ = spec_.rand_run - 1;
    run_offset_ = offset;
    run_next_ = offset + bytes;
  }
  return offset;
}

IoPattern::Io IoPattern::next_general() {
  if (write_pending_) {
    // trimwrite: the block just trimmed is written next.
    write_pending_ = false;
    Io w = last_trim_;
    w.op = IoOp::kWrite;
    return w;
  }
  Io io{IoOp::kRead, 0, spec_.bs};
  if (!spec_.bssplit.empty()) {
    // fio's bssplit: the size by weight.
    const double u = rng_.uniform();
    std::size_t k = 0;
    while (k + 1 < spec_.bssplit.size() && u >= spec_.bssplit[k].cumulative) ++k;
    io.bytes = spec_.bssplit[k].bs;
  } else if (spec_.bs_min != 0) {
    // fio's bsrange: uniform in [min, max], then down to a multiple of the
    // minimum where that is a power of two (fio's alignment) and to whole
    // 4 KiB pages (the drive's logical page) otherwise.
    std::uint32_t b =
        spec_.bs_min + static_cast<std::uint32_t>(rng_.below(spec_.bs - spec_.bs_min + 1));
    const std::uint32_t unit =
        (spec_.bs_min & (spec_.bs_min - 1)) == 0 ? spec_.bs_min : kSectorBytes;
    io.bytes = b - b % unit;
  }
  bool random = true;
  switch (spec_.rw) {
    case RwKind::kRead:
      io.op = IoOp::kRead;
      random = false;
      break;
    case RwKind::kWrite:
      io.op = IoOp::kWrite;
      random = false;
      break;
    case RwKind::kTrim:
    case RwKind::kTrimWrite:
      io.op = IoOp::kTrim;
      random = false;
      break;
    case RwKind::kRandRead:
      io.op = IoOp::kRead;
      break;
    case RwKind::kRandWrite:
      io.op = IoOp::kWrite;
      break;
    case RwKind::kRandTrim:
      io.op = IoOp::kTrim;
      break;
    case RwKind::kTrace:      // replays draw from their trace, not from here
    case RwKind::kZoneReset:  // zoned phases draw from their zone writer
    case RwKind::kZoneLog:
      break;
    case RwKind::kRandRw:
      io.op = rng_.uniform() < spec_.read_share ? IoOp::kRead : IoOp::kWrite;
      break;
    case RwKind::kReadWrite:
      io.op = rng_.uniform() < spec_.read_share ? IoOp::kRead : IoOp::kWrite;
      random = false;
      break;
  }
  io.offset = random ? random_offset(io.bytes) : sequential_offset(io.op, io.bytes);
  zone_advance(io.bytes);
  if (spec_.rw == RwKind::kTrimWrite) {
    write_pending_ = true;
    last_trim_ = io;
  }
  return io;
}

}  // namespace ssdtwin
