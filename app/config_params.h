// Every declared config section (sim/params.h) of drive, workload and sweep
// files, in the order docs/CONFIG.md lists them: `ssdtwin params` and the
// generated reference both read this table.
#pragma once

#include <string>
#include <vector>

#include "sim/params.h"

namespace ssdtwin {

const std::vector<const ParamSection*>& config_sections();
// docs/CONFIG.md, as `ssdtwin params --markdown` prints it.
std::string config_markdown();

}  // namespace ssdtwin
