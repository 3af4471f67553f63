// NAND array geometry and cell modes.
//
// Addressing used throughout the simulator: a "die-block" is block index b on
// every plane of one die. Planes of a die are programmed and erased together
// (multi-plane operations), so the die-block is the unit of allocation and
// erase, and a "die-page" (page p of a die-block on all planes) the unit of
// multi-plane read and program. Dies are numbered channel-first
// (die = channel + channels * die_on_channel) so that striping writes over
// consecutive dies spreads them over channels before stacking on a channel.
#pragma once

#include <cstdint>
#include <string>

namespace ssdtwin {

class ConfigNode;
struct ParamSection;

enum class CellMode : std::uint8_t { kSlc = 1, kMlc = 2, kTlc = 3, kQlc = 4 };

inline unsigned bits_per_cell(CellMode m) { return static_cast<unsigned>(m); }
const char* cell_mode_name(CellMode m);
CellMode parse_cell_mode(const std::string& name);  // "slc" | "mlc" | "tlc" | "qlc"

constexpr std::uint32_t kSectorBytes = 4096;  // mapping granularity (one logical page)

struct Geometry {
  std::uint32_t channels = 1;
  std::uint32_t dies_per_channel = 1;
  std::uint32_t planes = 1;  // per die
  std::uint32_t blocks_per_plane = 1;
  std::uint32_t pages_per_block = 1;  // in the native cell mode
  std::uint32_t page_size = 16384;    // bytes per plane page
  CellMode native_mode = CellMode::kTlc;

  static const ParamSection& params();  // its keys of drive.nand, declared (sim/params.h)
  static Geometry from_config(const ConfigNode& nand);

  std::uint32_t dies() const { return channels * dies_per_channel; }
  std::uint32_t channel_of(std::uint32_t die) const { return die % channels; }
  std::uint32_t sectors_per_page() const { return page_size / kSectorBytes; }
  // 4 KiB slots in one die-page (all planes).
  std::uint32_t slots_per_die_page() const { return planes * sectors_per_page(); }
  std::uint32_t die_blocks() const { return dies() * blocks_per_plane; }
  // Pages of a die-block when programmed in `mode` (an SLC-mode block of a
  // TLC part stores one bit per cell, so it has a third of the pages).
  std::uint32_t pages_in_mode(CellMode mode) const {
    return pages_per_block * bits_per_cell(mode) / bits_per_cell(native_mode);
  }
  std::uint64_t slots_per_die_block() const {
    return std::uint64_t{pages_per_block} * slots_per_die_page();
  }
  std::uint64_t total_slots() const { return slots_per_die_block() * die_blocks(); }
  std::uint64_t raw_bytes() const { return total_slots() * kSectorBytes; }
};

}  // namespace ssdtwin
