// What the FTL knows of its drive and never changes while it runs: the
// configuration, the geometry and what follows from them. Const, so the
// type says it: neither a snapshot nor a power cut's image carries it
// (a snapshot loads into a drive built from the same config, and recovery
// builds the FTL from the config again).
#pragma once

#include <cstdint>

#include "ftl/address.h"
#include "ftl/blocks/rain_stripes.h"
#include "ftl/ftl_config.h"
#include "nand/nand_array.h"
#include "sim/event_engine.h"

namespace ssdtwin {

struct FtlFixed {
  FtlFixed(EventEngine& e, NandArray& n, const FtlConfig& c)
      : engine(e),
        nand(n),
        geo(n.geometry()),
        cfg(c),
        layout(geo),
        native(geo.native_mode),
        pages_per_program(n.timing().pages_per_program(geo.native_mode)),
        unit_slots(pages_per_program * geo.slots_per_die_page()),
        stripes(c.rain_stripe) {}
  EventEngine& engine;
  NandArray& nand;
  const Geometry& geo;
  const FtlConfig cfg;
  const Layout layout;
  const CellMode native;
  const std::uint32_t pages_per_program;  // native mode, per plane
  const std::uint32_t unit_slots;         // 4 KiB slots in one native program unit
  const RainStripes stripes;              // RAIN stripe table (ftl/blocks/rain_stripes.h)
  // The fault stream's seed in power cycle `cycle`: after a cut, faults
  // draw on instead of replaying from the seed.
  std::uint64_t fault_seed(std::uint32_t cycle) const {
    return cfg.bad_blocks.seed ^ 0x5EED5EEDull ^ (std::uint64_t{cycle} << 32);
  }
};

}  // namespace ssdtwin
