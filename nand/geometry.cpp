#include "nand/geometry.h"

#include <stdexcept>

#include "sim/config.h"
#include "sim/params.h"

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

const ParamSection& Geometry::params() {
  static const ParamSection kSection{
      "drive.nand",
      "The NAND flash: its geometry and cell type, channel bus and timings per cell mode.",
      {
          param::integer("channels", nullptr, 1, 64, "channels",
                         "flash channels, each a bus its dies share"),
          param::integer("dies_per_channel", nullptr, 1, 64, "dies per channel",
                         "dies on each channel; dies work in parallel and take turns on the bus"),
          param::integer("planes", nullptr, 1, 8, "planes per die",
                         "planes of a die, read, programmed and erased together (multi-plane "
                         "operations)"),
          param::integer("blocks_per_plane", nullptr, 8, 1 << 20, "blocks per plane",
                         "erase blocks in each plane"),
          param::integer("pages_per_block", nullptr, 4, 1 << 14, "pages per block",
                         "pages of a block in the native cell mode, whole wordlines (a multiple "
                         "of the bits per cell)"),
          param::bytes("page_size", nullptr,
                       "data bytes of one plane page, a multiple of 4KiB up to 1MiB"),
          param::choice("cell", nullptr, "slc|mlc|tlc|qlc",
                        "native cell mode: 1 (slc), 2 (mlc), 3 (tlc) or 4 (qlc) bits per cell"),
      }};
  return kSection;
}

Geometry Geometry::from_config(const ConfigNode& node) {
  const Params nand(node, params());
  Geometry g;
  g.channels = static_cast<std::uint32_t>(nand.integer("channels"));
  g.dies_per_channel = static_cast<std::uint32_t>(nand.integer("dies_per_channel"));
  g.planes = static_cast<std::uint32_t>(nand.integer("planes"));
  g.blocks_per_plane = static_cast<std::uint32_t>(nand.integer("blocks_per_plane"));
  g.pages_per_block = static_cast<std::uint32_t>(nand.integer("pages_per_block"));
  // Checked before narrowing, so 4 GiB + 16 KiB is not taken for 16 KiB.
  const std::uint64_t page_size = nand.bytes("page_size");
  g.page_size = static_cast<std::uint32_t>(page_size);
  if (page_size < kSectorBytes || page_size % kSectorBytes != 0 || page_size > (1u << 20))
    nand.fail("page_size", "expected a multiple of 4KiB up to 1MiB");
  g.native_mode = parse_cell_mode(nand.choice("cell"));
  if (g.pages_per_block % bits_per_cell(g.native_mode) != 0)
    nand.fail("pages_per_block", "expected a multiple of the bits per cell (whole wordlines)");
  // Physical slot indices are 32-bit, with the top range reserved for
  // write-buffer references in the mapping table.
  if (g.total_slots() >= 0xF0000000ull)
    nand.fail("blocks_per_plane", "geometry exceeds 15 TiB of raw flash, the 32-bit address limit");
  return g;
}

}  // namespace ssdtwin
