#include "app/drive.h"

#include "sim/config.h"

namespace ssdtwin {

Drive::Drive(const ConfigNode& root, bool verify)
    : name(root.get_string("name")),
      geo(Geometry::from_config(root.child("nand"))),
      timing(NandTiming::from_config(root.child("nand"), geo)),
      nand(engine, geo, timing),
      ftl_cfg(FtlConfig::from_config(root, geo, timing.of(CellMode::kSlc).present)),
      ftl(engine, nand, ftl_cfg, verify),
      ctrl_cfg(ControllerConfig::from_config(root.child("controller"))),
      controller(engine, ftl, ctrl_cfg),
      hif_cfg(HostIfConfig::from_config(root.child("host"))),
      hif(engine, hif_cfg, controller) {
  // The buffer must hold a program unit for a die while the previous one
  // is still being programmed, or writes would stall with nothing to flush.
  const std::uint64_t unit_bytes =
      std::uint64_t{timing.pages_per_program(geo.native_mode)} * geo.slots_per_die_page() *
      kSectorBytes;
  if (ftl_cfg.write_buffer_slots < 2 * unit_bytes / kSectorBytes)
    root.child("controller")
        .fail("write_buffer", "expected at least two program units (" +
                                  std::to_string(2 * unit_bytes) + " bytes)");
}

}  // namespace ssdtwin
