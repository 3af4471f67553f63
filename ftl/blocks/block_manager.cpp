#include "ftl/blocks/block_manager.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/state_archive.h"

namespace ssdtwin {

BlockManager::BlockManager(const Geometry& geo, std::uint32_t reserved_blocks,
                           std::uint32_t static_slc_blocks, std::uint32_t bad_reserve,
                           const std::vector<std::uint32_t>& factory_bad)
    : geo_(geo),
      layout_(geo),
      reserved_(reserved_blocks),
      static_slc_(static_slc_blocks),
      blocks_(geo.die_blocks()),
      history_(geo.die_blocks()),
      pools_(std::size_t{geo.dies()} * 2),
      write_point_(std::size_t{geo.dies()} * streams_.size(), kNoBlock),
      dynamic_slc_(geo.dies(), 0),
      dead_slc_(geo.dies(), 0),
      spares_(geo.dies(), 0),
      unreplaced_die_(geo.dies(), 0) {
  if (static_slc_ + bad_reserve >= geo.blocks_per_plane)
    throw std::invalid_argument("static SLC pool and bad-block reserve too large");
  const std::uint32_t normal = geo.blocks_per_plane - static_slc_;
  const std::uint32_t in_service = normal - bad_reserve;
  for (std::uint32_t die = 0; die < geo.dies(); ++die)
    for (std::uint32_t b = in_service; b < normal; ++b) info(die, b).state = BlockState::kSpare;
  for (const std::uint32_t db : factory_bad) blocks_.at(db).state = BlockState::kBad;
  for (std::uint32_t die = 0; die < geo.dies(); ++die) {
    Pool& n = pool(die, PoolKind::kNormal);
    Pool& s = pool(die, PoolKind::kStaticSlc);
    n.ring.resize(geo.blocks_per_plane);
    s.ring.resize(geo.blocks_per_plane);
    std::uint32_t bad_in_service = 0;
    for (std::uint32_t b = 0; b < geo.blocks_per_plane; ++b) {
      const BlockState st = info(die, b).state;
      if (st == BlockState::kSpare) ++spares_[die];
      if (st == BlockState::kBad) {
        ++bad_total_;
        if (b < in_service) ++bad_in_service;
      }
      if (st != BlockState::kFree) continue;
      Pool& p = b < normal ? n : s;
      p.ring[p.count++] = b;
    }
    free_total_ += n.count;
    for (std::uint32_t i = 0; i < bad_in_service; ++i)
      if (!use_spare(die)) {
        ++unreplaced_;
        ++unreplaced_die_[die];
      }
  }
}

bool BlockManager::use_spare(std::uint32_t die) {
  if (spares_[die] == 0) return false;
  const std::uint32_t normal = geo_.blocks_per_plane - static_slc_;
  for (std::uint32_t b = normal; b-- > 0;) {
    BlockInfo& info_b = info(die, b);
    if (info_b.state != BlockState::kSpare) continue;
    info_b.state = BlockState::kFree;
    --spares_[die];
    Pool& p = pool(die, PoolKind::kNormal);
    p.ring[(p.head + p.count) % p.ring.size()] = b;
    ++p.count;
    ++free_total_;
    if (sb_.enabled()) {
      // A spare index's super-block had no member in service until now.
      const std::size_t i = sb_.at(sb_.group_of(die), b);
      if (sb_.state[i] == SuperBlockTable::State::kIdle) {
        sb_.state[i] = SuperBlockTable::State::kPooled;
        sb_.pools[sb_.group_of(die)].push(b);
      }
    }
    return true;
  }
  return false;
}

void BlockManager::rebuild_pools() {
  if (sb_.enabled())
    throw std::runtime_error(
        "power-loss recovery does not rebuild super-blocks (ftl.rain.span: dies): not modelled");
  free_total_ = bad_total_ = 0;
  std::fill(write_point_.begin(), write_point_.end(), kNoBlock);
  for (std::uint32_t die = 0; die < geo_.dies(); ++die) {
    dynamic_slc_[die] = dead_slc_[die] = spares_[die] = 0;
    for (const PoolKind k : {PoolKind::kNormal, PoolKind::kStaticSlc}) {
      pool(die, k).head = 0;
      pool(die, k).count = 0;
    }
    for (std::uint32_t blk = 0; blk < geo_.blocks_per_plane; ++blk) {
      BlockInfo& b = info(die, blk);
      const PoolKind k = is_static_slc(blk) ? PoolKind::kStaticSlc : PoolKind::kNormal;
      if (b.state == BlockState::kSpare) ++spares_[die];
      if (b.state == BlockState::kBad) ++bad_total_;
      if (b.state == BlockState::kFree) {
        Pool& p = pool(die, k);
        p.ring[p.count++] = blk;
        if (k == PoolKind::kNormal) ++free_total_;
        continue;
      }
      if (b.state != BlockState::kFull) continue;
      b.closed_seq = ++closed_seq_;
      if (b.mode != geo_.native_mode) {
        if (k == PoolKind::kNormal) ++dynamic_slc_[die];
        if (b.valid == 0) ++dead_slc_[die];
      }
    }
  }
}

void BlockManager::close_early(std::uint32_t die, std::uint32_t block) {
  BlockInfo& b = info(die, block);
  if (b.state != BlockState::kOpen) return;
  b.flags |= BlockInfo::kClosedEarly;
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    const Stream st{static_cast<std::uint8_t>(s)};
    if (write_point(die, st) == block) write_point(die, st) = kNoBlock;
  }
}

void BlockManager::retire(std::uint32_t die, std::uint32_t block) {
  BlockInfo& b = info(die, block);
  // An erased block's SLC mode was already counted out at its erase.
  if (b.state != BlockState::kFree && b.mode != geo_.native_mode && !is_static_slc(block))
    --dynamic_slc_[die];
  b.state = BlockState::kBad;
  b.valid = 0;
  ++bad_total_;
  if (sb_.enabled()) check_super_erased(die, block);
  if (is_static_slc(block)) return;  // the static cache just gets smaller
  if (!use_spare(die)) {
    ++unreplaced_;
    ++unreplaced_die_[die];
  }
}

std::uint32_t BlockManager::take_free(std::uint32_t die, PoolKind k) {
  for (;;) {
    Pool& p = pool(die, k);
    if (p.count == 0) throw std::logic_error("no free block on die");
    const std::uint32_t b = p.ring[p.head];
    p.head = (p.head + 1) % static_cast<std::uint32_t>(p.ring.size());
    --p.count;
    if (k == PoolKind::kNormal) --free_total_;
    if (!(info(die, b).flags & BlockInfo::kFailed)) return b;
    retire(die, b);  // a block that failed while erased leaves service here
  }
}

bool BlockManager::has_open_room(std::uint32_t die, Stream stream,
                                 std::uint32_t pages_per_program) const {
  const std::uint32_t wp = write_point(die, stream);
  if (wp == kNoBlock) return false;
  const BlockInfo& b = info(die, wp);
  return b.next_page + pages_per_program <= pages_in(b);
}

bool BlockManager::can_allocate(std::uint32_t die, Stream stream, std::uint32_t pages_per_program,
                                PoolKind k) const {
  if (has_open_room(die, stream, pages_per_program)) return true;
  const std::uint32_t floor =
      (k == PoolKind::kNormal && !streams_.is_relocation(stream)) ? reserved_ : 0;
  if (sb_.enabled()) return super_can_allocate(die, stream, floor);
  return pool(die, k).count > floor;
}

std::optional<ProgramUnit> BlockManager::allocate_unit(std::uint32_t die, Stream stream,
                                                       std::uint32_t pages_per_program,
                                                       CellMode mode, PoolKind k) {
  if (!can_allocate(die, stream, pages_per_program, k)) return std::nullopt;
  std::uint32_t& wp = write_point(die, stream);
  if (!has_open_room(die, stream, pages_per_program)) {
    wp = sb_.enabled() ? next_super_block(die, stream) : take_free(die, k);
    if (wp == kNoBlock) return std::nullopt;
    BlockInfo& fresh = info(die, wp);
    fresh.state = BlockState::kOpen;
    fresh.mode = mode;
    fresh.stream = stream;
    fresh.next_page = 0;
    fresh.programmed = 0;
    fresh.valid = 0;
    if (k == PoolKind::kNormal && mode != geo_.native_mode) ++dynamic_slc_[die];
  }
  BlockInfo& b = info(die, wp);
  ProgramUnit u;
  u.die = die;
  u.block = wp;
  u.page = b.next_page;
  u.pages = pages_per_program;
  u.first = layout_.first_slot(layout_.die_block(die, wp), u.page);
  u.slots = pages_per_program * layout_.slots_per_page();
  b.next_page = static_cast<std::uint16_t>(b.next_page + pages_per_program);
  if (b.next_page >= pages_in(b)) wp = kNoBlock;  // fully allocated: next unit opens a new block
  return u;
}

void BlockManager::on_programmed(std::uint32_t die, std::uint32_t block, std::uint32_t pages) {
  BlockInfo& b = info(die, block);
  b.programmed = static_cast<std::uint16_t>(b.programmed + pages);
  const bool early = (b.flags & BlockInfo::kClosedEarly) && b.programmed >= b.next_page;
  if (b.state == BlockState::kOpen && (b.programmed >= pages_in(b) || early)) {
    b.state = BlockState::kFull;
    b.closed_seq = ++closed_seq_;
    if (b.valid == 0) note_emptied(die, b);  // overwritten before its last program finished
  }
}

void BlockManager::set_victim(std::uint32_t die, std::uint32_t block) {
  BlockInfo& b = info(die, block);
  if (b.state == BlockState::kFull && b.mode != geo_.native_mode && b.valid == 0) --dead_slc_[die];
  b.state = BlockState::kVictim;
}

void BlockManager::on_erased(std::uint32_t die, std::uint32_t block) {
  BlockInfo& b = info(die, block);
  const PoolKind k = is_static_slc(block) ? PoolKind::kStaticSlc : PoolKind::kNormal;
  if (b.mode != geo_.native_mode) {
    ++b.slc_erases;
    if (k == PoolKind::kNormal) --dynamic_slc_[die];
  }
  b.state = BlockState::kFree;
  b.valid = 0;
  b.next_page = 0;
  b.programmed = 0;
  history(die, block).reads = 0;
  b.flags = 0;
  ++b.erase_count;
  Pool& p = pool(die, k);
  p.ring[(p.head + p.count) % p.ring.size()] = block;
  ++p.count;
  if (k == PoolKind::kNormal) ++free_total_;
  if (sb_.enabled()) check_super_erased(die, block);
}

void BlockManager::set_streams(const StreamTable& t) {
  streams_ = t;
  write_point_.assign(std::size_t{geo_.dies()} * streams_.size(), kNoBlock);
}

void BlockManager::enable_super_blocks(std::uint32_t width) {
  using State = SuperBlockTable::State;
  const std::uint32_t groups = geo_.dies() / width;
  sb_.width = width;
  sb_.blocks = geo_.blocks_per_plane;
  sb_.state.assign(std::size_t{groups} * sb_.blocks, State::kIdle);
  sb_.members.assign(sb_.state.size(), 0);
  sb_.pools.assign(groups, SuperBlockTable::Pool{});
  sb_.sequence.assign(std::size_t{groups} * streams_.size(), {});
  sb_.base.assign(sb_.sequence.size(), 0);
  sb_.cursor.assign(std::size_t{geo_.dies()} * streams_.size(), 0);
  offline_.assign(geo_.dies(), 0);
  for (std::uint32_t g = 0; g < groups; ++g) {
    SuperBlockTable::Pool& p = sb_.pools[g];
    p.ring.resize(sb_.blocks);
    for (std::uint32_t b = 0; b < sb_.blocks; ++b)
      for (std::uint32_t k = 0; k < width; ++k)
        if (info(g * width + k, b).state == BlockState::kFree) {
          sb_.state[sb_.at(g, b)] = State::kPooled;
          p.push(b);
          break;
        }
  }
}

std::uint64_t BlockManager::live_mask(std::uint32_t group, std::uint32_t block) const {
  std::uint64_t m = 0;
  for (std::uint32_t k = 0; k < sb_.width; ++k) {
    const std::uint32_t d = group * sb_.width + k;
    if (!offline_[d] && info(d, block).state == BlockState::kFree) m |= std::uint64_t{1} << k;
  }
  return m;
}

std::uint32_t BlockManager::next_super_block(std::uint32_t die, Stream stream) {
  const std::uint32_t g = sb_.group_of(die);
  const std::size_t gs = std::size_t{g} * streams_.size() + stream.index();
  std::deque<std::uint32_t>& seq = sb_.sequence[gs];
  std::uint64_t& cur = sb_.cursor[std::size_t{die} * streams_.size() + stream.index()];
  for (;;) {
    if (cur < sb_.base[gs] + seq.size()) {
      const std::uint32_t b = seq[cur - sb_.base[gs]];
      ++cur;
      if (!sb_.member(die, b) || info(die, b).state != BlockState::kFree) continue;
      Pool& p = pool(die, PoolKind::kNormal);
      --p.count;
      --free_total_;
      trim_sequence(g, stream);
      if (info(die, b).flags & BlockInfo::kFailed) {
        retire(die, b);  // failed while erased: the super-block goes on without it
        continue;
      }
      return b;
    }
    SuperBlockTable::Pool& p = sb_.pools[g];
    if (p.count == 0) return kNoBlock;
    const std::uint32_t b = p.pop();
    const std::size_t i = sb_.at(g, b);
    sb_.members[i] = live_mask(g, b);
    sb_.state[i] = sb_.members[i] ? SuperBlockTable::State::kInUse : SuperBlockTable::State::kIdle;
    if (sb_.members[i]) seq.push_back(b);
  }
}

bool BlockManager::super_can_allocate(std::uint32_t die, Stream stream, std::uint32_t floor) const {
  const std::uint32_t g = sb_.group_of(die);
  const std::size_t gs = std::size_t{g} * streams_.size() + stream.index();
  const std::deque<std::uint32_t>& seq = sb_.sequence[gs];
  const std::uint64_t cur = sb_.cursor[std::size_t{die} * streams_.size() + stream.index()];
  for (std::uint64_t pos = cur; pos < sb_.base[gs] + seq.size(); ++pos) {
    const std::uint32_t b = seq[pos - sb_.base[gs]];
    if (sb_.member(die, b) && info(die, b).state == BlockState::kFree) return true;
  }
  return sb_.pools[g].count > floor;
}

void BlockManager::trim_sequence(std::uint32_t group, Stream stream) {
  const std::size_t gs = std::size_t{group} * streams_.size() + stream.index();
  std::uint64_t least = UINT64_MAX;
  for (std::uint32_t k = 0; k < sb_.width; ++k) {
    const std::uint32_t d = group * sb_.width + k;
    if (!offline_[d])
      least = std::min(least, sb_.cursor[std::size_t{d} * streams_.size() + stream.index()]);
  }
  std::deque<std::uint32_t>& seq = sb_.sequence[gs];
  while (!seq.empty() && sb_.base[gs] < least) {
    seq.pop_front();
    ++sb_.base[gs];
  }
}

void BlockManager::set_super_victim(std::uint32_t group, std::uint32_t block) {
  sb_.state[sb_.at(group, block)] = SuperBlockTable::State::kVictim;
}

void BlockManager::check_super_erased(std::uint32_t die, std::uint32_t block) {
  const std::uint32_t g = sb_.group_of(die);
  const std::size_t i = sb_.at(g, block);
  if (sb_.state[i] != SuperBlockTable::State::kVictim) return;
  for (std::uint32_t k = 0; k < sb_.width; ++k) {
    const std::uint32_t d = g * sb_.width + k;
    if (!((sb_.members[i] >> k) & 1) || offline_[d]) continue;
    const BlockState st = info(d, block).state;
    if (st != BlockState::kFree && st != BlockState::kBad && st != BlockState::kSpare) return;
  }
  sb_.state[i] = SuperBlockTable::State::kPooled;
  sb_.pools[g].push(block);
}

bool BlockManager::super_candidate(std::uint32_t die, std::uint32_t block, std::uint64_t& valid,
                                   std::uint64_t& capacity, std::uint32_t& closed_seq) const {
  const std::uint32_t g = sb_.group_of(die);
  const std::size_t i = sb_.at(g, block);
  if (sb_.state[i] != SuperBlockTable::State::kInUse || !sb_.member(die, block)) return false;
  valid = capacity = 0;
  closed_seq = 0;
  for (std::uint32_t k = 0; k < sb_.width; ++k) {
    const std::uint32_t d = g * sb_.width + k;
    // A failed member's data is rebuilt elsewhere, not collected: its
    // members wait for that before they erase (RelocationEngine::may_erase).
    if (!((sb_.members[i] >> k) & 1) || offline_[d]) continue;
    const BlockInfo& b = info(d, block);
    if (b.state == BlockState::kBad || b.state == BlockState::kSpare) continue;
    if (!gc_candidate(b)) return false;
    valid += b.valid;
    capacity += capacity_slots(b);
    closed_seq = std::max(closed_seq, b.closed_seq);
  }
  return capacity > 0;
}

void BlockManager::set_die_offline(std::uint32_t die) {
  if (!sb_.enabled()) return;
  offline_[die] = 1;
  const std::uint32_t g = sb_.group_of(die);
  for (std::uint32_t b = 0; b < sb_.blocks; ++b) check_super_erased(die, b);
  for (std::size_t s = 0; s < streams_.size(); ++s)
    trim_sequence(g, Stream{static_cast<std::uint8_t>(s)});
}

BlockManager::Census BlockManager::census() const {
  // One pass over every block of the drive for both figures (each phase's
  // report reads them). Wear counts blocks in service only: spares and bad
  // blocks are never cycled. Sums are integers (exact, as the double sums
  // were below 2^53), so that the loop is not one chain of dependent
  // floating-point adds. Valid shares count the full native-mode blocks,
  // as a count of blocks per valid-page count read off for the quantiles.
  const std::uint64_t capacity =
      std::uint64_t{geo_.pages_in_mode(geo_.native_mode)} * layout_.slots_per_page();
  std::vector<std::uint64_t> blocks_with(capacity + 1, 0);
  std::uint32_t lo = UINT32_MAX, hi = 0;
  std::uint64_t erases = 0, slc = 0, in_service = 0, full = 0, valid_sum = 0;
  for (const auto& b : blocks_) {
    if (b.state == BlockState::kSpare || b.state == BlockState::kBad) continue;
    lo = std::min(lo, b.erase_count);
    hi = std::max(hi, b.erase_count);
    erases += b.erase_count;
    slc += b.slc_erases;
    ++in_service;
    if (b.state != BlockState::kFull || b.mode != geo_.native_mode) continue;
    ++blocks_with[std::min<std::uint64_t>(b.valid, capacity)];
    valid_sum += b.valid;
    ++full;
  }
  Census c;
  if (in_service > 0) {
    c.wear.min = lo;
    c.wear.max = hi;
    c.wear.slc_erases = slc;
    c.wear.mean = static_cast<double>(erases) / static_cast<double>(in_service);
  }
  if (full == 0) return c;
  ValidShares& v = c.valid;
  const auto cap = static_cast<double>(capacity);
  v.mean = static_cast<double>(valid_sum) / static_cast<double>(full) / cap;
  double* const at[] = {&v.p10, &v.p25, &v.p50, &v.p75, &v.p90};
  const double q[] = {0.10, 0.25, 0.50, 0.75, 0.90};
  std::uint64_t seen = 0, valid = 0;
  for (int k = 0; k < 5; ++k) {
    // the smallest count with at least q of the blocks at or below it
    const auto rank = static_cast<std::uint64_t>(std::ceil(q[k] * static_cast<double>(full)));
    while (seen + blocks_with[valid] < std::max<std::uint64_t>(rank, 1))
      seen += blocks_with[valid++];
    *at[k] = static_cast<double>(valid) / cap;
  }
  return c;
}

// What a drive-state snapshot holds of it (sim/state_archive.h): a member
// left out here is state a run from the snapshot would not have.
void BlockManager::archive(StateArchive& ar) {
  ar.vec(blocks_, true);
  ar.vec(history_, true);
  for (Pool& p : pools_) {
    ar.vec(p.ring, true);
    ar.pods(p.head, p.count);
  }
  ar.vec(write_point_, true);
  ar.vec(dynamic_slc_, true);
  ar.vec(dead_slc_, true);
  ar.vec(spares_, true);
  ar.vec(unreplaced_die_, true);
  ar.pods(closed_seq_, free_total_, bad_total_, unreplaced_);
  if (!sb_.enabled()) return;  // block-spanning stripes: the format is unchanged
  ar.vec(sb_.state, true);
  ar.vec(sb_.members, true);
  for (SuperBlockTable::Pool& p : sb_.pools) {
    ar.vec(p.ring, true);
    ar.pods(p.head, p.count);
  }
  ar.deques(sb_.sequence);
  ar.vec(sb_.base, true);
  ar.vec(sb_.cursor, true);
  ar.vec(offline_, true);
}

}  // namespace ssdtwin
