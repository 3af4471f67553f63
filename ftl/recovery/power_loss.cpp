// Power-loss protection's config (ftl.power_loss). The cut and the
// recovery themselves are the FTL facade's: ftl/ftl_power_loss.cpp.
#include "ftl/recovery/power_loss.h"

#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

const ParamSection& PowerLossConfig::params() {
  static const ParamSection kSection{
      "drive.ftl.power_loss",
      "What a power cut loses (workload faults.power_cuts) and how long the recovery takes.",
      {
          param::flag("protection", "false",
                      "power-loss protection (capacitors): the buffer and programs under way "
                      "are flushed, if the flush fits in hold_up"),
          param::time("hold_up", "0",
                      "what the capacitors hold the drive up for; required with protection"),
          param::flag("paired_page_protection", "false",
                      "an interrupted MLC, TLC or QLC program keeps its lower pages"),
          param::time("boot_time", "0", "firmware start before the mapping rebuild"),
          param::bytes("map_checkpoint_every", "0",
                       "write the changed map pages after this much host data; recovery then "
                       "reads the map and scans only blocks written since (0: no checkpoints, "
                       "recovery scans every programmed page)"),
      }};
  return kSection;
}

PowerLossConfig PowerLossConfig::from_config(const ConfigNode& node) {
  const Params p(node, params());
  PowerLossConfig c;
  c.protection = p.flag("protection");
  c.hold_up = p.time("hold_up");
  if (c.protection && c.hold_up == 0)
    p.fail("hold_up", "expected the time the capacitors hold the drive up (protection: true)");
  c.paired_page_protection = p.flag("paired_page_protection");
  c.boot_time = p.time("boot_time");
  c.checkpoint_every = p.bytes("map_checkpoint_every");
  return c;
}

}  // namespace ssdtwin
