// Per-die pools of erased blocks, per-block state, and the write points
// (open blocks) that host writes, SLC-cache writes and relocations program
// into.
//
// The unit of allocation and erase is the die-block (the same block index on
// every plane of a die, see nand/geometry.h). Each die has two pools: the
// normal pool, whose blocks run in the native mode or (dynamic SLC cache) in
// SLC mode, and the static SLC pool, blocks set aside to run in SLC mode
// only (the last `static_slc_blocks` indices of each die). Host data,
// host data cached in SLC, and relocated data go to separate open blocks
// (streams), so cold relocated data does not mix with hot host data; data
// relocated twice can have a stream of its own (ftl.gc.separate_cold).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ftl/address.h"
#include "ftl/blocks/super_blocks.h"
#include "ftl/streams.h"
#include "nand/geometry.h"
#include "sim/prefetch.h"

namespace ssdtwin {

// kSpare: held in the bad-block reserve, put in service when a block goes
// bad; kBad: factory-marked or retired, never used again.
enum class BlockState : std::uint8_t { kFree, kOpen, kFull, kVictim, kSpare, kBad };
enum class PoolKind : std::uint8_t { kNormal = 0, kStaticSlc = 1 };
constexpr std::uint32_t kNoBlock = 0xFFFFFFFFu;

struct BlockInfo {
  std::uint32_t valid = 0;        // valid 4 KiB slots
  std::uint32_t erase_count = 0;  // P/E cycles, all modes
  std::uint32_t slc_erases = 0;   // of which in SLC mode
  std::uint32_t closed_seq = 0;   // order in which blocks were filled (FIFO choices)
  std::uint16_t next_page = 0;    // next die-page to allocate
  std::uint16_t programmed = 0;   // die-pages whose program completed (in order)
  BlockState state = BlockState::kFree;
  CellMode mode = CellMode::kTlc;
  Stream stream = Stream::kHost;  // write point it was opened for
  // kRetire: a program failed here; once GC has moved its data, the block
  // leaves service instead of returning to its pool. kClosedEarly: no more
  // units are allocated in it; it is full when the allocated ones finish.
  // kFailed: the block stopped working (a workload fault): its reads fail.
  static constexpr std::uint8_t kRetire = 1, kClosedEarly = 2, kFailed = 4;
  std::uint8_t flags = 0;
};

// What the error model and recovery need of a block, kept apart from
// BlockInfo so that the victim scans over BlockInfo stay in cache.
struct BlockHistory {
  std::uint32_t reads = 0;          // reads since the last erase (read disturb)
  std::uint32_t last_program = 0;   // FtlCore::program_seq at its last program
  std::uint64_t programmed_at = 0;  // time of its last program (data retention)
};

// The slots one program operation writes: `pages` consecutive die-pages of
// one die-block.
struct ProgramUnit {
  std::uint32_t die = 0;
  std::uint32_t block = 0;
  std::uint32_t page = 0;
  std::uint32_t pages = 0;
  Ppa first = 0;
  std::uint32_t slots = 0;
};

class BlockManager {
 public:
  // `bad_reserve`: blocks per die held back to replace bad ones (the last
  // of the normal range); `factory_bad`: die-block indices marked bad at
  // manufacture, each replaced from its die's reserve while it lasts.
  BlockManager(const Geometry& geo, std::uint32_t reserved_blocks,
               std::uint32_t static_slc_blocks = 0, std::uint32_t bad_reserve = 0,
               const std::vector<std::uint32_t>& factory_bad = {});

  // Super-block allocation (ftl.rain.span: dies; ftl/blocks/super_blocks.h) over
  // groups of `width` consecutive dies, from here on. Then a die's free
  // blocks (free_blocks) are its erased blocks in service: those of the
  // group's pooled super-blocks, of super-blocks its group opened that the
  // die has not reached yet, and those it erased whose super-block waits
  // for another member's erase (so that a die ahead does not collect more
  // than it needs). The host reserve applies to the group's pool.
  void enable_super_blocks(std::uint32_t width);
  // The write streams (ftl/streams.h): placement handle 0's four unless
  // set, before any block is allocated.
  const StreamTable& streams() const { return streams_; }
  void set_streams(const StreamTable& t);
  const SuperBlockTable& super_blocks() const { return sb_; }
  // GC chose super-block `block` of `group` (RelocationEngine): no member
  // collects it twice, and it returns to the pool once erased on every
  // member in service.
  void set_super_victim(std::uint32_t group, std::uint32_t block);
  // True when super-block `block` of `die`'s group is a GC candidate with
  // `die` a member: chosen by no one yet, and full in native mode on every
  // member in service. `valid`, `capacity`: their sums; `closed_seq`: the
  // latest member's (when the super-block became full).
  bool super_candidate(std::uint32_t die, std::uint32_t block, std::uint64_t& valid,
                       std::uint64_t& capacity, std::uint32_t& closed_seq) const;
  // `die` failed: it leaves every super-block still to be erased.
  void set_die_offline(std::uint32_t die);

  // Erased blocks of the normal pool (what GC keeps up).
  std::uint32_t free_blocks(std::uint32_t die) const { return pool(die, PoolKind::kNormal).count; }
  std::uint32_t free_blocks(std::uint32_t die, PoolKind k) const { return pool(die, k).count; }
  // Erased blocks of the normal pools of all dies.
  std::uint64_t free_blocks_total() const { return free_total_; }
  std::uint32_t reserved_blocks() const { return reserved_; }
  std::uint32_t static_slc_blocks() const { return static_slc_; }
  // Normal-pool blocks of `die` holding SLC-mode data (the dynamic cache).
  std::uint32_t dynamic_slc_blocks(std::uint32_t die) const { return dynamic_slc_[die]; }
  // Full SLC-mode blocks of `die` with no valid data (reclaimable by an erase).
  std::uint32_t dead_slc_blocks(std::uint32_t die) const { return dead_slc_[die]; }
  // Block `b` of `die` lost its last valid page (FtlCore::invalidate).
  void note_emptied(std::uint32_t die, const BlockInfo& b) {
    if (b.state == BlockState::kFull && b.mode != geo_.native_mode) ++dead_slc_[die];
  }
  bool is_static_slc(std::uint32_t block) const {
    return block >= geo_.blocks_per_plane - static_slc_;
  }

  // Next program unit of the stream's write point on `die`, opening a new
  // block from `pool` in `mode` when the current one is fully allocated.
  // Host streams may not take the last `reserved_blocks` free blocks of the
  // normal pool (they are kept for GC).
  std::optional<ProgramUnit> allocate_unit(std::uint32_t die, Stream stream,
                                           std::uint32_t pages_per_program, CellMode mode,
                                           PoolKind pool = PoolKind::kNormal);
  // True when allocate_unit would succeed.
  bool can_allocate(std::uint32_t die, Stream stream, std::uint32_t pages_per_program,
                    PoolKind pool = PoolKind::kNormal) const;
  // True when the stream's open block has room for another unit.
  bool has_open_room(std::uint32_t die, Stream stream, std::uint32_t pages_per_program) const;

  // Program completion for die-pages [page, page+pages); completions on a
  // block arrive in order because a die runs its programs in order.
  void on_programmed(std::uint32_t die, std::uint32_t block, std::uint32_t pages);
  void set_victim(std::uint32_t die, std::uint32_t block);
  // After erase: back to its pool.
  void on_erased(std::uint32_t die, std::uint32_t block);
  // Stops allocating in `block` (a program there failed): the streams
  // writing into it move on to new blocks.
  void close_early(std::uint32_t die, std::uint32_t block);
  // A block that failed (its data already moved off) leaves service for
  // good; a spare of its die takes its place if one is left.
  void retire(std::uint32_t die, std::uint32_t block);
  std::uint32_t spare_blocks(std::uint32_t die) const { return spares_[die]; }
  // After the blocks' states were set from flash (power-loss recovery):
  // rebuilds the pools and counters; blocks holding data are closed.
  void rebuild_pools();
  std::uint64_t bad_blocks() const { return bad_total_; }
  // Bad blocks with no spare left to replace them: the drive's usable
  // capacity shrank (real firmware goes read-only when this reaches its
  // over-provisioning).
  std::uint64_t unreplaced_bad_blocks() const { return unreplaced_; }
  std::uint32_t unreplaced_bad_blocks(std::uint32_t die) const { return unreplaced_die_[die]; }

  BlockInfo& info(std::uint32_t die, std::uint32_t block) {
    return blocks_[layout_.die_block(die, block)];
  }
  const BlockInfo& info(std::uint32_t die, std::uint32_t block) const {
    return blocks_[layout_.die_block(die, block)];
  }
  BlockHistory& history(std::uint32_t die, std::uint32_t block) {
    return history_[layout_.die_block(die, block)];
  }
  const BlockHistory& history(std::uint32_t die, std::uint32_t block) const {
    return history_[layout_.die_block(die, block)];
  }
  BlockInfo& info_of(Ppa p) { return blocks_[layout_.die_block_of(p)]; }
  const BlockInfo& info_of(Ppa p) const { return blocks_[layout_.die_block_of(p)]; }
  void prefetch_info_of(Ppa p) const { prefetch_line(&blocks_[layout_.die_block_of(p)]); }
  std::uint32_t blocks_per_die() const { return geo_.blocks_per_plane; }
  std::uint32_t dies() const { return geo_.dies(); }
  CellMode native_mode() const { return geo_.native_mode; }
  std::uint32_t pages_in(const BlockInfo& b) const { return geo_.pages_in_mode(b.mode); }
  std::uint64_t capacity_slots(const BlockInfo& b) const {
    return std::uint64_t{pages_in(b)} * layout_.slots_per_page();
  }
  // A full block of native-mode data: what GC victim policies choose among
  // (SLC-mode blocks are emptied by folding instead).
  bool gc_candidate(const BlockInfo& b) const {
    return b.state == BlockState::kFull && b.mode == geo_.native_mode;
  }
  const Layout& layout() const { return layout_; }

  struct Wear {
    std::uint32_t min = 0, max = 0;
    double mean = 0;
    std::uint64_t slc_erases = 0;
  };
  Wear wear() const { return census().wear; }
  // How full the full native-mode blocks are: quantiles and mean of their
  // valid pages over their capacity (GC's raw material; a steady state's
  // signature, which fast: steady is checked against).
  struct ValidShares {
    double p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0, mean = 0;
  };
  ValidShares valid_shares() const { return census().valid; }
  // Both, in one pass over the blocks.
  struct Census {
    Wear wear;
    ValidShares valid;
  };
  Census census() const;
  void archive(StateArchive& ar);  // drive-state snapshots (sim/state_archive.h)

 private:
  struct Pool {  // FIFO of erased blocks: the longest-erased block is used first
    std::vector<std::uint32_t> ring;
    std::uint32_t head = 0, count = 0;
  };
  const Pool& pool(std::uint32_t die, PoolKind k) const {
    return pools_[die * 2 + static_cast<std::size_t>(k)];
  }
  Pool& pool(std::uint32_t die, PoolKind k) {
    return pools_[die * 2 + static_cast<std::size_t>(k)];
  }
  std::uint32_t take_free(std::uint32_t die, PoolKind k);
  std::uint32_t& write_point(std::uint32_t die, Stream s) {
    return write_point_[die * streams_.size() + s.index()];
  }
  std::uint32_t write_point(std::uint32_t die, Stream s) const {
    return write_point_[die * streams_.size() + s.index()];
  }

  Geometry geo_;
  StreamTable streams_;
  Layout layout_;
  std::uint32_t reserved_;
  std::uint32_t static_slc_;
  std::vector<BlockInfo> blocks_;
  std::vector<BlockHistory> history_;          // beside blocks_, same index
  std::vector<Pool> pools_;                    // [die * 2 + PoolKind]
  std::vector<std::uint32_t> write_point_;     // [die * streams + stream] -> block
  std::vector<std::uint32_t> dynamic_slc_;     // per die
  std::vector<std::uint32_t> dead_slc_;        // per die: full SLC blocks with no valid data
  std::vector<std::uint32_t> spares_;          // per die: blocks left in the bad-block reserve
  std::vector<std::uint32_t> unreplaced_die_;  // per die: bad blocks no spare replaced
  std::uint32_t closed_seq_ = 0;
  std::uint64_t free_total_ = 0;  // normal pools, all dies
  std::uint64_t bad_total_ = 0;
  std::uint64_t unreplaced_ = 0;
  // Puts a spare of `die` in service (into the normal pool), if one is left.
  bool use_spare(std::uint32_t die);

  SuperBlockTable sb_;
  std::vector<std::uint8_t> offline_;  // per die, with super-blocks: the die failed
  // The next block of `die`'s stream in its group's super-block sequence
  // (taking a super-block from the pool when at its end), or kNoBlock.
  std::uint32_t next_super_block(std::uint32_t die, Stream stream);
  bool super_can_allocate(std::uint32_t die, Stream stream, std::uint32_t floor) const;
  // Drops sequence entries every live member has passed.
  void trim_sequence(std::uint32_t group, Stream stream);
  // A member of victim super-block `block` erased (or retired) its block:
  // back to the pool when none is left to erase.
  void check_super_erased(std::uint32_t die, std::uint32_t block);
  std::uint64_t live_mask(std::uint32_t group, std::uint32_t block) const;
};

}  // namespace ssdtwin
