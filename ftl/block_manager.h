// Per-die pools of erased blocks, per-block state, and the write points
// (open blocks) that host writes and GC relocations program into.
//
// The unit of allocation and erase is the die-block (the same block index on
// every plane of a die, see nand/geometry.h). Host data and GC relocations
// go to separate open blocks (streams), so that cold relocated data does not
// mix with hot host data.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ftl/address.h"
#include "nand/geometry.h"

namespace ssdtwin {

enum class BlockState : std::uint8_t { kFree, kOpen, kFull, kVictim };
enum class Stream : std::uint8_t { kHost = 0, kGc = 1 };
constexpr std::size_t kStreams = 2;
constexpr std::uint32_t kNoBlock = 0xFFFFFFFFu;

struct BlockInfo {
  std::uint32_t valid = 0;        // valid 4 KiB slots
  std::uint32_t erase_count = 0;  // P/E cycles
  std::uint32_t closed_seq = 0;   // order in which blocks were filled (FIFO victim choice)
  std::uint16_t next_page = 0;    // next die-page to allocate
  std::uint16_t programmed = 0;   // die-pages whose program completed (in order)
  BlockState state = BlockState::kFree;
  CellMode mode = CellMode::kTlc;
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
  BlockManager(const Geometry& geo, std::uint32_t reserved_blocks);

  std::uint32_t free_blocks(std::uint32_t die) const { return pools_[die].count; }
  std::uint32_t reserved_blocks() const { return reserved_; }

  // Next program unit of the stream's write point on `die`, opening a new
  // block when the current one is fully allocated. Host writes may not take
  // the last `reserved_blocks` free blocks of a die (they are kept for GC).
  std::optional<ProgramUnit> allocate_unit(std::uint32_t die, Stream stream,
                                           std::uint32_t pages_per_program, CellMode mode);
  // True when allocate_unit would succeed without opening a block beyond the reserve.
  bool can_allocate(std::uint32_t die, Stream stream, std::uint32_t pages_per_program) const;

  // Program completion for die-pages [page, page+pages); completions on a
  // block arrive in order because a die runs its programs in order.
  void on_programmed(std::uint32_t die, std::uint32_t block, std::uint32_t pages);
  void set_victim(std::uint32_t die, std::uint32_t block);
  // After erase: back to the free pool.
  void on_erased(std::uint32_t die, std::uint32_t block);

  BlockInfo& info(std::uint32_t die, std::uint32_t block) {
    return blocks_[layout_.die_block(die, block)];
  }
  const BlockInfo& info(std::uint32_t die, std::uint32_t block) const {
    return blocks_[layout_.die_block(die, block)];
  }
  BlockInfo& info_of(Ppa p) { return blocks_[layout_.die_block_of(p)]; }
  std::uint32_t blocks_per_die() const { return geo_.blocks_per_plane; }
  std::uint32_t dies() const { return geo_.dies(); }
  std::uint32_t pages_in(const BlockInfo& b) const { return geo_.pages_in_mode(b.mode); }
  const Layout& layout() const { return layout_; }

  struct Wear {
    std::uint32_t min = 0, max = 0;
    double mean = 0;
  };
  Wear wear() const;

 private:
  struct Pool {  // FIFO of erased blocks: the longest-erased block is used first
    std::vector<std::uint32_t> ring;
    std::uint32_t head = 0, count = 0;
  };
  std::uint32_t take_free(std::uint32_t die);

  Geometry geo_;
  Layout layout_;
  std::uint32_t reserved_;
  std::vector<BlockInfo> blocks_;
  std::vector<Pool> pools_;
  std::vector<std::uint32_t> write_point_;  // [die * kStreams + stream] -> block
  std::uint32_t closed_seq_ = 0;
};

}  // namespace ssdtwin
