// The FTL's config keys, declared once (sim/params.h), and the FtlConfig a
// drive config reads through them. It sits above the policies and kinds
// whose names it accepts, so that FtlConfig itself (ftl/ftl_config.h) stays
// below everything that reads it.
#pragma once

#include <vector>

#include "ftl/ftl_config.h"
#include "sim/time.h"

namespace ssdtwin {

struct Geometry;
struct ParamSection;
class Params;

// Its keys: the controller's ECC, the NAND's bad blocks and ftl.* but the
// map cache.
std::vector<const ParamSection*> ftl_params();

// `drive` is the drive root, read through its section (the drive's,
// app/drive.cpp); reads user_capacity, controller.* and ftl.*;
// `slc_timing_present`: whether nand.timing has an slc block.
// `hmb_round_trip`: time to fetch a map entry over the host link (0: no HMB possible).
FtlConfig read_ftl_config(const Params& drive, const Geometry& geo, bool slc_timing_present,
                          Tick hmb_round_trip);

}  // namespace ssdtwin
