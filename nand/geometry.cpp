#include "nand/geometry.h"

#include <stdexcept>

#include "sim/config.h"

namespace ssdtwin {

const char* cell_mode_name(CellMode m) {
  switch (m) {
    case CellMode::kSlc:
      return "slc";
    case CellMode::kMlc:
      return "mlc";
    case CellMode::kTlc:
      return "tlc";
    case CellMode::kQlc:
      return "qlc";
  }
  return "?";
}

CellMode parse_cell_mode(const std::string& name) {
  if (name == "slc") return CellMode::kSlc;
  if (name == "mlc") return CellMode::kMlc;
  if (name == "tlc") return CellMode::kTlc;
  if (name == "qlc") return CellMode::kQlc;
  throw std::invalid_argument("unknown cell mode " + name);
}

Geometry Geometry::from_config(const ConfigNode& nand) {
  Geometry g;
  g.channels = static_cast<std::uint32_t>(nand.get_int("channels", 1, 64));
  g.dies_per_channel = static_cast<std::uint32_t>(nand.get_int("dies_per_channel", 1, 64));
  g.planes = static_cast<std::uint32_t>(nand.get_int("planes", 1, 8));
  g.blocks_per_plane = static_cast<std::uint32_t>(nand.get_int("blocks_per_plane", 8, 1 << 20));
  g.pages_per_block = static_cast<std::uint32_t>(nand.get_int("pages_per_block", 4, 1 << 14));
  // Checked before narrowing, so 4 GiB + 16 KiB is not taken for 16 KiB.
  const std::uint64_t page_size = nand.get_bytes("page_size");
  g.page_size = static_cast<std::uint32_t>(page_size);
  if (page_size < kSectorBytes || page_size % kSectorBytes != 0 || page_size > (1u << 20))
    nand.fail("page_size", "expected a multiple of 4KiB up to 1MiB");
  g.native_mode = parse_cell_mode(nand.get_enum("cell", {"slc", "mlc", "tlc", "qlc"}));
  if (g.pages_per_block % bits_per_cell(g.native_mode) != 0)
    nand.fail("pages_per_block", "expected a multiple of the bits per cell (whole wordlines)");
  // Physical slot indices are 32-bit, with the top range reserved for
  // write-buffer references in the mapping table.
  if (g.total_slots() >= 0xF0000000ull)
    nand.fail("blocks_per_plane", "geometry exceeds 15 TiB of raw flash, the 32-bit address limit");
  return g;
}

}  // namespace ssdtwin
