#include "app/drive.h"

#include "sim/config.h"

namespace ssdtwin {

namespace {

// A map lookup in the Host Memory Buffer is a PCIe memory read of one cache
// line: the request TLP up, the completion with the data down, plus the
// host's memory and root-complex latency.
Tick hmb_round_trip(const HostIfConfig& hif, const ConfigNode& host) {
  if (hif.kind != LinkKind::kPcie) return 0;
  const HostLink link(hif.link);
  const Tick memory = host.child("pcie").get_time("host_memory_latency", 600);
  const Tick request = transfer_time(hif.link.packet_overhead, hif.link.raw_bytes_per_s);
  return request + link.duration(64) + memory;
}

}  // namespace

Drive::Drive(const ConfigNode& root, bool verify, std::unique_ptr<ErrorModel> given_errors)
    : name(root.get_string("name")),
      geo(Geometry::from_config(root.child("nand"))),
      timing(NandTiming::from_config(root.child("nand"), geo)),
      nand(engine, geo, timing),
      errors(given_errors ? std::move(given_errors)
                          : make_error_model(root.child("nand").child("errors"))),
      hif_cfg(HostIfConfig::from_config(root.child("host"))),
      ftl_cfg(FtlConfig::from_config(root, geo, timing.of(CellMode::kSlc).present,
                                     hmb_round_trip(hif_cfg, root.child("host")))),
      ftl(engine, nand, ftl_cfg, verify, errors.get()),
      ctrl_cfg(ControllerConfig::from_config(root.child("controller"))),
      controller(engine, ftl, ctrl_cfg),
      hif(engine, hif_cfg, controller) {
  nand.add_observer(&controller);
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
